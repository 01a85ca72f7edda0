"""Stage 1: the task's own rule checks, replayed over what the episode recorded.

The checks are the scenario's (`guilens.scenarios.checks`), the same ones the
runner evaluates live; this stage only rebuilds their inputs from the
attempt directory: the UI tree of every screen, the foreground app of every
step, the app state behind each screen (sim episodes: `state/NNNN.json`, named
by the step line, and `final_state.json` for the final screen) and the answer
the agent had given by each point. Screen i's context is the moment after i
actions, so a milestone first seen on screen i took i agent steps.

The runner records the state of exactly the screens its live checks read it
of, so the replay reaches every milestone at the step the run did, and MSR is
exact. An older episode has the final state only: there a state milestone is
reached, if at all, on the final screen, and its live step (`episode.json`'s
milestones) says when it really was. What the rules cannot decide (a state
check on a real phone, a milestone with no check, an answer left to the
judge) comes back undecided, never guessed.

An attempt that ran out of its step budget is a failure whatever its last
screen shows (MemGUI-Bench's execution timeout): an agent that wanders onto
the right page while flailing has not done the task. An attempt that never
ended (killed mid-run, or still running) is the opposite case: what the agent
had not yet done is not a failure, so the rules leave it undecided, as the
report does (`guilens.judge.report`), and only a person's judgement decides it.

A task of a day blocked by a failed prerequisite never ran (0 steps, status
`blocked`): ScenDroid counts it as failed, so the rules decide it a failure
and say which task blocked it, with that task's outcome.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any

from guilens.device.uitree import UINode, UITreeError, parse_ui_xml
from guilens.judge.evidence import Evidence
from guilens.judge.verdict import MilestoneState, StageResult, StageStatus

if TYPE_CHECKING:
    from guilens.scenarios.model import Task


def foreground(ui: UINode | None) -> str | None:
    """The app of a screen with no step record (the final one): the package of its first node."""
    if ui is None:
        return None
    for node in ui.iter():
        if node.package:
            return node.package
    return None


def _reads_state(task: Task) -> bool:
    """Whether any milestone check reads the app state (else the per-step files are not opened)."""
    from guilens.scenarios.spec_checks import StateCheck, iter_checks

    return any(isinstance(c, StateCheck) for m in task.all_milestones()
               if m.check is not None for c in iter_checks(m.check))


UNFINISHED = ("interrupted", "running")
"""Attempts that never ended: killed (the reader says `interrupted`) or still going."""


def rules_stage(ev: Evidence) -> tuple[StageResult, list[MilestoneState]]:
    if ev.episode.status == "blocked":
        return blocked_stage(ev)
    result, states = _replay(ev)
    if ev.episode.status in UNFINISHED:
        return _unfinished(ev, result), states
    if ev.episode.status != "timeout" or result.decision == "failure":
        return result, states
    budget = f" of {ev.episode.budget} steps" if ev.episode.budget else ""
    said = f" (the rules alone would say: {result.reason})" if result.status != "skipped" else ""
    timed_out = result.model_copy(update={
        "status": "decided", "decision": "failure", "raw": False,
        "reason": f"the step budget{budget} ran out before the agent finished: an execution timeout is a "
                  f"failure{said}",
        "details": {**result.details, "timeout": True, "rules_ok": result.raw},
    })
    return timed_out, states


_PREREQUISITE = re.compile(r"([A-Za-z0-9][A-Za-z0-9_.-]*) \(([^)]*)\)")
"""One prerequisite in a blocked episode's error: `shop-list (failure)` (`guilens.run.sequence`)."""


def blocked_stage(ev: Evidence) -> tuple[StageResult, list[MilestoneState]]:
    """A task of a day whose prerequisite failed never ran: ScenDroid records it unsuccessful (and
    marks it blocked), so the rules decide it a failure naming what blocked it, every milestone unreached."""
    error = ev.episode.error or ""
    found = _PREREQUISITE.findall(error.partition(":")[2] if error.startswith("prerequisite failed") else "")
    if not found and ev.task is not None:
        found = [(d, "not successful") for d in ev.task.depends_on]
    by = ", ".join(f"{tid} ({outcome})" for tid, outcome in found) or "a prerequisite (not recorded which)"
    states = [MilestoneState(id=m.id, text=m.text, reached=False, flexible=m.kind == "flexible", by="rules")
              for m in (ev.task.all_milestones() if ev.task is not None else [])]
    result = StageResult(stage="rules", status="decided", decision="failure", raw=False,
                         reason=f"failed: blocked by {by}",
                         details={"blocked": True, "blocked_by": [{"task": t, "outcome": o} for t, o in found],
                                  "milestones": [{"id": s.id, "reached": False, "step": None, "screen": None,
                                                  "check": "the task never ran"} for s in states]})
    return result, states


def _unfinished(ev: Evidence, result: StageResult) -> StageResult:
    """An attempt that never ended is not the agent's failure (nor its success): the rules leave it
    undecided, saying what they would have said, and the milestones it reached still count."""
    n = ev.n
    what = "was interrupted" if ev.episode.status == "interrupted" else "is still running"
    said = f"; the rules alone would say: {result.reason}" if result.status == "decided" else ""
    return result.model_copy(update={
        "status": "undecided", "decision": None,
        "reason": f"the attempt {what} after {n} step{'s' if n != 1 else ''}, before the agent finished: "
                  f"left undecided, not made a failure{said}",
        "details": {**result.details, "unfinished": ev.episode.status, "rules_ok": result.raw},
    })


def _replay(ev: Evidence) -> tuple[StageResult, list[MilestoneState]]:
    started = time.perf_counter()
    from guilens.scenarios.checks import CheckContext, run_checks

    def done(status: StageStatus, reason: str, **kw: Any) -> StageResult:
        return StageResult(stage="rules", status=status, reason=reason,
                           duration_s=round(time.perf_counter() - started, 4), **kw)

    if ev.task is None:
        return done("skipped", f"the task definition of {ev.episode.scenario}:{ev.episode.task} is not available"), []
    reads_state = _reads_state(ev.task)
    state = ev.state(ev.n)
    contexts = []
    seen: list[int] = []
    bad_trees: list[int] = []
    for i in range(ev.n + 1):
        xml = ev.reader.ui_xml(i)
        ui = None
        if xml:
            try:
                ui = parse_ui_xml(xml)
            except UITreeError:
                bad_trees.append(i)
        app = (ev.steps[i].app or None) if i < ev.n else foreground(ui)
        answer = ev.answer_before(i)
        if i == ev.n and ev.episode.final_answer:
            answer = ev.episode.final_answer
        here = state if i == ev.n else ev.state(i) if reads_state else None
        ctx = CheckContext(ui=ui, app=app, state=here, answer=answer)
        if ui is not None or ctx.state is not None:
            seen.append(i)
        contexts.append(ctx)
    if not seen and ev.episode.final_answer is None and ev.task.answer is None:
        return done("skipped", "no UI trees, device state or answer were recorded: nothing for the rules to read"), []

    tracker, result = run_checks(ev.task, contexts, ev.values)
    undecided = {m.id for m in tracker.undecided()}
    # An older episode has the app state at the end only, so a state milestone shows up on the final
    # screen. The runner checked the state after every action: where both saw a milestone reached,
    # its live step says when (an earlier screen), and the replay only confirms that it was. With the
    # state of every screen recorded, the replay itself is exact.
    live = {} if ev.has_step_states else {h.id: h.step + 1 for h in ev.episode.milestones}
    states = []
    for m in tracker.milestones:
        reached_at = tracker.reached.get(m.id)
        if reached_at is not None and m.id in live and live[m.id] < reached_at:
            reached_at = live[m.id]
        reached = True if reached_at is not None else (None if m.id in undecided else False)
        states.append(MilestoneState(id=m.id, text=m.text, reached=reached, screen=reached_at,
                                     step=None if reached_at is None else max(0, reached_at - 1),
                                     flexible=m.kind == "flexible", by="rules" if reached is not None else None))
    details: dict[str, object] = {
        "milestones": [
            {"id": s.id, "reached": s.reached, "step": s.step, "screen": s.screen,
             "check": (tracker.last[s.id].reason if s.id in tracker.last else "")}
            for s in states
        ],
        **({"alternatives": {a.id: tracker.chosen.get(a.id) for a in ev.task.alternatives()}}
           if ev.task.alternatives() else {}),
        "screens_with_ui": sum(1 for c in contexts if c.ui is not None),
        "screens_with_state": sum(1 for c in contexts if c.state is not None),
        "final_state": state is not None,
        "answer": contexts[-1].answer,
    }
    if bad_trees:
        details["unreadable_ui"] = bad_trees
    if result.ok is None:
        where = "" if state is not None else " (no device state was recorded: a real-device episode?)"
        return done("undecided", f"the rules cannot decide{where}: {result.reason}", steps=seen,
                    details=details), states
    return done("decided", result.reason, decision="success" if result.ok else "failure", raw=result.ok,
                steps=seen, details=details), states
