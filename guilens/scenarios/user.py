"""What the simulated user knows: the slots of the L0 intent, a profile, preferences, facts.

The oracle user answers `ask_user` from it (`UserKnowledge.answer`); the llm
user is told it; a person answering in the TUI is shown the oracle's suggestion.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Slot(_Strict):
    """A parameter of the L0 intent the L1/L2 instructions leave out.

    `keywords` help the oracle user tell which slot a question asks about; the
    slot's name (split on `_`) always counts as keywords.
    """

    value: str = Field(min_length=1)
    keywords: list[str] = Field(default_factory=list)
    description: str = ""


class UserKnowledge(_Strict):
    """What the simulated user knows and answers `ask_user` from; hidden from the agent."""

    slots: dict[str, Slot] = Field(default_factory=dict)
    profile: str = ""
    """Who the user is, in a few sentences (the llm user is told it)."""
    preferences: list[str] = Field(default_factory=list)
    facts: list[str] = Field(default_factory=list)
    """Other things the user would say if asked (a phone number, an address)."""

    @field_validator("slots", mode="before")
    @classmethod
    def _slot_shorthand(cls, v: Any) -> Any:
        if isinstance(v, dict):
            return {k: ({"value": str(s)} if isinstance(s, str | int | float) and not isinstance(s, bool) else s)
                    for k, s in v.items()}
        return v

    @property
    def values(self) -> dict[str, str]:
        return {k: s.value for k, s in self.slots.items()}

    def answer(self, question: str) -> str | None:
        """The slot value a question most likely asks for, or None if it names none.

        A slot scores 2 for each of its keywords in the question and 1 for each
        part of its name (`second_item` -> second, item), comparing word stems
        (`suggested` ~ `suggest`); the best score wins, ties go to the slot
        declared first. Used by the oracle user.
        """
        words = {_stem(w) for w in re.findall(r"[a-z0-9]+", question.casefold())}
        best, best_score = None, 0
        for name, slot in self.slots.items():
            score = 2 * sum(1 for k in slot.keywords if _phrase_in(k, words))
            score += sum(1 for part in name.split("_") if len(part) > 2 and _stem(part) in words)
            if score > best_score:
                best, best_score = slot.value, score
        return best


def _stem(w: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(w) > len(suffix) + 3 and w.endswith(suffix):
            return w[: -len(suffix)]
    return w


def _phrase_in(phrase: str, words: set[str]) -> bool:
    parts = re.findall(r"[a-z0-9]+", phrase.casefold())
    return bool(parts) and all(_stem(p) in words for p in parts)


def merge_user(shared: UserKnowledge, own: UserKnowledge) -> UserKnowledge:
    """Shared knowledge under a task's own; idempotent, so a dumped and reloaded scenario is unchanged."""
    profile = own.profile if shared.profile and shared.profile in own.profile else "\n".join(
        p for p in (shared.profile, own.profile) if p)
    return UserKnowledge(
        slots={**shared.slots, **own.slots},
        profile=profile,
        preferences=list(dict.fromkeys([*shared.preferences, *own.preferences])),
        facts=list(dict.fromkeys([*shared.facts, *own.facts])),
    )
