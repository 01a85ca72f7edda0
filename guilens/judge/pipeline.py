"""The judge pipeline: rules -> milestone judge -> progressive scrutiny -> IRR -> failure mode, into `verdict.json`.

Cheap and certain first. With the default stages the pipeline escalates: once
the rules decide (a sim episode whose checks all read), the LLM stages are
skipped and say so; otherwise the milestone judge fills in progress and
progressive scrutiny decides. Naming stages (`stages=["scrutiny"]`) runs
exactly those, decided or not, which is how the LLM judge is compared with the
rules on labelled episodes (`guilens judge --all-stages` names every default
stage). The final decision comes from the first stage, in order of authority
(rules, then scrutiny's visual, semantic and triage judges, then the milestone
judge), that decided; every stage's own decision stays in its `StageResult`,
and `Verdict.disagreements()` names those that differ. A failed attempt then
gets its failure mode (`guilens.judge.failure_mode`), after IRR, whoever
decided the failure. `JudgeConfig.llm` off (`--rules-only`) asks no model at
all: each stage that needs one says so.

A stage that cannot run says so in its `StageResult` (no API key, no task
definition, a real-device episode the rules cannot read, the API down) and
the rest of the judgement goes on. A stage run again later in the same
judgement (IRR re-running the step descriptions) keeps its earlier runs and
their errors (`StageResult.runs`, `errors`): a later success does not erase a
failure. A verdict whose key (a hash of the episode files, the task
definition, the configuration and the prompt versions) matches the one on
disk is returned as is: re-judging costs nothing. Verdicts with an error in
any stage are never reused.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from guilens.episode import EpisodeReader, Usage, find_episodes
from guilens.judge.assembly import final_milestones, task_warnings
from guilens.judge.calls import JudgeModel
from guilens.judge.clients import ClientFactory, _Clients
from guilens.judge.evidence import Evidence
from guilens.judge.failure_mode import NEEDS_MODEL, by_rule, failure_mode_stage, verdict_fields
from guilens.judge.inputs import resolve_task, verdict_key
from guilens.judge.options import DEFAULT_STAGES, LLM_STAGES, JudgeConfig, JudgeError, expand_stages
from guilens.judge.verdict import (
    STAGE_ORDER,
    FinalDecision,
    MilestoneState,
    StageName,
    StageResult,
    Verdict,
    save_verdict,
)

__all__ = ["DEFAULT_STAGES", "JudgeConfig", "JudgeError", "expand_stages", "judge_episode", "judge_path",
           "resolve_task"]

log = logging.getLogger(__name__)

AUTHORITY: tuple[str, ...] = ("rules", "visual", "semantic", "triage", "milestones")
"""Which decided stage wins the final decision."""


# --- the pipeline ------------------------------------------------------------------------------------


StageCallback = Callable[[StageResult], None]


class _Results(dict[str, StageResult]):
    """The stage results so far; tells `on_stage` of each as it lands (the TUI shows them live)."""

    def __init__(self, on_stage: StageCallback | None) -> None:
        super().__init__()
        self.on_stage = on_stage

    def __setitem__(self, key: str, value: StageResult) -> None:
        super().__setitem__(key, value)
        if self.on_stage is not None:
            try:
                self.on_stage(value)
            except Exception:  # a display problem must not lose the judgement
                log.exception("on_stage callback failed")


def _skip(stage: StageName, reason: str) -> StageResult:
    return StageResult(stage=stage, status="skipped", reason=reason)


def _error(stage: StageName, err: Exception) -> StageResult:
    """A stage that broke; an API failure keeps the failed tries it made (`LLMError.retries`)."""
    reason = f"{type(err).__name__}: {err}"
    retries = list(getattr(err, "retries", None) or [])
    return StageResult(stage=stage, status="error", reason=reason, errors=[reason],
                       usage=Usage(retries=retries))


def judge_episode(
    path: str | Path,
    stages: Sequence[str] | None = None,
    model: str | None = None,
    force: bool = False,
    *,
    settings: Any = None,
    client_factory: ClientFactory | None = None,
    on_stage: StageCallback | None = None,
    describe_model: str | None = None,
    base_url: str | None = None,
    llm: bool = True,
    _clients: _Clients | None = None,
) -> Verdict:
    """Judge one attempt directory and write its `verdict.json`; return the verdict.

    `stages`: None for the default escalating pipeline, or names (`rules`,
    `milestones`, `scrutiny`, `irr`, or single scrutiny stages) to run exactly.
    `force`: judge again even if the verdict on disk matches. `client_factory`
    builds the model client (tests; default: `guilens.llm.make_client`, judge role,
    response cache on). `model` and `describe_model` (the step descriptions'; default:
    the `describe_model` setting, else `model`) are model specs on any provider
    (`openai:MODEL`, `anthropic:MODEL`); `base_url` overrides the provider's setting.
    `on_stage` hears of each stage result as it is made (not when the verdict on disk
    is reused). `llm=False` asks no model, whatever the stages (`--rules-only`).
    """
    from guilens import __version__
    from guilens.config import load_settings

    settings = settings if settings is not None else load_settings()
    config = JudgeConfig(
        model=model or settings.judge_model,
        stages=tuple(expand_stages(stages)) if stages is not None else None,
        concurrency=settings.judge_concurrency,
        describe_model=describe_model or settings.describe_model,
        llm=llm,
    )
    clients = _clients or _Clients(config.model, client_factory, settings, describe_model=config.describe_model,
                                   base_url=base_url)
    reader = EpisodeReader(path)
    scenario, task, values, origin = resolve_task(reader)
    ev = Evidence(reader, task=task, scenario=scenario, values=values, task_origin=origin)
    wants_llm = config.llm and bool(LLM_STAGES & set(config.requested))
    llm_ok = wants_llm and clients.available()
    key = verdict_key(reader.dir, task, values, config, llm_ok)
    out_path = reader.dir / "verdict.json"
    if not force and out_path.is_file():
        try:
            old = Verdict.model_validate_json(out_path.read_text(encoding="utf-8"))
        except ValueError:
            old = None
        if old is not None and old.key == key and not any(s.status == "error" or s.errors for s in old.stages):
            old._reused = True
            return old

    started = time.perf_counter()
    verdict = _run(ev, config, clients, on_stage)
    verdict.key = key
    verdict.judged_at = datetime.now().astimezone()
    verdict.guilens_version = __version__
    verdict.duration_s = round(time.perf_counter() - started, 3)
    verdict.usage = sum((s.usage for s in verdict.stages), Usage())
    if reader.episode.status in ("running",):
        verdict.reason = f"(judged while still running) {verdict.reason}"
    save_verdict(reader.dir, verdict)
    return verdict


def _run(ev: Evidence, config: JudgeConfig, clients: _Clients, on_stage: StageCallback | None = None) -> Verdict:
    from guilens.judge.irr import irr_stage, irr_success
    from guilens.judge.irr_rules import irr_blocked, irr_by_rules, rules_count
    from guilens.judge.milestone_judge import milestone_stage
    from guilens.judge.rules import rules_stage
    from guilens.judge.scrutiny import describe, semantic, triage, visual

    ep = ev.episode
    want = set(config.requested)
    results = _Results(on_stage)
    milestones: dict[str, MilestoneState] = {}

    def client_or_skip(stage: StageName) -> JudgeModel | None:
        if not config.llm:
            results[stage] = _skip(stage, "rules only (--rules-only): no model is asked")
            return None
        c = clients.get()
        if c is None:
            results[stage] = _skip(stage, clients.unavailable or "no model client")
        return c

    # An attempt that never ended (killed, or still running) is nobody's failure or success: the
    # rules say so, and no model is asked to decide it (milestones reached still count).
    unfinished = ep.status in ("interrupted", "running")

    def decided() -> StageResult | None:
        if unfinished:
            return None
        for name in AUTHORITY:
            r = results.get(name)
            if r is not None and r.status == "decided":
                return r
        return None

    # 1. rules
    if "rules" in want:
        try:
            results["rules"], states = rules_stage(ev)
            milestones.update({s.id: s for s in states})
        except Exception as err:
            log.exception("rules stage failed on %s", ev.reader.dir)
            results["rules"] = _error("rules", err)
    rules_decided = results.get("rules") is not None and results["rules"].status == "decided"

    # 2. milestone judge
    if "milestones" in want:
        if ev.task is None:
            results["milestones"] = _skip("milestones", "the task definition is not available")
        elif not ev.task.milestones:
            results["milestones"] = _skip("milestones", "the task has no milestones")
        elif config.escalate and rules_decided:
            results["milestones"] = _skip("milestones", "decided by rules (milestones from the rules stage)")
        elif milestones and all(s.reached is not None for s in milestones.values()):
            results["milestones"] = _skip("milestones", "the rules decided every milestone")
        elif (c := client_or_skip("milestones")) is not None:
            try:
                results["milestones"], states = milestone_stage(
                    ev, c, {k: v for k, v in milestones.items() if v.reached is not None},
                    segment=config.segment, max_side=config.max_side, retries=config.retries)
                milestones.update({s.id: s for s in states})
            except Exception as err:
                results["milestones"] = _error("milestones", err)

    # 3. progressive scrutiny
    scrutiny = [s for s in ("triage", "describe", "semantic", "visual") if s in want]
    if scrutiny:
        stop: str | None = "decided by rules" if config.escalate and rules_decided else None
        if unfinished:
            stop = f"the attempt is {ep.status}: left undecided"
        c = None if stop else client_or_skip(scrutiny[0])
        if c is None and stop is None:
            stop = results[scrutiny[0]].reason
        for stage in scrutiny:
            if stage in results:
                continue
            if stop is not None:
                results[stage] = _skip(stage, stop)
                continue
            assert c is not None
            try:
                if stage == "triage":
                    r = triage(ev, c, max_side=config.max_side, retries=config.retries)
                    if r.status == "decided":
                        stop = "triage decided"
                elif stage == "describe":
                    d = clients.describer()
                    r = (describe(ev, d, concurrency=config.concurrency, max_side=config.max_side,
                                  retries=config.retries) if d is not None
                         else _skip("describe", clients.unavailable or "no model client"))
                elif stage == "semantic":
                    r = semantic(ev, c, results.get("describe"), max_side=config.max_side, retries=config.retries)
                    if r.status == "decided":
                        stop = "the semantic judge decided"
                    elif r.raw != -1:
                        stop = "the semantic judge gave no usable answer"
                else:
                    sem = results.get("semantic")
                    required = sem.details.get("required_steps") if sem is not None else None
                    if not required:
                        r = _skip("visual", "no steps were requested (the visual judge follows a semantic -1)")
                    else:
                        r = visual(ev, c, results.get("describe"), list(required), max_side=config.max_side,
                                   retries=config.retries)
            except Exception as err:
                r = _error(stage, err)
            if r.status == "error":
                stop = f"{stage} failed"
            results[stage] = r

    final = decided()

    # 4. IRR
    irr_value: float | None = None
    if "irr" in want:
        if ev.task is None:
            results["irr"] = _skip("irr", "the task definition is not available")
        elif not ev.is_memory_task:
            results["irr"] = _skip("irr", "not a memory task")
        elif final is None:
            results["irr"] = _skip("irr", "the outcome is undecided")
        elif final.decision == "success":
            results["irr"] = irr_success()
            irr_value = 1.0
        elif (blocked := irr_blocked(ev)) is not None:  # never ran: 0, an early failure; nothing to ask
            results["irr"] = blocked
            irr_value = 0.0
        elif (by_rules := irr_by_rules(ev)) is not None and (config.escalate or not config.llm):
            # Counted from the task's items in the end state, no model. Named LLM stages still ask the
            # analyzer (to compare it with the rules), and its result keeps the rules' count beside it.
            results["irr"] = by_rules
            irr_value = by_rules.details["irr_percentage"] / 100
        elif (c := client_or_skip("irr")) is not None:
            desc = results.get("describe")
            if desc is None or desc.status != "done":
                # IRR needs the descriptions: run the stage again, keeping its earlier run on the record.
                try:
                    again = describe(ev, clients.describer() or c, concurrency=config.concurrency,
                                     max_side=config.max_side, retries=config.retries, why="irr")
                except Exception as err:
                    again = _error("describe", err)
                    again.details["for"] = "irr"
                desc = again.rerun(desc) if desc is not None else again
                results["describe"] = desc
            if desc.status != "done":
                results["irr"] = _skip("irr", f"the step descriptions failed: {desc.reason}")
            else:
                try:
                    r = irr_stage(ev, c, final.reason, desc, retries=config.retries)
                    if by_rules is not None:
                        r.details["by_rules"] = rules_count(by_rules)
                    results["irr"] = r
                    if r.status == "done":
                        irr_value = r.details["irr_percentage"] / 100
                except Exception as err:
                    results["irr"] = _error("irr", err)

    # 5. failure mode: after IRR, which tells a partial memory hallucination
    if "failure_mode" in want and not (final is not None and final.decision == "success"):
        fm = by_rule(ev, final, irr_value)
        if fm is None and not config.llm:
            fm = _skip("failure_mode", f"rules only (--rules-only): {NEEDS_MODEL}")
        if fm is None and (c := client_or_skip("failure_mode")) is not None:
            assert final is not None
            try:
                fm = failure_mode_stage(ev, c, final.reason, irr_value, results.get("describe"),
                                        max_side=config.max_side, retries=config.retries)
            except Exception as err:
                fm = _error("failure_mode", err)
        if fm is not None:
            results["failure_mode"] = fm

    ordered, progress = final_milestones(ev, milestones)
    stages = [results[s] for s in STAGE_ORDER if s in results]
    mode, blamed = verdict_fields(results.get("failure_mode"))
    decision: FinalDecision
    if final is None:
        why = "; ".join(f"{r.stage}: {r.reason}" for r in stages
                        if r.status in ("undecided", "skipped", "error") and r.stage != "failure_mode")
        decision, decided_by, reason = "undecided", None, f"no stage could decide ({why})" if why else "no stage ran"
    else:
        decision, decided_by, reason = final.decision or "undecided", final.stage, final.reason
    return Verdict(task=ep.task, scenario=ep.scenario, attempt=ep.attempt, run_id=ep.run_id,
                   decision=decision, decided_by=decided_by, reason=reason,
                   milestones=ordered, progress=progress, irr=irr_value, failure_mode=mode, failure_steps=blamed,
                   stages=stages, model=config.model,
                   stages_requested=config.requested, warnings=task_warnings(ev), task_source=ev.task_origin)


def judge_path(
    path: str | Path,
    stages: Sequence[str] | None = None,
    model: str | None = None,
    force: bool = False,
    *,
    settings: Any = None,
    client_factory: ClientFactory | None = None,
    on_done: Callable[[Path, Verdict], None] | None = None,
    on_stage: StageCallback | None = None,
    describe_model: str | None = None,
    base_url: str | None = None,
    llm: bool = True,
) -> list[tuple[Path, Verdict]]:
    """Judge one episode or every episode under a run (or task) directory, one model client for all."""
    from guilens.config import load_settings

    settings = settings if settings is not None else load_settings()
    dirs = find_episodes(path)
    if not dirs:
        raise JudgeError(f"{path}: no episodes here (no episode.json under it)")
    describe_model = describe_model or settings.describe_model
    clients = _Clients(model or settings.judge_model, client_factory, settings, describe_model=describe_model,
                       base_url=base_url)
    out = []
    for d in dirs:
        v = judge_episode(d, stages, model, force, settings=settings, client_factory=client_factory,
                          on_stage=on_stage, describe_model=describe_model, base_url=base_url, llm=llm,
                          _clients=clients)
        out.append((d, v))
        if on_done is not None:
            on_done(d, v)
    return out
