"""The status line: where the run is and what it is doing, in one row.

Scenario, task, level, attempt i/k, steps done n/budget, elapsed time,
tokens, dollars, the device clock, and the state (running, paused, waiting for
an answer, human at the controls, the phone gone and waited for, finished with its
outcome). The run screen
owns these values as reactives and binds them here (`data_bind`).

The step count is the steps *completed*, labelled so ("9/23 steps done"). Steps
are numbered from 1 everywhere a person reads them, so that count is also the
number of the trace's last step at every moment; the step in progress shows
only as the state ("running", "waiting for an answer"). Counting the step in
progress instead would put the status one ahead of the trace for the whole
time a step runs, which is most of the time.
"""

from __future__ import annotations

import time

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

STATES = {
    "starting": ("…", "$text-muted", "starting"),
    "running": ("●", "$success", "running"),
    "paused": ("❚❚", "$warning", "paused"),
    "stepping": ("▶", "$warning", "one step"),
    "waiting": ("?", "$secondary", "waiting for an answer"),
    "human": ("✋", "$warning", "human at the controls"),
    "disconnected": ("⚡", "$error", "phone gone · space: try now"),
    "cancelling": ("…", "$warning", "cancelling"),
    "finished": ("■", "$text", "finished"),
}
OUTCOME_STYLE = {"success": "$success", "failure": "$error", "error": "$error"}


def human_tokens(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M"
    if n >= 1000:
        return f"{n / 1000:.1f}k"
    return str(n)


def elapsed_text(seconds: float) -> str:
    s = int(max(0, seconds))
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


class StatusLine(Widget):
    DEFAULT_CSS = """
    StatusLine { height: 1; padding: 0 1; background: $panel; }
    StatusLine.-paused { background: $warning 20%; }
    StatusLine.-human { background: $warning 25%; }
    StatusLine.-waiting { background: $secondary 25%; }
    StatusLine.-finished { background: $primary 15%; }
    StatusLine.-disconnected { background: $error 25%; }
    """

    scenario: reactive[str] = reactive("")
    task_id: reactive[str] = reactive("")
    level: reactive[str] = reactive("")
    attempt: reactive[int] = reactive(0)
    attempts: reactive[int] = reactive(0)
    step: reactive[int] = reactive(0)
    """Steps completed: the number of the last step recorded (steps count from 1), 0 before the first."""
    budget: reactive[int] = reactive(0)
    started: reactive[float] = reactive(0.0)
    """`time.monotonic()` when the attempt started; 0 before."""
    ended: reactive[float] = reactive(0.0)
    tokens: reactive[int] = reactive(0)
    cost: reactive[float] = reactive(0.0)
    clock: reactive[str] = reactive("")
    state: reactive[str] = reactive("starting")
    outcome: reactive[str] = reactive("")

    def on_mount(self) -> None:
        self.set_interval(1.0, self.refresh)

    def watch_state(self, state: str) -> None:
        for name in ("paused", "human", "waiting", "finished", "disconnected"):
            self.set_class(state == name, f"-{name}")

    def render(self) -> Content:
        # (priority, text): when the line is too narrow the lowest priorities go first.
        parts: list[tuple[int, Content]] = []
        if self.task_id:
            what = f"{self.scenario}:{self.task_id}" if self.scenario else self.task_id
            parts.append((9, Content.from_markup("[b]$w[/]", w=what)))
        if self.level:
            parts.append((5, Content(self.level)))
        if self.attempts:
            parts.append((6, Content(f"attempt {self.attempt}/{self.attempts}")))
        if self.budget or self.step:
            done = f"{self.step}/{self.budget}" if self.budget else str(self.step)
            parts.append((8, Content(f"{done} steps done")))
        if self.started:
            end = self.ended or time.monotonic()
            parts.append((7, Content(elapsed_text(end - self.started))))
        parts.append((3, Content(f"{human_tokens(self.tokens)} tok")))
        parts.append((4, Content(f"${self.cost:.4f}" if self.cost < 1 else f"${self.cost:.2f}")))
        if self.clock:
            parts.append((2, Content.from_markup("device $c", c=self.clock)))
        icon, style, label = STATES.get(self.state, ("·", "$text", self.state))
        if self.state == "finished" and self.outcome:
            style = OUTCOME_STYLE.get(self.outcome, "$warning")
            label = f"finished: {self.outcome}"
        badge = Content.from_markup(f"[b $background on {style}] $i $l [/]", i=icon, l=label)
        sep = Content(" · ")
        room = (self.size.width or 200) - badge.cell_length - 1
        while parts and sum(c.cell_length + 3 for _, c in parts) > room:
            parts.remove(min(parts, key=lambda p: p[0]))
        return sep.join([c for _, c in parts] + [badge])
