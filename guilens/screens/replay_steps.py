"""What the replay shows of each step, computed once when it opens: the list's rows, the milestones
reached by each step, the steps the judge looked at; the episode's summary and the task it ran.

Pure functions of the recorded episode (no widgets), so a jump costs a lookup, not a pass over
the steps before it, and the cost stays flat with the episode's length.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textual.content import Content

from guilens.describe import step_number, time_text
from guilens.episode import EpisodeReader, MilestoneHit, Step
from guilens.screens.widgets.render import STATUS_STYLE, action_text, short


def looked_at(verdict: dict[str, Any] | None, total: int | None = None) -> dict[int, list[str]]:
    """Step -> the judge stages that looked at it (a stage that read every step marks none)."""
    out: dict[int, list[str]] = {}
    for stage in (verdict or {}).get("stages", []) or []:
        steps = stage.get("steps", []) or []
        if total is not None and len(set(steps)) >= total:
            continue
        for n in steps:
            out.setdefault(int(n), []).append(stage.get("stage", "?"))
    return out


def task_of(reader: EpisodeReader) -> Any:
    """The task definition the episode ran, if guilens can still find it."""
    try:
        from guilens.judge.pipeline import resolve_task

        return resolve_task(reader)[1]
    except Exception:  # an unknown or changed scenario only costs the pending milestone rows
        return None


def step_row(step: Step, looked: dict[int, list[str]]) -> Content:
    """A step's line in the replay's list: number, who acted (H: a person), action, marks
    (★ a milestone, ✗ an error, ⚠ an anomaly appeared or was cleared, ◆ the judge looked at it)."""
    flags = ""
    if step.milestones:
        flags += " ★"
    if step.error:
        flags += " ✗"
    if step.anomalies:
        flags += " ⚠"
    if step.index in looked:
        flags += " ◆"
    # Assembled from its parts: parsing markup cost 0.2-0.3 ms a row, 10-17 ms for the rows of a
    # replay's first paint, which waits for them; assembling costs a hundredth of that.
    who: tuple[tuple[str, str] | str, ...] = (("H", "$warning"), " ") if step.by == "human" else ()
    return Content.assemble((f"{step_number(step.index):>3}", "$text-muted"), " ", *who,
                            short(action_text(step.action), 24), *([(flags, "$accent")] if flags else []))


def reached_by_step(hits: Sequence[MilestoneHit], steps: Sequence[Step]) -> list[dict[str, int]]:
    """For each step, the milestones reached by then (id -> step): the episode's record of them,
    and what each step line says it reached."""
    ordered = sorted(hits, key=lambda h: h.step)
    out: list[dict[str, int]] = []
    reached: dict[str, int] = {}
    k = 0
    for s in steps:
        while k < len(ordered) and ordered[k].step <= s.index:
            reached[ordered[k].id] = ordered[k].step
            k += 1
        for mid in s.milestones:
            reached.setdefault(mid, s.index)
        out.append(dict(reached))
    return out


def summary(reader: EpisodeReader) -> Content:
    """The episode in two lines: what ran, how it ended, level, attempt, agent, device, steps, time,
    cost; then the instruction."""
    ep = reader.episode
    what = f"{ep.scenario}:{ep.task}" if ep.scenario else ep.task
    style = STATUS_STYLE.get(ep.status, "$text")
    bits = [ep.level, f"attempt {ep.attempt}/{ep.attempts}", ep.agent or "agent", ep.device or "",
            f"{len(reader.steps)} steps"]
    if ep.timings.duration_s is not None:
        bits.append(time_text(ep.timings))
    if ep.cost_usd:
        bits.append(f"${ep.cost_usd:.4f}")
    if reader.interrupted:
        bits.append("the writer stopped early")
    return Content.from_markup(f" [b]$what[/] · [b {style}]$status[/] · $bits\n [i]$instr[/]", what=what,
                               status=ep.status, bits=" · ".join(b for b in bits if b),
                               instr=short(ep.instruction, 300))
