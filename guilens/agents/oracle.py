"""The oracle agent: plays the task's reference solution, asking the user where the level leaves a slot out.

It drives demos and tests, and is the yardstick a real agent is compared with:
deterministic, within the golden steps, and keeping its memory the way a
Chain-of-Memory agent would, so the memory panel has something true to show.
STM is a FIFO of action results (what the previous action did, from the device's
own report); LTM holds app-tagged facts from the reference's `remember` steps,
replaced within an app and appended across apps (CoM, Algorithm 1).

When the reference cannot go on (an element it names is not on screen, because
the phone is not where the expert expected), the oracle gives up with
`finish failure` and says why in its thought, rather than tapping blindly.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any

from guilens.actions import Finish
from guilens.agents.base import AgentContext, AgentStep, StepInput
from guilens.episode import LTMEntry, Memory

if TYPE_CHECKING:
    from guilens.config import Settings
    from guilens.episode import Episode


class OracleAgent:
    name = "oracle"
    model: str | None = None

    def __init__(self, settings: Settings | None = None, *, stm_size: int | None = None) -> None:
        self.stm_size = stm_size or (settings.stm_size if settings is not None else 4)
        self.context: AgentContext | None = None
        self.player: Any = None
        self.stm: deque[str] = deque(maxlen=self.stm_size)
        self.ltm: list[LTMEntry] = []
        self._last = ""
        self.gave_up: str | None = None

    def reset(self, context: AgentContext) -> None:
        from guilens.scenarios.reference import ReferencePlayer

        self.context = context
        task = context.task
        values = dict(context.values)
        self.player = ReferencePlayer(task, context.level, values)
        self.stm = deque(maxlen=self.stm_size)
        self.ltm = [e.model_copy() for e in context.ltm]
        self._last = ""
        self.gave_up = None

    def _memory(self) -> Memory:
        lessons = list(self.context.lessons) if self.context is not None else []
        return Memory(stm=list(self.stm), ltm=[e.model_copy() for e in self.ltm], lessons=lessons)

    def _remember(self, app: str, content: str, step: int) -> None:
        entry = LTMEntry(app=app, content=content, step=step)
        if self.ltm and self.ltm[-1].app == app:
            self.ltm[-1] = entry
        else:
            self.ltm.append(entry)

    def step(self, inp: StepInput) -> AgentStep:
        from guilens.scenarios.reference import ReferenceError

        assert self.player is not None, "reset() first"
        result = ""
        if inp.index > 0 and self._last:
            if inp.last_error:
                result = f"{self._last}: rejected ({inp.last_error})"
            elif inp.user_answer is not None:
                result = f"{self._last}: the user said {inp.user_answer!r}"
                self.player.answered(inp.user_answer)
            else:
                result = f"{self._last}: {inp.last_result or 'done'}"
            self.stm.append(result)
        try:
            ra = self.player.next_step(inp.observation)
        except ReferenceError as err:
            self.gave_up = str(err)
            self._last = "finish failure"
            return AgentStep(
                action=Finish(status="failure"),
                thought=f"The screen is not what the reference expects, so I stop: {err}",
                description="give up: the reference cannot go on from this screen",
                action_result=result,
                memory=self._memory(),
            )
        if ra is None:
            self._last = "finish"
            return AgentStep(action=Finish(status="success"), thought="The reference is played out.",
                             description="finish", action_result=result, memory=self._memory())
        for spec in ra.remember:
            self._remember(spec.app, spec.content, inp.index)
        self._last = ra.description
        return AgentStep(
            action=ra.action,
            thought=ra.thought or ra.description,
            description=ra.description,
            action_result=result,
            memory=self._memory(),
        )

    def lessons(self, episode: Episode, steps: list[Any]) -> list[str]:
        """What went wrong, for the next attempt's record (the oracle itself plays the same way)."""
        if self.gave_up:
            return [f"attempt {episode.attempt}: the reference could not go on: {self.gave_up}"]
        if episode.status == "timeout":
            return [f"attempt {episode.attempt}: ran out of steps ({episode.budget}); stay on the reference path"]
        return []
