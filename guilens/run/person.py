"""The people in an attempt: the one at the controls (take-over moves, labels that mark
milestones) and the user who answers the agent's questions.

Kept apart from the step loop (`guilens.run.attempt`) because it is a different
concern with its own timing buckets: a person's time is `person_s`, the user's
`user_s`, never the agent's. `AttemptRunner` mixes this in; the attributes below
are the loop's, named here so the type checker sees what these methods use.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

from guilens.actions import to_command
from guilens.agents.base import AgentStep
from guilens.control import ObserverList, QuestionChannel, RunControl, Withdrawn
from guilens.episode import Ask, Episode, Memory, MilestoneHit, Recorder, Step
from guilens.run.types import AttemptSpec
from guilens.scenarios.checks import MilestoneTracker
from guilens.users import UserContext

if TYPE_CHECKING:
    from guilens.device.base import Observation
    from guilens.users import SimUser


class PersonMixin:
    """Take-over, annotations and the user's answers, for `AttemptRunner`."""

    spec: AttemptSpec
    episode: Episode
    obs: ObserverList
    control: RunControl
    channel: QuestionChannel
    user: SimUser
    label: str
    tracker: MilestoneTracker
    recorder: Recorder | None
    memory: Memory
    qa: list[tuple[str, str]]
    intent: str
    instruction: str
    _lock: threading.Lock
    _pending_notes: list[str]

    def annotate(self, label: str) -> bool:
        """Attach a person's label to the last recorded step (or the first, if none is yet).

        A label that is a milestone id of the task also marks that milestone reached there.
        """
        label = label.strip()
        if not label:
            return False
        with self._lock:
            rec = self.recorder
            if rec is None or not rec.steps:
                self._pending_notes.append(label)
                return True
            step = rec.steps[-1]
            if label not in step.annotations:
                step.annotations.append(label)
            self._mark_if_milestone(label, step)
            rec.update_step(step)
        return True

    def _mark_if_milestone(self, label: str, step: Step) -> None:
        ids = {m.id for m in self.tracker.milestones}
        if label in ids and label not in self.tracker.reached:
            m = self.tracker.mark(label, step.index, by="human")
            step.milestones.append(label)
            self.episode.milestones.append(MilestoneHit(id=label, step=step.index, text=m.text, by="human"))
            self.obs.on_milestone(self.episode, label, step.index)

    def _human_action(self, obs: Observation, index: int) -> AgentStep | None:
        """The person's move while they hold the controls; None when they hand back before making one."""
        from guilens.agents.human import ask_person_for_action

        self.obs.on_state(self.episode, "human")
        t = time.perf_counter()
        try:
            action = ask_person_for_action(
                self.channel, self.control, obs,
                prompt=f"Take-over, step {index + 1} of {self.spec.budget}: your action?",
                context={"step": index, "by": "human", "task": self.spec.task.id},
                still_wanted=lambda: self.control.is_human(self.label),
            )
        except Withdrawn:
            self.obs.on_state(self.episode, "running")
            return None
        finally:
            self.episode.timings.person_s += time.perf_counter() - t
        return AgentStep(action=action, description=to_command(action), memory=self.memory.model_copy(deep=True))

    # -- the user ---------------------------------------------------------------------------------
    def _ask(self, question: str, index: int) -> Ask:
        ctx = UserContext(
            task_id=self.spec.task.id, intent=self.intent, instruction=self.instruction, level=self.spec.level,
            knowledge=self.spec.task.user, values=dict(self.spec.values), history=list(self.qa), step=index,
        )
        hint = None
        if self.user.name == "human":
            self.obs.on_state(self.episode, "waiting")
        self.obs.on_question(self.episode, question, hint)
        t = time.perf_counter()
        reply = self.user.answer(question, ctx)
        self.episode.timings.user_s += time.perf_counter() - t
        if self.user.name == "human":
            self.obs.on_state(self.episode, "running")
        self.qa.append((question, reply.text))
        self.obs.on_answer(self.episode, question, reply.text, reply.answered_by)
        ask = Ask(question=question, answer=reply.text, answered_by=reply.answered_by, suggested=reply.suggested,
                  llm_calls=list(getattr(reply, "llm_calls", None) or []))
        if reply.usage.input_tokens or reply.usage.output_tokens:
            ask.usage = reply.usage  # the simulator's cost, not the agent's
        return ask
