"""The replay screen's keys that lead elsewhere or change the view: go to a step (`g`), the model's
calls at a step (`l`), judge (`j`), zoom (`z`), the phones' view (`v`) and magnifier (`+ -`), back.

Apart from `guilens.screens.replay_screen` as a mixin, so the screen stays about showing a step;
the label (`m`) is `replay_labels`' mixin, which this one extends.
"""

from __future__ import annotations

from typing import Any

from textual.content import Content
from textual.reactive import reactive

from guilens.describe import step_number
from guilens.episode import Step
from guilens.screens.replay_frames import ReplayLoader
from guilens.screens.replay_labels import LabelMixin
from guilens.screens.replay_steps import looked_at
from guilens.screens.widgets.phone import PhoneView
from guilens.screens.widgets.step_list import StepList
from guilens.screens.widgets.verdict import VerdictView

JUMP_WAIT = 0.08
"""Seconds `g`'s Enter waits for the step's frames before the prompt closes (see `action_goto`)."""


class ReplayKeys(LabelMixin):
    """The base of `ReplayScreen` (see the module docstring)."""

    steps: list[Step]
    settings: Any
    loader: ReplayLoader | None
    _looked: dict[int, list[str]]
    index: reactive[int]
    zoomed: reactive[bool] = reactive(False)

    def _size_phones(self) -> None:
        raise NotImplementedError  # the screen sizes its phones to the view and the terminal

    def _row(self, i: int) -> Content:
        raise NotImplementedError  # the screen's list row of step `i`

    def _show_step(self, index: int) -> None:
        raise NotImplementedError  # the screen's text of step `index`

    def action_cycle_view(self) -> None:
        after = self.query_one("#after", PhoneView)
        view = self.query_one("#before", PhoneView).cycle_view()
        after.view = view
        self._size_phones()
        self.notify(f"Phones: {view}", timeout=2)

    def action_magnify(self, delta: int) -> None:
        for phone in self.query(PhoneView):
            phone.magnify(phone.zoom + delta)

    def action_goto(self) -> None:
        from guilens.screens.modals import PromptScreen

        n = len(self.steps)

        first, last = step_number(0), step_number(n - 1)

        def check(text: str) -> str | None:
            if not text.isdigit() or not first <= int(text) <= last:
                return f"a step number from {first} to {last}"
            return None

        def typed(text: str) -> None:
            """The step typed so far is prepared while the person types on (`ReplayLoader.expect`),
            and the list's lines around it (`StepList.prepare_jump`): Enter then finds its frames and
            rows ready, and shows it in the paint that closes the prompt."""
            if self.loader is not None and check(text) is None:
                index = int(text) - first
                self.loader.expect(index)
                self.query_one("#step-list", StepList).prepare_jump(index)

        def go(text: str | None) -> None:
            if text is None:
                return
            index = int(text) - first
            if self.loader is not None and index != self.index:
                # Closing the prompt repaints the whole screen: waiting (briefly) for the step's frames
                # here makes that paint show the new step, where it would show the old one and hold
                # the GIL through the decode (a typed step is ready already: no wait).
                self.loader.request(index)
                self.loader.wait_ready(index, JUMP_WAIT)
            self.index = index

        self.app.push_screen(PromptScreen("Go to step", placeholder=f"{first}-{last}", validate=check,
                                          changed=typed), go)

    def action_zoom(self) -> None:
        self.zoomed = not self.zoomed
        self.set_class(self.zoomed, "-zoomed")
        self._size_phones()

    def action_llm_calls(self) -> None:
        """What the model saw and said at the step in view (its recorded calls)."""
        if not self.steps:
            return
        from guilens.screens.llm_calls import LLMCallsScreen

        self.app.push_screen(LLMCallsScreen(self.steps[self.index]))

    def action_judge(self) -> None:
        from guilens.screens.judge_screen import JudgeScreen

        def done(verdict: Any) -> None:
            self.verdict = self.reader.verdict()
            self._looked = looked_at(self.verdict, len(self.steps) + 1)
            self.query_one(VerdictView).show(self.verdict)
            self._show_label()
            self.query_one("#step-list", StepList).set_rows(len(self.steps), self._row)
            if self.steps:
                self._show_step(self.index)

        self.app.push_screen(JudgeScreen(self.path, settings=self.settings), done)

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()
        else:
            self.app.exit()

