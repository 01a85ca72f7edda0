"""Stage 5: MemGUI-Bench's failure modes (MemGUI-Eval's BadCase analysis), for failed attempts.

MemGUI-Bench (appendix A.8) sorts failures into seven modes. Two are told by
rule, with no model call, as MemGUI-Eval does:
- `execution_timeout`: the step budget ran out (episode status `timeout`);
- `partial_memory_hallucination`: a memory task with 0 < IRR < 100%. MemGUI-Eval
  asks the model first and relabels afterwards; the model's answer would be
  thrown away, so here the rule comes first and no call is made (the stage's
  `details.method` is `rule_irr`). This is why the stage runs after IRR.
The other five (process and output memory hallucination, knowledge deficiency,
intent misunderstanding, other) are the judge model's call, from the task, the
reason it failed, the IRR, the trajectory (the agent's thoughts included: a
process hallucination shows in what the agent believed) and the last screens.
The reply carries MemGUI-Eval's `badcase_analysis.json` fields; the category
and the steps it names are checked, and a reply that fails is repaired through
`ask_json` as the other stages' are.

Only failures are classified: a success gets no stage, an undecided attempt is
skipped with its reason, and a task of a day that never ran because a
prerequisite failed (`blocked`) is skipped: it has no trajectory to blame.
"""

from __future__ import annotations

import re
import time
from typing import Any

from guilens.judge.calls import JudgeModel, Malformed, Tally, ask_json, need_dict, need_int, need_str
from guilens.judge.evidence import Evidence, action_command
from guilens.judge.images import MAX_SIDE
from guilens.judge.prompts import load_prompt
from guilens.judge.verdict import StageResult

MODES: tuple[str, ...] = (
    "execution_timeout",
    "partial_memory_hallucination",
    "process_memory_hallucination",
    "output_memory_hallucination",
    "knowledge_deficiency",
    "intent_misunderstanding",
    "other",
)
"""MemGUI-Bench's seven failure modes, in the paper's order (A.8.1)."""
RULE_MODES = MODES[:2]
"""Told by rule, never by the model."""
MODEL_MODES = MODES[2:]
ALIASES = {"intent_understanding": "intent_misunderstanding"}
"""MemGUI-Eval's own code spells the intent category `intent_understanding`; the paper's name is kept."""
NEEDS_MODEL = ("rules tell only an execution timeout and, from IRR, a partial memory hallucination; "
               "this failure needs the judge model")
THOUGHT_CHARS = 600
"""A thought longer than this is cut in the prompt: the decision is in its first lines."""


def _skip(reason: str) -> StageResult:
    return StageResult(stage="failure_mode", status="skipped", reason=reason)


def _by_rule(mode: str, method: str, reason: str, **details: Any) -> StageResult:
    return StageResult(stage="failure_mode", status="done", raw=mode, reason=reason,
                       details={"category": mode, "method": method, "failure_steps": [], **details})


def by_rule(ev: Evidence, final: StageResult | None, irr: float | None) -> StageResult | None:
    """The stage's result when no model is needed (a rule decides, or there is nothing to classify);
    None when the judge model must be asked. Call it only for attempts that did not succeed."""
    ep = ev.episode
    if ep.status == "blocked":
        why = final.reason if final is not None and final.reason else "a prerequisite of the day failed"
        return _skip(f"the task never ran ({why}): no trajectory to classify")
    if final is None:
        return _skip("the outcome is undecided: only failures are classified")
    if final.decision != "failure":
        return _skip(f"the outcome is {final.decision}: only failures are classified")
    if ep.status == "timeout":
        budget = f" of {ep.budget} steps" if ep.budget else ""
        return _by_rule("execution_timeout", "rule_timeout",
                        f"execution_timeout: the step budget{budget} ran out (by rule, no model call)")
    if ev.is_memory_task and irr is not None and 0 < irr < 1:
        return _by_rule("partial_memory_hallucination", "rule_irr",
                        f"partial_memory_hallucination: IRR {100 * irr:.0f}%, some information units were "
                        "kept and others lost (0 < IRR < 100%; by rule, no model call)", irr_percentage=round(100 * irr))
    return None


# --- the model's classification ---------------------------------------------------------------


def _step_number(value: Any) -> Any:
    """`"Step 7"` -> 7; anything else unchanged (the validator then says what is wrong)."""
    if isinstance(value, str) and (m := re.fullmatch(r"\s*(?:step\s*)?(\d+)\s*", value, re.I)):
        return int(m.group(1))
    return value


def _parser(n_steps: int) -> Any:
    last = max(n_steps - 1, 0)

    def parse(data: Any) -> dict[str, Any]:
        d = need_dict(data)
        raw = need_str(d, "category").strip().lower().replace(" ", "_").replace("-", "_")
        category = ALIASES.get(raw, raw)
        if category in RULE_MODES:
            raise Malformed(f"'category' {category} is decided by rule, not by you; choose one of "
                            f"{', '.join(MODEL_MODES)}")
        if category not in MODEL_MODES:
            raise Malformed(f"'category' must be one of {', '.join(MODEL_MODES)}, not {raw!r}")
        conf = d.get("confidence")
        if isinstance(conf, str) and re.fullmatch(r"\s*\d*\.?\d+\s*", conf):
            conf = float(conf)
        if isinstance(conf, bool) or not isinstance(conf, int | float) or not 0 <= conf <= 1:
            raise Malformed(f"'confidence' must be a number from 0.0 to 1.0, not {conf!r}")
        key = need_int({"key_failure_point": _step_number(d.get("key_failure_point"))}, "key_failure_point",
                       lo=0, hi=last)
        evidence = d.get("evidence", [])
        blamed = [key]
        if isinstance(evidence, list):
            items = []
            for e in evidence:
                if isinstance(e, dict) and "step" in e:
                    step = need_int({"evidence step": _step_number(e["step"])}, "evidence step", lo=0, hi=last)
                    items.append({"step": step, "observation": need_str(e, "observation", required=False)})
                    blamed.append(step)
                else:
                    items.append({"step": None, "observation": e if isinstance(e, str) else str(e)})
            evidence = items
        elif not isinstance(evidence, str):
            raise Malformed("'evidence' must be a list of {\"step\", \"observation\"} objects")
        return {"category": category, "confidence": float(conf),
                "analysis_reason": need_str(d, "analysis_reason", required=False),
                "key_failure_point": key, "evidence": evidence,
                "suggested_improvement": need_str(d, "suggested_improvement", required=False),
                "failure_steps": list(dict.fromkeys(blamed))}

    return parse


def trajectory(ev: Evidence, desc: StageResult | None) -> str:
    """Every step as the model reads it: the described action and screen where the step descriptions
    were made, the raw action always, the agent's thought, its questions and rejected actions."""
    table = (desc.details.get("descriptions") if desc is not None and desc.status == "done" else None) or {}
    lines = []
    for i, s in enumerate(ev.steps):
        d = table.get(str(i))
        raw = action_command(s.action)
        if d:
            lines.append(f"Step {i}: Action: {d['action_description']} [raw: {raw}]\n  Screen: {d['ui_description']}")
        else:
            said = s.action_description if s.action_description and s.action_description != raw else ""
            lines.append(f"Step {i}: Action: {raw}" + (f" ({said})" if said else ""))
        if s.thought:
            thought = " ".join(s.thought.split())
            lines.append(f"  Thought: {thought[:THOUGHT_CHARS]}" + ("..." if len(thought) > THOUGHT_CHARS else ""))
        if s.ask is not None:
            lines.append(f"  The agent asked the user {s.ask.question!r}; the user answered {s.ask.answer!r}.")
        if s.error:
            lines.append(f"  [the action was rejected: {s.error}]")
    if ev.episode.final_answer:
        lines.append(f"Final answer given by the agent: {ev.episode.final_answer!r}")
    return "\n".join(lines) if lines else "(no steps)"


def _irr_text(ev: Evidence, irr: float | None) -> str:
    if not ev.is_memory_task:
        return "Not measured: this is not a memory task."
    if irr is None:
        return "Not measured (the IRR analysis did not run or failed)."
    return f"IRR {100 * irr:.0f}%" + (": no information unit was retained and used correctly." if irr == 0 else ".")


def failure_mode_stage(ev: Evidence, client: JudgeModel, failure_reason: str, irr: float | None,
                       desc: StageResult | None, *, max_side: int = MAX_SIDE, retries: int = 2) -> StageResult:
    """Ask the judge model for the failure mode of a failed attempt no rule classified."""
    from guilens.judge.scrutiny import _composite_block, _shown_text

    started, tally, prompt = time.perf_counter(), Tally(), load_prompt("failure_mode")
    images, shown = _composite_block(ev, ev.last_screens(3), max_side)
    shown_text = (f"You are also given a composite image of the last screens ({_shown_text(ev, shown)})."
                  if shown else "No screenshots were recorded.")
    content: list[dict[str, Any]] = [
        {"type": "text", "text": prompt.user(task=ev.task_text, failure_reason=failure_reason or "(not given)",
                                             irr=_irr_text(ev, irr), last_step=max(ev.n - 1, 0),
                                             steps=trajectory(ev, desc), shown=shown_text)},
        *images,
    ]
    out = ask_json(client, system=prompt.system(), content=content, parse=_parser(ev.n), tally=tally,
                   shape="a JSON object with category, confidence, analysis_reason, key_failure_point, evidence "
                   "and suggested_improvement", max_tokens=1200, retries=retries, label="failure_mode")
    details: dict[str, Any] = {"method": "llm_analysis"}
    if tally.repairs:
        details["repairs"] = tally.repairs
    common: dict[str, Any] = dict(stage="failure_mode", usage=tally.usage, calls=tally.calls,
                                  cached_calls=tally.cached, model=client.model, prompt=prompt.ref,
                                  duration_s=round(time.perf_counter() - started, 3), steps=list(range(ev.n)))
    if out is None:
        details["method"] = "analysis_failed"
        return StageResult(status="undecided", reason=f"malformed failure-mode output after {retries} repairs",
                           details=details, **common)
    details.update(out)
    reason = (f"{out['category']} (confidence {out['confidence']:.2f}), key failure at step "
              f"{out['key_failure_point']}: {out['analysis_reason']}").strip()
    return StageResult(status="done", raw=out["category"], reason=reason, details=details, **common)


def verdict_fields(result: StageResult | None) -> tuple[str | None, list[int]]:
    """`Verdict.failure_mode` and `failure_steps` from the stage's result."""
    if result is None or result.status != "done":
        return None, []
    return result.details.get("category"), list(result.details.get("failure_steps") or [])
