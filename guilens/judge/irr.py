"""Stage 4: MemGUI-Eval's IRR analyzer, for memory tasks.

A successful memory task has IRR = 100% by the analyzer's first rule, so no
call is made. A failed one is analysed from the task, the reason it failed
and the step descriptions: the model counts the information units the task
needs and those the agent used correctly, says whether the output was explicit
(notes, messages: proportional credit) or implicit (a decision: 0 if wrong),
and gives the percentage. The percentage is checked against the counts; a
model that says 7 of 9 and 50% is asked again.
"""

from __future__ import annotations

import time
from typing import Any

from guilens.judge.calls import JudgeModel, Malformed, Tally, ask_json, need_dict, need_int, need_str
from guilens.judge.evidence import Evidence
from guilens.judge.prompts import load_prompt
from guilens.judge.scrutiny import formatted_steps
from guilens.judge.verdict import StageResult


def _parse_irr(data: Any) -> dict[str, Any]:
    d = need_dict(data)
    total = need_int(d, "total_information_units", lo=0)
    used = need_int(d, "correctly_used_units", lo=0, hi=max(total, 0))
    pct = need_int(d, "irr_percentage", lo=0, hi=100)
    if total > 0 and pct not in (0, 100) and abs(pct - 100 * used / total) > 1.5:
        raise Malformed(f"irr_percentage {pct} does not match {used} of {total} units "
                        f"({100 * used / total:.1f}%); implicit-task failures are 0")
    return {"total_information_units": total, "correctly_used_units": used, "irr_percentage": pct,
            "analysis_reason": need_str(d, "analysis_reason", required=False)}


def irr_success() -> StageResult:
    return StageResult(stage="irr", status="done", raw=100, reason="the task succeeded: IRR = 100% (rule 1)",
                       details={"irr_percentage": 100, "method": "task_succeeded"})


def irr_stage(ev: Evidence, client: JudgeModel, failure_reason: str, desc: StageResult | None, *,
              retries: int = 2) -> StageResult:
    started, tally, prompt = time.perf_counter(), Tally(), load_prompt("irr")
    content = [{"type": "text", "text": prompt.user(task=ev.task_text, failure_reason=failure_reason or "(not given)",
                                                    steps=formatted_steps(ev, desc))}]
    out = ask_json(client, system=prompt.system(), content=content, parse=_parse_irr, tally=tally,
                   shape="a JSON object with total_information_units, correctly_used_units, irr_percentage and "
                   "analysis_reason", max_tokens=900, retries=retries, label="irr")
    details: dict[str, Any] = {"method": "llm_analysis"}
    if tally.repairs:
        details["repairs"] = tally.repairs
    common: dict[str, Any] = dict(stage="irr", usage=tally.usage, calls=tally.calls, cached_calls=tally.cached,
                                  model=client.model, prompt=prompt.ref,
                                  duration_s=round(time.perf_counter() - started, 3), steps=list(range(ev.n)))
    if out is None:
        details["method"] = "analysis_failed"
        return StageResult(status="undecided", reason=f"malformed IRR output after {retries} repairs",
                           details=details, **common)
    details.update(out)
    return StageResult(status="done", raw=out["irr_percentage"],
                       reason=f"IRR {out['irr_percentage']}%: {out['correctly_used_units']} of "
                              f"{out['total_information_units']} units. {out['analysis_reason']}".strip(),
                       details=details, **common)
