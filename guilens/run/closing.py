"""The end of an attempt: the final state, the success rules, lessons for the next attempt, the
last write of the record (a write that fails is the attempt's `fault`, which stops the run).

Kept apart from the step loop (`guilens.run.attempt`) because none of it runs
per step: it reads what the loop left (`AttemptRunner`'s episode, recorder,
tracker, answer, timings) once, after the last step or an abort.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from guilens.agents.base import lessons_of
from guilens.episode import Usage
from guilens.run.types import AttemptOutcome
from guilens.scenarios.checks import CheckContext, success
from guilens.storage import StorageError

if TYPE_CHECKING:
    from guilens.device.base import Observation
    from guilens.run.attempt import AttemptRunner


def close_attempt(run: AttemptRunner, status: str, error: str | None, obs: Observation | None) -> AttemptOutcome:
    """Decide the attempt's status by the task's rules, draw lessons if another attempt follows,
    and write the final screen, UI tree, state and `episode.json`. `obs` is the final screen."""
    ep, rec, spec = run.episode, run.recorder, run.spec
    assert rec is not None
    final_state: dict[str, Any] | None = None
    if obs is not None:
        try:  # what the last check read of this very screen, else asked now (unless it has none)
            final_state = run.states.cached(obs) or (run.device.state() if run.states.available else None)
        except Exception:
            final_state = None
    run.states.close()  # its writes are the recorder's (`Recorder.later`): their error is read after `finish`
    if status in ("success", "failure", "timeout") and obs is not None:
        ctx = CheckContext.from_observation(obs, state=final_state, answer=run.answer)
        verdict = success(spec.task, run.tracker, ctx)
        if status == "success":
            if verdict.ok is False:
                status = "failure"
            ep.decided_by = "rules" if verdict.ok is not None else "agent"
        ep.outcome_reason = verdict.reason
    ep.finish_status = run.finish_status  # type: ignore[assignment]
    ep.final_answer = run.answer
    ep.status = status  # type: ignore[assignment]
    lessons: list[str] = []
    extra = Usage()
    if spec.want_lessons and status not in ("success", "aborted"):
        before = getattr(run.agent, "lessons_usage", None)
        try:
            lessons = lessons_of(run.agent, ep, list(rec.steps))
            after = getattr(run.agent, "lessons_usage", None)
            if isinstance(after, Usage) and after is not before:  # what the reflection call cost
                extra = after
        except Exception as err:  # reflection is a bonus; its failure must not lose the attempt
            ep.lessons_error = f"{type(err).__name__}: {err}"
    ep.lessons_learned = lessons
    ep.timings.runner_s = round(run.loop_s, 4)
    ep.timings.record_s = round(run.record_s, 4)
    t_drain = time.perf_counter()
    for k in ("agent_s", "device_s", "user_s", "person_s"):
        setattr(ep.timings, k, round(getattr(ep.timings, k), 4))
    try:
        rec.finish(
            status,  # type: ignore[arg-type]
            final_screen=obs.screenshot if obs is not None else None,
            final_ui=obs.ui_xml if obs is not None else None,
            final_state=final_state,
            error=error,
            save=False,  # saved once, below, with the drain's time: not twice per attempt
        )
    finally:
        ep.timings.drain_s = round(time.perf_counter() - t_drain, 4)
        if run.states.error:
            ep.state_error = run.states.error
        if extra.input_tokens or extra.output_tokens or extra.cost_usd:
            ep.tokens = ep.tokens + extra
            ep.cost_usd = round(ep.tokens.cost_usd, 6)
        rec.save_episode()
    if run.fault is None and isinstance(rec.fault, StorageError):
        run.fault = rec.fault  # the final screen or state could not be written
    if run.fault is None and rec.unmarked:
        run.fault = rec.unmarked
    return AttemptOutcome(ep, list(rec.steps), run.tracker, final_state, run.answer, run.memory, lessons)
