"""Anomalies as a run sees them: armed on the device, asked for from the TUI, recorded on the steps.

The step loop knows nothing of what an anomaly is. Three small hooks, all here:
- `arm_anomalies`: as an attempt starts, a run's `--anomalies RATE` goes to the device
  (`schedule_anomalies(rate, seed)`), which draws after every action by itself; the seed is the
  run's `--seed` with the task and attempt, or the task and attempt alone, so a run made again
  draws the same anomalies at the same steps;
- `apply_injections`: between steps, the anomalies a person asked for (`RunControl.inject`, the
  run screen's key) are shown on the device, before the agent looks again;
- `AnomalyNotes`: each step's `anomalies` (`guilens.episode_model.StepAnomaly`), read from the
  observations' `extra["anomalies"]` (every anomaly shown so far and how it was resolved): one
  first seen on the step's screen `appeared` there; one resolved between the step's screen and
  the screen after its action was `resolved` by that step.

A device that draws none (a real phone) has no `schedule_anomalies`: the plan refuses a rate for
it (`guilens.run.plan`), and an injection asked for it is dropped with the reason in the result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from guilens.episode_model import StepAnomaly

if TYPE_CHECKING:
    from guilens.device.base import Observation
    from guilens.run.attempt import AttemptRunner


def anomaly_seed(seed: int | None, task: str, attempt: int) -> str:
    """The draw's seed: reproducible per task and attempt, and under the run's `--seed` when given."""
    return f"{task}:{attempt}" if seed is None else f"{seed}:{task}:{attempt}"


def arm_anomalies(run: AttemptRunner) -> None:
    """Arm (or, at rate 0, disarm) the run's anomaly draw on the attempt's device."""
    schedule = getattr(run.device, "schedule_anomalies", None)
    if schedule is None:
        return
    spec = run.spec
    run._device_call(schedule, float(spec.modes.anomalies), anomaly_seed(spec.seed, spec.task.id, spec.attempt))


def apply_injections(run: AttemptRunner) -> list[str]:
    """Show the anomalies asked for on this attempt's device; what the device said for each (empty
    when none was asked for). The caller looks at the phone again when something was asked."""
    kinds = run.control.take_injections(run.label)
    if not kinds:
        return []
    inject = getattr(run.device, "inject_anomaly", None)
    if inject is None:
        return [f"no {kind} shown: {run.label} cannot draw anomalies (only the simulated phone can)" for kind in kinds]
    return [str(run._device_call(inject, kind)) for kind in kinds]


class AnomalyNotes:
    """What each step of one attempt records about anomalies."""

    def __init__(self) -> None:
        self._appeared: set[int] = set()

    def note(self, before: Observation, after: Observation) -> list[StepAnomaly]:
        """The step that saw `before` and left the phone showing `after`: what appeared, what it resolved."""
        out: list[StepAnomaly] = []
        seen = _log(before)
        for i, a in seen.items():
            if i not in self._appeared and a.get("resolved") is None:
                self._appeared.add(i)
                out.append(StepAnomaly(kind=str(a["kind"]), event="appeared", app=str(a.get("app") or ""),
                                       source=str(a.get("source") or "")))
        for i, a in _log(after).items():
            if a.get("resolved") is not None and i in seen and seen[i].get("resolved") is None:
                out.append(StepAnomaly(kind=str(a["kind"]), event="resolved", app=str(a.get("app") or ""),
                                       source=str(a.get("source") or ""), how=str(a["resolved"])))
        return out


def _log(obs: Observation) -> dict[int, dict[str, Any]]:
    extra = getattr(obs, "extra", None) or {}
    return {int(a["index"]): a for a in extra.get("anomalies") or [] if isinstance(a, dict) and "index" in a}
