"""The last part of a judgement, after the stages: every milestone's state, and warnings about the task.

Kept apart from the pipeline (`guilens.judge.pipeline`), which decides what
runs; this only puts together what the stages, and the runner live, found.
"""

from __future__ import annotations

from guilens.judge.evidence import Evidence
from guilens.judge.verdict import MilestoneState


def final_milestones(ev: Evidence, judged: dict[str, MilestoneState]) -> tuple[list[MilestoneState], float | None]:
    """Every milestone of the task in order, and the progress (ATP's share; None while any is unknown).

    A milestone no stage judged takes what the runner saw live; one nobody saw stays unknown. Without
    a task definition, the live hits are all there is.
    """
    ep = ev.episode
    milestones = dict(judged)
    if ev.task is not None:
        live = {h.id: h.step for h in ep.milestones}
        for m in ev.task.all_milestones():
            s = milestones.get(m.id)
            if (s is None or s.reached is None) and m.id in live:
                milestones[m.id] = MilestoneState(id=m.id, text=m.text, reached=True, step=live[m.id],
                                                  screen=live[m.id] + 1, flexible=m.kind == "flexible", by="live")
            elif s is None:
                milestones[m.id] = MilestoneState(id=m.id, text=m.text, flexible=m.kind == "flexible")
        ordered = [milestones[m.id] for m in ev.task.all_milestones()]
    else:
        ordered = [MilestoneState(id=h.id, text=h.text, reached=True, step=h.step, screen=h.step + 1, by="live")
                   for h in ep.milestones]
    if ev.task is not None:
        # ATP's reading, over the task's checklist: an alternatives node counts once, complete by any one path
        from guilens.scenarios.milestones import checklist, sub_task_reached

        got = {s.id: s.reached for s in ordered}
        subs = [sub_task_reached(sub, lambda m: got.get(m)) for sub in checklist(ev.task)]
        progress = sum(1 for x in subs if x) / len(subs) if subs and None not in subs else None
    else:
        known = [s for s in ordered if s.reached is not None]
        progress = (sum(1 for s in ordered if s.reached) / len(ordered)) if ordered and len(known) == len(ordered) else None
    return ordered, progress


def task_warnings(ev: Evidence) -> list[str]:
    """Signs that the task definition found is not the one the episode ran (the scenario was
    edited since, and the run directory holds no copy of it)."""
    if ev.task is None:
        return [f"the task definition was not found: {ev.task_origin}"]
    ep = ev.episode
    ids = {m.id for m in ev.task.all_milestones()}
    unknown = sorted({h.id for h in ep.milestones} - ids)
    problems = []
    if ep.milestones_total and ep.milestones_total != len(ids):
        problems.append(f"it had {ep.milestones_total} milestones when the episode ran, {len(ids)} now")
    if unknown:
        problems.append(f"milestones {', '.join(unknown)} are gone")
    if not problems:
        return []
    return [f"the task definition from {ev.task_origin} has changed since the run ({'; '.join(problems)}): "
            "judged against the current one"]
