"""Judging an episode from the TUI: the staged judge on a thread, its stages shown as they complete.

The judge writes `verdict.json` next to the episode, exactly as `guilens judge`
does; a verdict that is still valid is reused and costs nothing. When the
judge reports stages one at a time (an `on_stage` callback), each appears as
it lands; otherwise they all appear when the verdict is ready.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static
from textual.worker import Worker, WorkerState

from guilens.judge.verdict import STAGE_ORDER
from guilens.screens.widgets.verdict import VerdictView

PIPELINE = list(STAGE_ORDER)
"""The stages shown pending until each result lands: the pipeline's own order, so a new stage shows."""


class JudgeScreen(ModalScreen[Any]):
    BINDINGS = [Binding("escape,q,j", "close", "Close")]

    def __init__(self, path: Path | str, *, settings: Any = None, force: bool = False) -> None:
        super().__init__()
        self.path = Path(path)
        self.settings = settings
        self.force = force
        self.stages: list[Any] = []
        self.verdict: Any = None

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog", classes="judge") as box:
            box.border_title = f"Judging {self.path.parent.name}/{self.path.name}"
            yield Static(Content.from_markup("[$text-muted]judging… stages appear as they complete[/]"), id="judge-state")
            yield VerdictView(id="judge-verdict")
            yield Static(Content.from_markup("[$text-muted]Esc: close (judging goes on in the background)[/]"),
                         classes="hint")

    def on_mount(self) -> None:
        self.query_one(VerdictView).show_stages([], PIPELINE)
        self.judge()

    @work(thread=True, exclusive=True, group="judge", exit_on_error=False)
    def judge(self) -> Any:
        from guilens.judge.pipeline import judge_episode

        kwargs: dict[str, Any] = {"settings": self.settings, "force": self.force}
        if "on_stage" in inspect.signature(judge_episode).parameters:
            kwargs["on_stage"] = lambda stage: self.app.call_from_thread(self._stage_done, stage)
        return judge_episode(self.path, **kwargs)

    def _stage_done(self, stage: Any) -> None:
        if not self.is_attached:  # closed while the judge goes on
            return
        self.stages.append(stage)
        done = {getattr(s, "stage", None) for s in self.stages}
        self.query_one(VerdictView).show_stages(self.stages, [n for n in PIPELINE if n not in done])

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "judge" or not self.is_attached:
            return
        state = self.query_one("#judge-state", Static)
        if event.state == WorkerState.SUCCESS:
            self.verdict = event.worker.result
            reused = getattr(self.verdict, "_reused", False)
            state.update(Content.from_markup(
                "[$text-muted]$w · written to $p[/]",
                w="unchanged since the last judgement (reused, free)" if reused else "judged",
                p=str(self.path / "verdict.json"),
            ))
            self.query_one(VerdictView).show(self.verdict)
        elif event.state == WorkerState.ERROR:
            err = event.worker.error
            state.update(Content.from_markup("[b $error]The judge failed: $e[/]", e=f"{type(err).__name__}: {err}"))

    def action_close(self) -> None:
        self.dismiss(self.verdict)
