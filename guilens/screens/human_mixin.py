"""The run screen's half that talks to the person: the agent's questions, and the person's
own actions when they have taken over (or are the agent).

Every answer goes through the `QuestionChannel`, the same way the headless
console answers; the runner records each human action as a step by `human`,
timed, so nothing here writes to the episode.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.screen import Screen

from guilens.screens.widgets.human import CommandLine, CommandMessage, HumanPanel
from guilens.screens.widgets.phone import PhoneView

if TYPE_CHECKING:
    from guilens.control import QuestionChannel, Request, RunControl
    from guilens.episode import Step


class HumanControls(Screen[None]):
    """A part of `RunScreen`, which sets up the state below."""

    control: RunControl
    channel: QuestionChannel
    pending: dict[int, Request]
    steps: list[Step]
    state: str
    ui_xml: str | None
    _asking: int | None

    # -- the agent asks -------------------------------------------------------------------------
    def open_question(self, req: Request) -> None:
        from guilens.screens.modals import AskUserScreen

        if self._asking is not None:
            return
        self._asking = req.id
        step = self.steps[-1].index + 1 if self.steps else 0

        def answered(text: str | None) -> None:
            self._asking = None
            if text is not None and not self.channel.answer(req.id, text):
                self.notify("That question was withdrawn.", severity="warning")
            self.refresh_bindings()

        self.app.push_screen(AskUserScreen(req.text, req.suggestion, request_id=req.id, step=step), answered)

    def _close_question(self) -> None:
        from guilens.screens.modals import AskUserScreen

        screen = self.app.screen
        if isinstance(screen, AskUserScreen) and screen.request_id == self._asking:
            screen.dismiss(None)
        self._asking = None

    def action_answer(self) -> None:
        req = next((r for r in self.pending.values() if r.kind == "question"), None)
        if req is None:
            self.notify("The agent has not asked anything.", timeout=2)
            return
        self.open_question(req)

    # -- the person at the controls ----------------------------------------------------------
    def action_take_over(self) -> None:
        human = not self.control.human
        self.control.take_over(human)
        if human:
            text = "You have the controls: click the phone, pick an element, or : for a command. t hands back."
        else:
            text = "Handed back to the agent."  # a move the runner was waiting for is withdrawn
        self.notify(text, timeout=5)

    def human_request_opened(self, req: Request) -> None:
        panel = self.query_one(HumanPanel)
        error = (req.context or {}).get("error")
        prompt = req.text.splitlines()[-1] if req.text else ""
        panel.set_prompt(prompt, error)
        panel.set_ui(self.ui_xml)
        if not isinstance(self.app.focused, CommandLine):
            panel.query_one("#elements").focus()

    def send_human(self, command: str) -> bool:
        """Answer the open action request with `command`; False (and a hint) when there is none."""
        req = next((r for r in self.pending.values() if r.kind == "action"), None)
        if req is None:
            hint = ("Wait: the device is busy with the last action." if self.control.human
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

    # Handlers by name, not `@on`: Textual collects decorated handlers only on its own classes.
    def on_command_message(self, event: CommandMessage) -> None:
        event.stop()
        self.send_human(event.text)

    def on_phone_view_tapped(self, event: PhoneView.Tapped) -> None:
        if self.state == "human":
            self.send_human(f"tap {event.x} {event.y}")

    def on_phone_view_swiped(self, event: PhoneView.Swiped) -> None:
        if self.state == "human":
            self.send_human(f"swipe {event.x1} {event.y1} {event.x2} {event.y2}")

    def on_human_panel_highlighted(self, event: HumanPanel.Highlighted) -> None:
        phone = self.query_one(PhoneView)
        if event.bounds is None:
            last = self.steps[-1].action if self.steps else None
            phone.show_action(last)
        else:
            phone.show_action({"type": "element", "bounds": list(event.bounds)})
