"""The parts of a task that stand alone: its instruction at three levels, its memory kind and
MemGUI-Bench's step budget (kept apart from `guilens.scenarios.model` so that module stays about
the task and scenario themselves)."""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from guilens.scenarios.spec_reference import LEVELS, Level

MemoryKind = Literal["none", "cross-temporal", "cross-app"]


def budget_for(golden_steps: int) -> int:
    """MemGUI-Bench's step budget: floor(1.4 x golden + 1)."""
    return math.floor(golden_steps * 1.4 + 1)


class Instructions(BaseModel):
    """The task at three ambiguity levels (ScenDroid): L0 precise (the oracle intent),
    L1 with a parameter left out, L2 an indirect intent. L1 and L2 must be resolvable
    by asking the user; tasks imported from real-device benchmarks may have L0 only."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    L0: str = Field(min_length=1)
    L1: str | None = Field(default=None, min_length=1)
    L2: str | None = Field(default=None, min_length=1)

    @property
    def levels(self) -> list[Level]:
        return [lv for lv in LEVELS if getattr(self, lv)]

    def at(self, level: str) -> str:
        text = getattr(self, level, None) if level in LEVELS else None
        if not text:
            raise KeyError(f"no {level} instruction (this task has {', '.join(self.levels)})")
        return text
