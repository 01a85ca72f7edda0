"""The runner's public face: plan a run, run it, steer it, hear about it.

    from guilens.runner import plan_run, Runner
    plan = plan_run("demo", agent="oracle", devices=["sim"], user="oracle", level="L2", out="runs")
    result = Runner(plan, observers=[HeadlessObserver()], control=RunControl(), channel=QuestionChannel()).run()

`plan_run` checks every argument (a `PlanError` or `MissingAPIKey` names what is
wrong) and is what the CLI and the TUI both call. `Runner.run()` blocks: run it
on a worker thread and steer it with the `RunControl`; questions for a person
come through the `QuestionChannel`; progress comes through the observers
(`guilens.control.RunObserver`, plus the optional `on_run_started(run_dir, total)`
and `on_task_finished(task, status)`). The pieces live in `guilens/run/`:
`plan.py` (arguments), `engine.py` (tasks, devices, pass@k, sequences),
`attempt.py` (the step loop), `resolve.py` (element targets), `store.py`
(run.json and `ltm/`).
"""

from __future__ import annotations

from guilens.control import Cancelled, ObserverList, QuestionChannel, RunControl, RunObserver
from guilens.run.attempt import AttemptRunner
from guilens.run.engine import Runner, RunResult, TaskResult
from guilens.run.plan import PlanError, RunPlan, plan_run
from guilens.run.resolve import parse_person_action, resolve_action
from guilens.run.types import AttemptOutcome, AttemptSpec

__all__ = [
    "AttemptOutcome",
    "AttemptRunner",
    "AttemptSpec",
    "Cancelled",
    "ObserverList",
    "PlanError",
    "QuestionChannel",
    "RunControl",
    "RunObserver",
    "RunPlan",
    "RunResult",
    "Runner",
    "TaskResult",
    "parse_person_action",
    "plan_run",
    "resolve_action",
]
