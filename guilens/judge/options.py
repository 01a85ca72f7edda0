"""What a judgement is asked for: the stages (named, or the escalating default), the model and the limits.

Kept apart from the pipeline that runs them: `JudgeConfig.identity` is part of
a verdict's key (`guilens.judge.inputs.verdict_key`), and the CLI checks stage
names before any episode is read.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from guilens.judge.images import MAX_SIDE
from guilens.judge.prompts import PROMPT_NAMES, load_prompt
from guilens.judge.verdict import GROUPS, STAGE_ORDER, VERDICT_SCHEMA_VERSION

__all__ = ["DEFAULT_STAGES", "JUDGE_LOGIC_VERSION", "LLM_STAGES", "RULES_ONLY_STAGES", "JudgeConfig", "JudgeError",
           "expand_stages"]

DEFAULT_STAGES: tuple[str, ...] = ("rules", "milestones", "scrutiny", "irr", "failure_mode")
RULES_ONLY_STAGES: tuple[str, ...] = ("rules", "irr", "failure_mode")
"""`--rules-only` (with `JudgeConfig.llm` off): the rules, and what rules tell of IRR and of the failure
modes (a success's 100%, a task's information items; an execution timeout, a partial IRR), no model."""
JUDGE_LOGIC_VERSION = 3
"""Bump when a stage's logic changes what it decides: old verdicts are then judged again."""
LLM_STAGES = frozenset({"milestones", "triage", "describe", "semantic", "visual", "irr", "failure_mode"})


class JudgeError(ValueError):
    """Bad input to the judge (an unknown stage, a path with no episodes); the message says which."""


def expand_stages(names: Iterable[str]) -> list[str]:
    """`rules,scrutiny` -> the stage names in pipeline order; errors name the unknown one."""
    out: set[str] = set()
    for raw in names:
        for name in (n.strip() for n in raw.split(",")):
            if not name:
                continue
            if name in GROUPS:
                out.update(GROUPS[name])
            elif name in STAGE_ORDER:
                out.add(name)
            else:
                raise JudgeError(f"unknown judge stage {name!r}; choose from "
                                 f"{', '.join([*GROUPS, 'triage', 'describe', 'semantic', 'visual'])}")
    return [s for s in STAGE_ORDER if s in out]


@dataclass(frozen=True)
class JudgeConfig:
    model: str
    stages: tuple[str, ...] | None = None
    """None: the default stages, escalating; a tuple: exactly these, always run."""
    segment: int = 10
    concurrency: int = 4
    max_side: int = MAX_SIDE
    retries: int = 2
    describe_model: str | None = None
    """The step descriptions' model, when it is not `model` (MemGUI-Eval gives them a cheaper one)."""
    llm: bool = True
    """False (`--rules-only`): no model is asked, whatever the stages; a stage that needs one says so,
    and what rules can tell without one (a timeout's failure mode, a success's IRR) is still told."""

    @property
    def requested(self) -> list[str]:
        return expand_stages(self.stages if self.stages is not None else DEFAULT_STAGES)

    @property
    def escalate(self) -> bool:
        return self.stages is None

    def identity(self, llm_available: bool) -> dict[str, Any]:
        from guilens import __version__

        return {
            "verdict_schema": VERDICT_SCHEMA_VERSION,
            "judge_logic": JUDGE_LOGIC_VERSION,
            "guilens": __version__,
            "model": self.model,
            "stages": self.requested,
            "escalate": self.escalate,
            "segment": self.segment,
            "max_side": self.max_side,
            "retries": self.retries,
            "llm": llm_available,
            "prompts": {n: load_prompt(n).cache_id for n in PROMPT_NAMES},
            # only when set, so verdicts judged before the option existed keep their keys
            **({"describe_model": self.describe_model}
               if self.describe_model and self.describe_model != self.model else {}),
        }
