"""Stage 2: AndroidLens' milestone judge, segment by segment.

The trajectory is cut into segments of `segment` actions (10 by default). An
ordered milestone is sent alone, an unordered group together, with one
segment's screens; the model answers a strict JSON list `[{idx, state,
last_idx}]`. A completed milestone moves the cursor to its `last_idx`, and the
next milestone is looked for from there; an incomplete one moves to the next
segment, which starts on the current segment's last screen (the paper's
one-step overlap).

Choices the paper leaves open, made here:
- Screens are numbered as recorded: screen i is the state after i actions, and
  a segment of actions a..b shows screens a..b+1, so the effect of its last
  action is visible. `last_idx` names the screen the milestone shows complete on.
- The next milestone starts *on* the previous one's `last_idx` screen (not
  after it): one action can complete two milestones (a Save that creates a
  note and fills its body), and the screen shows both.
- Members of an unordered group that are not complete in a segment are
  carried to the next one with the rest of the group; the cursor moves to the
  largest `last_idx` among the members completed in it.
- An ordered milestone never completed ends the judging: the milestones after
  it are ordered after it and count as not reached, without further calls.
- Milestones the rules stage already decided are taken as decided and not sent.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from guilens.judge.calls import JudgeModel, Malformed, Tally, ask_json, need_dict, need_int
from guilens.judge.evidence import Evidence
from guilens.judge.images import MAX_SIDE
from guilens.judge.prompts import load_prompt
from guilens.judge.verdict import Decision, MilestoneState, StageResult

SEGMENT = 10


@dataclass
class _Outcome:
    idx: int
    state: int
    last_idx: int


def _parser(count: int, first: int, last: int) -> Any:
    def parse(data: Any) -> list[_Outcome]:
        if isinstance(data, dict):  # a lone object for a lone milestone
            data = [data]
        if not isinstance(data, list):
            raise Malformed("expected a JSON list of {idx, state, last_idx}")
        out: dict[int, _Outcome] = {}
        for item in data:
            d = need_dict(item)
            idx = need_int(d, "idx", lo=0, hi=count - 1)
            state = need_int(d, "state", allowed=(0, 1))
            last_idx = need_int(d, "last_idx") if "last_idx" in d else -1
            if state == 1 and not first <= last_idx <= last:
                raise Malformed(f"milestone {idx} is complete but its last_idx {last_idx} is not a step shown "
                                f"({first} to {last})")
            out[idx] = _Outcome(idx, state, last_idx if state == 1 else -1)
        missing = [i for i in range(count) if i not in out]
        if missing:
            raise Malformed(f"no entry for idx {', '.join(map(str, missing))}")
        return [out[i] for i in range(count)]

    return parse


def milestone_stage(ev: Evidence, client: JudgeModel, known: dict[str, MilestoneState], *,
                    segment: int = SEGMENT, max_side: int = MAX_SIDE, retries: int = 2) -> tuple[StageResult,
                                                                                                list[MilestoneState]]:
    from guilens.llm import image_block
    from guilens.scenarios.model import MilestoneAlternatives, MilestoneGroup, fill_text

    started = time.perf_counter()
    prompt = load_prompt("milestone")
    tally = Tally()
    assert ev.task is not None
    values = {**ev.task.user.values, **ev.values}
    # An alternatives node is asked as one unordered group of all its paths' milestones; it blocks
    # what follows only when no path is complete.
    items = [(list(it.unordered), True, None) if isinstance(it, MilestoneGroup)
             else ([m for p in it.any_of for m in p.milestones], True, it) if isinstance(it, MilestoneAlternatives)
             else ([it], False, None)
             for it in ev.task.milestones]
    states: dict[str, MilestoneState] = {}
    looked: set[int] = set()
    segments: list[dict[str, Any]] = []
    last_screen = ev.last_screen
    cursor = 0
    blocked_by: str | None = None
    malformed = False

    for group, unordered, alt in items:
        pending = []
        for m in group:
            k = known.get(m.id)
            if blocked_by is not None:
                states[m.id] = MilestoneState(id=m.id, text=m.text, reached=False, flexible=m.kind == "flexible",
                                              by="milestones")
            elif k is not None and k.reached is not None:
                states[m.id] = k
                if k.reached and k.screen is not None:
                    cursor = max(cursor, k.screen)
            else:
                pending.append(m)
        if blocked_by is not None:
            continue
        reached_steps: list[int] = []
        while pending and last_screen >= 0:
            first = min(cursor, last_screen)
            last = min(first + segment, last_screen)
            batch = pending if unordered else pending[:1]
            listing = [{"idx": j, "sub-target": fill_text(m.text, values),
                        **({"text": m.key.text} if m.key and m.key.text else {}),
                        **({"state": list(m.key.state)} if m.key and m.key.state else {})}
                       for j, m in enumerate(batch)]
            content: list[dict[str, Any]] = [{"type": "text", "text": prompt.user(
                task=ev.task_text, milestones=json.dumps(listing, indent=1, ensure_ascii=False),
                first=first, last=last,
                final_note=' ("Final" is screen ' + str(ev.n) + ", after the last action)" if last == ev.n else "",
                actions=ev.action_log(first, min(last, ev.n) - 1) if last > first else "(none in this segment)",
            )}]
            for i in range(first, last + 1):
                img = ev.screen(i)
                if img is None:
                    continue
                looked.add(i)
                content.append({"type": "text", "text": f"{ev.label(i)} (step {i}):"})
                content.append(image_block(img, max_side))
            outcomes = ask_json(client, system=prompt.system(), content=content, parse=_parser(len(batch), first, last),
                                tally=tally, shape="a JSON list of {\"idx\", \"state\", \"last_idx\"} objects",
                                max_tokens=400 + 60 * len(batch), retries=retries, label=f"segment {first}-{last}")
            segments.append({"first": first, "last": last, "milestones": [m.id for m in batch],
                             "result": None if outcomes is None else [o.__dict__ for o in outcomes]})
            if outcomes is None:
                malformed = True
                break
            completed = [(m, o) for m, o in zip(batch, outcomes, strict=True) if o.state == 1]
            for m, o in completed:
                states[m.id] = MilestoneState(id=m.id, text=m.text, reached=True, screen=o.last_idx,
                                              step=max(0, o.last_idx - 1), flexible=m.kind == "flexible",
                                              by="milestones")
                reached_steps.append(o.last_idx)
            pending = [m for m in pending if m.id not in states]
            if completed and not unordered:
                cursor = completed[0][1].last_idx
                break
            if completed:
                cursor = max(o.last_idx for _, o in completed)
                continue
            if last >= last_screen:
                break
            cursor = last
        if malformed:
            break
        for m in pending:
            states[m.id] = MilestoneState(id=m.id, text=m.text, reached=False, flexible=m.kind == "flexible",
                                          by="milestones")
        # Everything after an item with a member never reached is ordered after it: not reached either.
        missed = [m.id for m in group if states.get(m.id) is not None and states[m.id].reached is False]
        if alt is not None:
            missed = [] if any(all(states.get(m.id) is not None and states[m.id].reached for m in p.milestones)
                               for p in alt.any_of) else [alt.id]
        if missed:
            blocked_by = missed[0]

    ordered_states = []
    for m in ev.task.all_milestones():
        ordered_states.append(states.get(m.id) or MilestoneState(id=m.id, text=m.text, reached=None,
                                                                 flexible=m.kind == "flexible"))
    details: dict[str, Any] = {
        "segment": segment,
        "segments": segments,
        "milestones": [{"id": s.id, "reached": s.reached, "step": s.step, "screen": s.screen, "by": s.by}
                       for s in ordered_states],
    }
    if tally.repairs:
        details["repairs"] = tally.repairs
    common: dict[str, Any] = dict(stage="milestones", steps=sorted(looked), usage=tally.usage, calls=tally.calls,
                                  cached_calls=tally.cached, model=client.model, prompt=prompt.ref,
                                  duration_s=round(time.perf_counter() - started, 3), details=details)
    reached = sum(1 for s in ordered_states if s.reached)
    total = len(ordered_states)
    if malformed:
        return StageResult(status="undecided", reason="the judge's milestone output stayed malformed after "
                           f"{retries} repairs; {reached} of {total} milestones judged reached before that",
                           **common), ordered_states
    decision = _decision(ev, ordered_states)
    reason = f"{reached} of {total} milestones reached" + (
        "" if blocked_by is None else f"; stopped at {blocked_by!r}, never completed")
    if decision is None:
        return StageResult(status="done", reason=reason + " (the task's success needs more than milestones)",
                           **common), ordered_states
    return StageResult(status="decided", decision=decision, raw=[s.reached for s in ordered_states], reason=reason,
                       **common), ordered_states


def _decision(ev: Evidence, states: list[MilestoneState]) -> Decision | None:
    """AndroidLens: a task succeeds when all its milestones are complete. When the task's success
    rule asks for more than milestones (a final check, an answer), milestones alone can only fail it."""
    assert ev.task is not None
    from guilens.scenarios.milestones import checklist, sub_task_reached

    rule = ev.task.success
    by_id = {s.id: s.reached for s in states}
    subs = {sub.id: sub_task_reached(sub, lambda m: by_id.get(m)) for sub in checklist(ev.task)}
    wanted = (list(subs) if rule.milestones == "all" else [] if rule.milestones == "none"
              else list(rule.milestones))
    got = {**by_id, **subs}
    if any(got[m] is False for m in wanted if m in got):
        return "failure"
    more = rule.check is not None or ev.task.answer is not None or not wanted
    if more or any(got[m] is None for m in wanted if m in got):
        return None
    return "success"
