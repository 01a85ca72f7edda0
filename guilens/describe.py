"""Plain-text descriptions of steps and episodes, shared by the headless printer and the screens.

Both show the same facts in the same words; only the styling differs, so the
wording lives here once.
"""

from __future__ import annotations

from typing import Any

from guilens.actions import ActionError, action_from_dict, to_command
from guilens.episode import Episode


def short(text: str | None, n: int = 200) -> str:
    """`text` on one line, cut to `n` characters with an ellipsis."""
    text = " ".join(str(text or "").split())
    return text if len(text) <= n else text[: n - 1] + "…"


def action_text(action: dict[str, Any] | None) -> str:
    """An action in the short command form people type (`tap 540 1200`, `type hello`)."""
    if not action:
        return "(no action)"
    try:
        return to_command(action_from_dict(action))
    except ActionError:
        return str(action.get("type", "?"))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def outcome_bits(ep: Episode, answer_width: int = 40) -> list[str]:
    """The facts of a finished attempt: steps, milestones, user turns, answer, dollars, time."""
    bits = [_plural(ep.steps, "step")]
    if ep.milestones_total:
        bits.append(f"milestones {len(ep.milestones)}/{ep.milestones_total}")
    if ep.user_turns:
        bits.append(_plural(ep.user_turns, "user turn"))
    if ep.final_answer:
        bits.append(f"answer {short(ep.final_answer, answer_width)!r}")
    if ep.cost_usd:
        bits.append(f"${ep.cost_usd:.4f}")
    if ep.timings.duration_s is not None:
        bits.append(f"{ep.timings.duration_s:.1f} s")
    return bits
