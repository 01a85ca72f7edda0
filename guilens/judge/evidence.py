"""What the judge knows of one episode: its record, its task, and how to show them to a model.

Numbering is the recorder's: step i's screenshot (`screens/000i.png`) is the
screen the agent saw before action i, and screen number `steps` is the final
screen after the last action. Every prompt, every image label and every
`steps` list in a verdict uses these numbers, so "step 7" means the same file
everywhere (the peer judge numbered descriptions by list position, and the
numbers drifted when a step was dropped).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from PIL import Image

from guilens.episode import EpisodeReader, Step

if TYPE_CHECKING:
    from guilens.scenarios.model import Scenario, Task


def action_command(action: dict[str, Any] | None) -> str:
    """The raw action in guilens' short command form (`tap 540 1200`, `type hello`)."""
    if not action:
        return "(no action)"
    from guilens.actions import ActionError, action_from_dict, to_command

    try:
        return to_command(action_from_dict(action))
    except ActionError:
        return json.dumps(action, ensure_ascii=False)


@dataclass
class Evidence:
    reader: EpisodeReader
    task: Task | None = None
    scenario: Scenario | None = None
    values: dict[str, str] = field(default_factory=dict)
    """Template values for the task (slots answered, values from earlier tasks of a sequence)."""
    task_origin: str = ""
    """Where the task definition came from (the run's copy, the built-in pack, ...)."""
    _states: dict[str, dict[str, Any] | None] = field(default_factory=dict, repr=False)

    @property
    def episode(self) -> Any:
        return self.reader.episode

    @cached_property
    def steps(self) -> list[Step]:
        return self.reader.steps

    @property
    def n(self) -> int:
        return len(self.steps)

    @cached_property
    def has_final_screen(self) -> bool:
        fs = self.episode.final_screen
        return bool(fs) and (self.reader.dir / fs).is_file()

    @property
    def last_screen(self) -> int:
        """The number of the last screen on disk: the final screen if recorded, else the last step's."""
        return self.n if self.has_final_screen else self.n - 1

    def label(self, i: int) -> str:
        return "Final" if i == self.n else f"Step {i}"

    def screen(self, i: int) -> Image.Image | None:
        if i < 0 or i > self.n:
            return None
        return self.reader.screen(i)

    def last_screens(self, k: int = 3) -> list[int]:
        """The last `k` screens, final one included (MemGUI-Eval's triage composite)."""
        top = self.last_screen
        return [i for i in range(max(0, top - k + 1), top + 1) if self.screen_exists(i)]

    # -- app state ---------------------------------------------------------------------------

    @cached_property
    def has_step_states(self) -> bool:
        """The runner recorded the app state behind the screens (`state/NNNN.json`, newer sim episodes)."""
        return any(s.state for s in self.steps)

    def state(self, i: int) -> dict[str, Any] | None:
        """The app state behind screen i: step i's `state` file, or `final_state.json` for the final
        screen; None where none was recorded (a real phone, no check needed it, an older episode)."""
        if i == self.n:
            return self.reader.final_state()
        if not 0 <= i < self.n:
            return None
        rel = self.steps[i].state
        if rel is None:
            return None
        return self._state_file(rel)

    def _state_file(self, rel: str) -> dict[str, Any] | None:
        cache = self._states
        if rel not in cache:  # steps that left the phone alone share one file
            path = self.reader.dir / rel
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):  # missing (a writer killed mid-step) or damaged: not recorded
                data = None
            cache[rel] = data if isinstance(data, dict) else None
        return cache[rel]

    def screen_exists(self, i: int) -> bool:
        if i == self.n:
            return self.has_final_screen
        if 0 <= i < self.n:
            rel = self.steps[i].screen
            return rel is not None and (self.reader.dir / rel).is_file()
        return False

    # -- text ---------------------------------------------------------------------------------

    @cached_property
    def task_text(self) -> str:
        """The task as the judge is told it: the precise (L0) intent, whatever level the agent got.

        An L1/L2 instruction leaves out what the user supplies when asked; success
        is still measured against the full intent, so the judge reads L0 with the
        slots filled, plus what the task file says success and the answer mean.
        """
        ep = self.episode
        if self.task is None:
            return ep.instruction or ep.task
        from guilens.scenarios.model import fill_text

        values = {**self.task.user.values, **self.values}
        text = self.task.instruction_at("L0", values)
        extra = []
        if self.task.success.judge:
            extra.append(f"Success means: {fill_text(self.task.success.judge, values)}")
        if self.task.answer is not None:
            want = fill_text(self.task.answer.judge, values) if self.task.answer.judge else ""
            extra.append("The task must end with a direct answer" + (f": {want}" if want else "."))
        return "\n".join([text, *extra])

    def action_line(self, i: int) -> str:
        s = self.steps[i]
        line = f"Step {i}: {action_command(s.action)}"
        if s.ask is not None:
            line += f" -> the user answered: {s.ask.answer!r}" if s.ask.answer else " -> no answer"
        if s.error:
            line += f" [rejected: {s.error}]"
        if s.by == "human":
            line += " [performed by a person]"
        return line

    def action_log(self, first: int = 0, last: int | None = None) -> str:
        last = self.n - 1 if last is None else min(last, self.n - 1)
        lines = [self.action_line(i) for i in range(first, last + 1)]
        if last == self.n - 1 and self.episode.final_answer:
            lines.append(f"Final answer: {self.episode.final_answer!r}")
        return "\n".join(lines) if lines else "(no actions)"

    @cached_property
    def is_memory_task(self) -> bool:
        return self.task is not None and self.task.memory != "none"

    def answer_before(self, i: int) -> str | None:
        """The agent's answer as given by actions before screen i (what a check at screen i may read)."""
        answer = None
        for s in self.steps[: max(0, i)]:
            if s.action and s.action.get("type") == "answer":
                answer = str(s.action.get("text", ""))
        return answer
