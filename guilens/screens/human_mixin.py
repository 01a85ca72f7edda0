"""The run screen's half that talks to the person: the agent's questions, and the person's
own actions when they have taken over (or are the agent).

Every answer goes through the `QuestionChannel`, the same way the headless
console answers; the runner records each human action as a step by `human`,
timed, so nothing here writes to the episode.

With several devices, take-over and the person's moves go to the device in
view, and the agent's questions are answered one at a time, each in a modal
that names the device asking (its tab comes into view, unless the person is
at the controls of the one they are looking at).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.screen import Screen

from guilens.describe import step_number
from guilens.screens.modals import AskUserScreen
from guilens.screens.widgets.human import CommandLine, CommandMessage, HumanPanel
from guilens.screens.widgets.phone import PhoneView

if TYPE_CHECKING:
    from textual.widget import Widget

    from guilens.control import QuestionChannel, Request, RunControl
    from guilens.screens.device_pane import DevicePane


class DeviceAskScreen(AskUserScreen):
    """The agent's question, in a run over several devices: the title names the device asking."""

    def __init__(self, device: str, question: str, suggestion: str | None, *, request_id: int = 0,
                 step: int | None = None) -> None:
        super().__init__(question, suggestion, request_id=request_id, step=step)
        self.device = device

    def on_mount(self) -> None:  # Textual calls AskUserScreen.on_mount too (it focuses the answer)
        self.query_one("#dialog").border_title = f"The agent on {self.device} asks" + (
            f" · step {self.step}" if self.step is not None else "")


class HumanControls(Screen[None]):
    """A part of `RunScreen`, which sets up the state below."""

    control: RunControl
    channel: QuestionChannel
    pending: dict[int, Request]
    state: str
    _asking: int | None

    if TYPE_CHECKING:
        @property
        def pane(self) -> DevicePane: ...

        @property
        def panes(self) -> list[DevicePane]: ...

        def pane_of_request(self, req: Request) -> DevicePane: ...

        def show_pane(self, pane: DevicePane) -> None: ...

    # -- the agent asks -------------------------------------------------------------------------
    def open_question(self, req: Request) -> None:
        if self._asking is not None:
            return  # one modal at a time; the next opens when this one is answered
        pane = self.pane_of_request(req)
        several = len(self.panes) > 1
        if several and pane is not self.pane and self.pane.state != "human":
            self.show_pane(pane)  # the question's context: that device's phone and trace
        self._asking = req.id
        step = step_number(pane.steps[-1].index + 1 if pane.steps else 0)  # the step asking, as people count

        def answered(text: str | None) -> None:
            self._asking = None
            if text is not None and not self.channel.answer(req.id, text):
                self.notify("That question was withdrawn.", severity="warning")
            self.refresh_bindings()
            if text is not None:
                self.call_later(self._next_question)

        if several and pane.label:
            modal: AskUserScreen = DeviceAskScreen(pane.label, req.text, req.suggestion, request_id=req.id, step=step)
        else:
            modal = AskUserScreen(req.text, req.suggestion, request_id=req.id, step=step)
        self.app.push_screen(modal, answered)

    def _next_question(self) -> None:
        req = next((r for r in self.pending.values() if r.kind == "question" and not r.future.done()), None)
        if req is not None and self._asking is None:
            self.open_question(req)

    def _close_question(self) -> None:
        screen = self.app.screen
        if isinstance(screen, AskUserScreen) and screen.request_id == self._asking:
            screen.dismiss(None)
        self._asking = None
        self.call_later(self._next_question)

    # -- a baseline session: the next task -------------------------------------------------------
    def open_next_task(self, req: Request) -> None:
        """The runner waits for the person to start the next task (`start` request): show it."""
        from guilens.screens.modals import NextTaskScreen

        def chosen(word: str | None) -> None:
            if word is not None and not self.channel.answer(req.id, word):
                self.notify("That task was withdrawn (the run ended).", severity="warning")
            if word == "stop":
                self.notify("Ending the session after this point.", timeout=4)

        self.app.push_screen(NextTaskScreen(req.text, request_id=req.id, context=req.context), chosen)

    def close_next_task(self, req: Request) -> None:
        from guilens.screens.modals import NextTaskScreen

        for screen in self.app.screen_stack:
            if isinstance(screen, NextTaskScreen) and screen.request_id == req.id:
                screen.dismiss(None)

    def action_answer(self) -> None:
        questions = [r for r in self.pending.values() if r.kind == "question"]
        req = next((r for r in questions if self.pane_of_request(r) is self.pane), None) or next(iter(questions), None)
        if req is None:
            self.notify("The agent has not asked anything.", timeout=2)
            return
        self.open_question(req)

    # -- the person at the controls ----------------------------------------------------------
    def action_take_over(self) -> None:
        device = self.pane.label
        human = not self.control.is_human(device)
        self.control.take_over(human, device=device)
        where = f" of {device}" if len(self.panes) > 1 and device else ""
        if human:
            text = (f"You have the controls{where}: click the phone, pick an element, or : for a command. "
                    "t hands back.")
            if self.control.paused:
                text += " The run stays paused for the agent; your moves go through."
        else:
            text = f"Handed the controls{where} back to the agent."  # a move it was waiting for is withdrawn
        self.notify(text, timeout=5)

    def human_request_opened(self, req: Request) -> None:
        pane = self.pane_of_request(req)
        panel = pane.human
        error = (req.context or {}).get("error")
        prompt = req.text.splitlines()[-1] if req.text else ""
        panel.set_prompt(prompt, error)
        panel.set_ui(pane.ui_xml)
        self.focus_elements(pane)

    def focus_elements(self, pane: DevicePane) -> None:
        """Put the keys on the element list of `pane` (when in view): ↑↓ then pick an element and Enter
        taps it, rather than scrolling whatever had focus before (the trace). The command line keeps
        the keys while it is open, and so does the phone while it is magnified (the arrows pan it)."""
        if pane is not self.pane:
            return
        focused = self.focused
        if isinstance(focused, CommandLine) or (isinstance(focused, PhoneView) and focused.zoom > 1):
            return
        pane.human.query_one("#elements").focus()

    def _action_request(self, pane: DevicePane) -> Request | None:
        return next((r for r in self.pending.values() if r.kind == "action" and self.pane_of_request(r) is pane), None)

    def send_human(self, command: str, pane: DevicePane | None = None) -> bool:
        """Answer the open action request of `pane` (the device in view) with `command`;
        False (and a hint) when there is none."""
        pane = pane or self.pane
        req = self._action_request(pane)
        if req is None:
            hint = ("Wait: the device is busy with the last action." if self.control.is_human(pane.label)
                    else "Press t to take over first.")
            self.notify(hint, timeout=3)
            return False
        if not self.channel.answer(req.id, command):
            self.notify("That request was withdrawn.", severity="warning")
            return False
        self.pending.pop(req.id, None)
        return True

    def action_device_key(self, key: str) -> None:
        self.send_human(key)

    def action_command_line(self) -> None:
        line = self.query_one(CommandLine)
        line.add_class("-open")
        line.focus()

    def _pane_holding(self, widget: Widget) -> DevicePane:
        return next((p for p in self.panes if widget in p.walk_children()), self.pane)

    # Handlers by name, not `@on`: Textual collects decorated handlers only on its own classes.
    def on_command_message(self, event: CommandMessage) -> None:
        event.stop()
        self.send_human(event.text)

    def on_phone_view_tapped(self, event: PhoneView.Tapped) -> None:
        pane = self._pane_holding(event.phone)
        if pane.state == "human":
            self.send_human(f"tap {event.x} {event.y}", pane)

    def on_phone_view_swiped(self, event: PhoneView.Swiped) -> None:
        pane = self._pane_holding(event.phone)
        if pane.state == "human":
            self.send_human(f"swipe {event.x1} {event.y1} {event.x2} {event.y2}", pane)

    def on_human_panel_highlighted(self, event: HumanPanel.Highlighted) -> None:
        pane = self.pane  # only the panel in view can be used
        if event.bounds is None:
            last = pane.steps[-1].action if pane.steps else None
            pane.phone.show_action(last)
        else:
            pane.phone.show_action({"type": "element", "bounds": list(event.bounds)})
