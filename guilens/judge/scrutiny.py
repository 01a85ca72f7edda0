"""Stage 3: MemGUI-Eval's progressive scrutiny, every stage live.

1. Triage: the last three screens (the final one included) in one composite,
   plus the raw actions; the model may only say Success or Uncertain.
2. Step descriptions: one before/after panel per step, the action drawn on
   the left panel, described as `{action_description, ui_description}`;
   several at once, bounded by `judge_concurrency`.
3. Semantic judge: the descriptions plus the same composite; 1, 0, or -1 with
   the `required_steps` it needs to see.
4. Visual judge: the descriptions plus composites of exactly the requested
   steps; it must answer 1 or 0.

In the peer code stage 1 was never called and stage 3 could not be reached
(its phase-1 prompt forbade -1); here each stage runs when the one before it
could not decide, and the verdict records which one decided.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from guilens.judge.calls import JudgeModel, Malformed, Tally, ask_json, need_dict, need_int, need_str
from guilens.judge.evidence import Evidence, action_command
from guilens.judge.images import MAX_SIDE, action_panel, action_type_detail, chunks, composite
from guilens.judge.prompts import load_prompt
from guilens.judge.verdict import StageResult

MAX_REQUESTED = 15
"""At most this many requested screens go to the visual judge (5 composites of 3)."""


def _common(stage: str, tally: Tally, client: JudgeModel, prompt_ref: str, started: float,
            steps: list[int], details: dict[str, Any]) -> dict[str, Any]:
    if tally.repairs:
        details = {**details, "repairs": tally.repairs}
    return dict(stage=stage, steps=steps, usage=tally.usage, calls=tally.calls, cached_calls=tally.cached,
                model=client.model, prompt=prompt_ref, duration_s=round(time.perf_counter() - started, 3),
                details=details)


def _composite_block(ev: Evidence, screens: list[int], max_side: int) -> tuple[list[dict[str, Any]], list[int]]:
    """The composite as a one-block list, or no block when no screen was recorded."""
    from guilens.llm import image_block

    frames = [(ev.label(i), img) for i in screens if (img := ev.screen(i)) is not None]
    shown = [i for i in screens if ev.screen_exists(i)]
    if not frames:
        return [], []
    return [image_block(composite(frames, max_side), max_side)], shown


def _shown_text(ev: Evidence, shown: list[int]) -> str:
    return ", ".join(f"{ev.label(i)}" + (" (the final screen, after the last action)" if i == ev.n else "")
                     for i in shown)


# --- 1. triage ---------------------------------------------------------------------------------


def _parse_triage(data: Any) -> tuple[str, str]:
    d = need_dict(data)
    decision = need_str(d, "decision").strip().capitalize()
    if decision not in ("Success", "Uncertain"):
        raise Malformed(f"'decision' must be \"Success\" or \"Uncertain\" at this stage, not {d['decision']!r}")
    return decision, need_str(d, "reason", required=False)


def triage(ev: Evidence, client: JudgeModel, *, max_side: int = MAX_SIDE, retries: int = 2) -> StageResult:
    started, tally, prompt = time.perf_counter(), Tally(), load_prompt("triage")
    screens = ev.last_screens(3)
    if not screens:
        return StageResult(stage="triage", status="skipped", reason="no screens were recorded")
    block, shown = _composite_block(ev, screens, max_side)
    content = [
        {"type": "text", "text": prompt.user(task=ev.task_text, actions=ev.action_log(), shown=_shown_text(ev, shown))},
        *block,
    ]
    out = ask_json(client, system=prompt.system(total_screens=ev.last_screen + 1), content=content,
                   parse=_parse_triage, tally=tally, shape='a JSON object with "reason" and "decision" '
                   '("Success" or "Uncertain")', max_tokens=600, retries=retries, label="triage")
    common = _common("triage", tally, client, prompt.ref, started, shown, {})
    if out is None:
        return StageResult(status="undecided", reason=f"malformed triage output after {retries} repairs; "
                           "escalating", **common)
    decision, reason = out
    if decision == "Success":
        return StageResult(status="decided", decision="success", raw=decision, reason=reason, **common)
    return StageResult(status="undecided", raw=decision, reason=reason, **common)


# --- 2. step descriptions ----------------------------------------------------------------------


def _parse_description(data: Any) -> dict[str, str]:
    d = need_dict(data)
    return {"action_description": need_str(d, "action_description"), "ui_description": need_str(d, "ui_description")}


def describe(ev: Evidence, client: JudgeModel, *, concurrency: int = 4, max_side: int = MAX_SIDE,
             retries: int = 2, why: str = "") -> StageResult:
    """Describe every step from its before/after panel. A step whose description fails stays in the
    list under its own number, marked as missing, so no number shifts."""
    from guilens.llm import image_block

    started, tally, prompt = time.perf_counter(), Tally(), load_prompt("describe")
    system = prompt.system()
    failed: dict[int, str] = {}

    def one(i: int) -> dict[str, str] | None:
        before = ev.screen(i)
        if before is None:
            return None
        s = ev.steps[i]
        kind, detail = action_type_detail(s.action)
        panel = action_panel(before, ev.screen(i + 1), s.action, max_side)
        content = [{"type": "text", "text": prompt.user(task=ev.task_text, action_type=kind, action_detail=detail)},
                   image_block(panel, max_side)]
        try:
            return ask_json(client, system=system, content=content, parse=_parse_description, tally=tally,
                            shape='a JSON object with "action_description" and "ui_description"', max_tokens=500,
                            retries=retries, label=f"step {i}")
        except Exception as err:  # the API down for this step: the others may still be described
            failed[i] = f"{type(err).__name__}: {err}"
            tally.add_failed(err)
            return None

    indexes = list(range(ev.n))
    with ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix="judge-describe") as pool:
        results = list(pool.map(one, indexes))
    descriptions = {i: r for i, r in zip(indexes, results, strict=True) if r is not None}
    missing = [i for i, r in zip(indexes, results, strict=True) if r is None]
    details: dict[str, Any] = {"descriptions": {str(i): d for i, d in descriptions.items()}}
    if missing:
        details["missing"] = missing
    if why:
        details["for"] = why
    errors = [f"step {i}: {failed[i]}" for i in sorted(failed)]
    common = _common("describe", tally, client, prompt.ref, started, sorted(descriptions), details)
    if failed and not descriptions:
        return StageResult(status="error", reason=f"no step could be described ({errors[0]})", errors=errors,
                           **common)
    reason = f"described {len(descriptions)} of {ev.n} steps" + (
        f"; steps {', '.join(map(str, missing))} have no description" if missing else "") + (
        f" ({len(failed)} failed: {errors[0]})" if failed else "")
    return StageResult(status="done", reason=reason, errors=errors, **common)


def formatted_steps(ev: Evidence, desc: StageResult | None) -> str:
    """`{formatted_steps}`: every step's description, by its own number; raw actions fill gaps."""
    table = (desc.details.get("descriptions") if desc is not None else None) or {}
    lines = []
    for i in range(ev.n):
        d = table.get(str(i))
        s = ev.steps[i]
        if d:
            lines.append(f"Step {i}: Action: {d['action_description']}\n  Screen: {d['ui_description']}")
        else:
            lines.append(f"Step {i}: Action (raw, not described): {action_command(s.action)}")
        if s.ask is not None:
            lines.append(f"  The agent asked the user {s.ask.question!r}; the user answered {s.ask.answer!r}.")
    if ev.episode.final_answer:
        lines.append(f"Final answer given by the agent: {ev.episode.final_answer!r}")
    return "\n".join(lines) if lines else "(no steps)"


# --- 3. semantic judge --------------------------------------------------------------------------


def _semantic_parser(last_screen: int) -> Any:
    def parse(data: Any) -> tuple[int, str, list[int]]:
        d = need_dict(data)
        decision = need_int(d, "decision", allowed=(1, 0, -1))
        reason = need_str(d, "reason", required=False)
        steps: list[int] = []
        if decision == -1:
            raw = d.get("required_steps")
            if not isinstance(raw, list) or not raw:
                raise Malformed("decision -1 needs a non-empty 'required_steps' list of step numbers")
            for v in raw:
                if isinstance(v, str) and v.strip().lower() == "final":
                    v = last_screen
                try:
                    n = need_int({"step": v}, "step")
                except Malformed:
                    raise Malformed(f"'required_steps' must hold step numbers, not {v!r}") from None
                if 0 <= n <= last_screen and n not in steps:
                    steps.append(n)
            if not steps:
                raise Malformed(f"'required_steps' names no step between 0 and {last_screen}")
        return decision, reason, steps

    return parse


def semantic(ev: Evidence, client: JudgeModel, desc: StageResult | None, *, max_side: int = MAX_SIDE,
             retries: int = 2) -> StageResult:
    started, tally, prompt = time.perf_counter(), Tally(), load_prompt("semantic")
    block, shown = _composite_block(ev, ev.last_screens(3), max_side)
    content = [{"type": "text", "text": prompt.user(task=ev.task_text, steps=formatted_steps(ev, desc),
                                                    last_step=max(0, ev.n - 1),
                                                    shown=_shown_text(ev, shown) or "no screens were recorded")},
               *block]
    out = ask_json(client, system=prompt.system(), content=content, parse=_semantic_parser(ev.last_screen),
                   tally=tally, shape="a JSON object with 'decision' (1, 0 or -1), 'reason', and 'required_steps' "
                   "when the decision is -1", max_tokens=800, retries=retries, label="semantic")
    common = _common("semantic", tally, client, prompt.ref, started, shown, {})
    if out is None:
        return StageResult(status="undecided", reason=f"malformed semantic-judge output after {retries} repairs",
                           **common)
    decision, reason, required = out
    if decision == -1:
        common["details"] = {**common["details"], "required_steps": required}
        return StageResult(status="undecided", raw=-1, reason=reason, **common)
    return StageResult(status="decided", decision="success" if decision == 1 else "failure", raw=decision,
                       reason=reason, **common)


# --- 4. visual judge ---------------------------------------------------------------------------


def _parse_visual(data: Any) -> tuple[int, str]:
    d = need_dict(data)
    return need_int(d, "decision", allowed=(1, 0)), need_str(d, "reason", required=False)


def visual(ev: Evidence, client: JudgeModel, desc: StageResult | None, required: list[int], *,
           max_side: int = MAX_SIDE, retries: int = 2) -> StageResult:
    from guilens.llm import image_block

    started, tally, prompt = time.perf_counter(), Tally(), load_prompt("visual")
    wanted = sorted({i for i in required if ev.screen_exists(i)})
    dropped = wanted[MAX_REQUESTED:]
    wanted = wanted[:MAX_REQUESTED]
    if not wanted:
        return StageResult(stage="visual", status="undecided", reason="none of the requested screens "
                           f"{required} were recorded", details={"required_steps": required})
    blocks = []
    for part in chunks(wanted, 3):
        frames = [(ev.label(i), img) for i in part if (img := ev.screen(i)) is not None]
        blocks.append(image_block(composite(frames, max_side), max_side))
    content = [{"type": "text", "text": prompt.user(task=ev.task_text, steps=formatted_steps(ev, desc),
                                                    shown=_shown_text(ev, wanted))}, *blocks]
    out = ask_json(client, system=prompt.system(), content=content, parse=_parse_visual, tally=tally,
                   shape="a JSON object with 'decision' (1 or 0) and 'reason'", max_tokens=800, retries=retries,
                   label="visual")
    details: dict[str, Any] = {"required_steps": required}
    if dropped:
        details["not_shown"] = dropped
    common = _common("visual", tally, client, prompt.ref, started, wanted, details)
    if out is None:
        return StageResult(status="undecided", reason=f"malformed visual-judge output after {retries} repairs",
                           **common)
    decision, reason = out
    return StageResult(status="decided", decision="success" if decision == 1 else "failure", raw=decision,
                       reason=reason, **common)
