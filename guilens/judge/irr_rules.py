"""IRR by rules: MemGUI-Bench's information retention of a failed memory task, counted without a model.

The IRR analyzer (`guilens.judge.irr`) asks a model to count the information
units a task needs and those the agent used right. On the simulated phone the
count needs no model: a task's items (`guilens.scenarios.information`) say
what the answer or the end state must hold, and the final app state, screen
and answer show which of them are there. The analyzer's rules apply as they
are: an explicit output (a note, a message) gets proportional credit, used /
total; an implicit one (facts used for one decision) gets 0 unless every item
is right, then 100; an early failure finds nothing and gets 0. A task blocked
by a failed prerequisite never ran: 0, method `blocked`.

Where the rules cannot read an item (a real phone has no app state, the task
names no items) they say nothing (`None`) and the pipeline asks the analyzer,
as it does for the outcome: cheap and certain first. Stages named on purpose
(`--stages scrutiny,irr`) ask the analyzer even where the rules can count, as
they run the LLM judge where the rules decided, and keep the rules' count
beside its answer (`by_rules`), so the two can be compared.
"""

from __future__ import annotations

import time
from typing import Any

from guilens.judge.evidence import Evidence
from guilens.judge.rules import foreground as _foreground
from guilens.judge.verdict import StageResult


def irr_blocked(ev: Evidence) -> StageResult | None:
    """IRR 0 for a task that never ran because a prerequisite failed (an early failure); None otherwise."""
    if ev.episode.status != "blocked":
        return None
    why = ev.episode.error or "a prerequisite failed"
    return StageResult(stage="irr", status="done", raw=0,
                       reason=f"IRR 0%: the task was blocked and never ran ({why}), an early failure (rule 4)",
                       details={"method": "blocked", "irr_percentage": 0, "correctly_used_units": 0})


def irr_by_rules(ev: Evidence) -> StageResult | None:
    """The IRR of a failed memory task from its information items, or None when the rules cannot tell."""
    from guilens.scenarios.checks import CheckContext
    from guilens.scenarios.information import find_items, information_items

    blocked = irr_blocked(ev)
    if blocked is not None or ev.task is None:
        return blocked
    started = time.perf_counter()
    env = {**ev.task.user.values, **ev.values}
    task = ev.task.filled(env) if env else ev.task
    items, origin = information_items(task)
    if not items:
        return None
    ui = _final_ui(ev)
    ctx = CheckContext(ui=ui, app=_foreground(ui), state=ev.state(ev.n), answer=_final_answer(ev))
    findings = find_items(items, ctx)
    if any(f.found is None for f in findings):
        return None
    total, used = len(findings), sum(1 for f in findings if f.found)
    implicit = task.output == "implicit"
    pct = score(implicit=implicit, used=used, total=total)
    units = f"{used} of {total} unit{'s' if total != 1 else ''}"
    if implicit:
        how = ("every unit is right: the decision is right" if pct else
               f"{units} right: a wrong implicit decision gets 0 (rule 3)")
    else:
        how = f"{units} in the output (rule 2: proportional credit)"
    missing = [f.text for f in findings if not f.found]
    reason = f"IRR {pct:g}% by rules: {how}" + (f"; missing: {'; '.join(missing)}" if missing else "")
    details: dict[str, Any] = {
        "method": "rules",
        "output": "implicit" if implicit else "explicit",
        "total_information_units": total,
        "correctly_used_units": used,
        "irr_percentage": pct,
        "items_from": origin,
        "items": [f.to_json() for f in findings],
    }
    return StageResult(stage="irr", status="done", raw=pct, reason=reason, details=details,
                       steps=[ev.n], duration_s=round(time.perf_counter() - started, 4))


def rules_count(result: StageResult) -> dict[str, Any]:
    """The rules' count in short, kept beside the analyzer's when both ran (to compare them)."""
    return {k: result.details.get(k) for k in ("correctly_used_units", "total_information_units", "irr_percentage")}


def score(*, implicit: bool, used: int, total: int) -> float:
    """The IRR analyzer's rules 2 and 3 as a percentage (one decimal): an explicit output gets
    used / total; an implicit one 100 when every unit is right (the decision is), else 0."""
    if total <= 0:
        return 0.0
    if implicit:
        return 100.0 if used == total else 0.0
    return round(100 * used / total, 1)


def _final_ui(ev: Evidence) -> Any:
    """The UI tree of the last screen recorded (the final one, else the last step's)."""
    from guilens.device.uitree import UITreeError, parse_ui_xml

    for i in (ev.n, ev.n - 1):
        if i < 0:
            continue
        xml = ev.reader.ui_xml(i)
        if xml:
            try:
                return parse_ui_xml(xml)
            except UITreeError:
                return None
    return None


def _final_answer(ev: Evidence) -> str | None:
    return ev.episode.final_answer or ev.answer_before(ev.n)
