"""Plain-text descriptions of steps and episodes, shared by the headless printer and the screens.

Both show the same facts in the same words; only the styling differs, so the
wording lives here once. Two conventions every view follows through here:

- Steps are numbered as people count, from 1 (`step_number`): the status
  line, the trace, the replay, the report and the headless lines all say
  "step 1" for the first step. Files keep their 0-based indices (`index` in
  steps.jsonl, `screens/0000.png`), and so do the runner's events; only what a
  person reads is shifted, here.
- Time is shown by who spent it (`step_times`, `time_split`): the agent, a
  person acting, the user answering, the device; never one wall-clock figure
  that mixes a person's minutes into an agent's seconds.
"""

from __future__ import annotations

from typing import Any

from guilens.actions import ActionError, action_from_dict, to_command
from guilens.episode import Episode, Step, Timings


def step_number(index: int) -> int:
    """The number people read for the step at 0-based `index`: the first step is step 1."""
    return index + 1


def seconds(s: float) -> str:
    """A duration as people read it: `0.04s`, `1.2s`, `101s`."""
    if s < 0.095:
        return f"{s:.2f}s"
    if s < 9.95:
        return f"{s:.1f}s"
    return f"{s:.0f}s"


def step_times(step: Step) -> list[str]:
    """Who spent the step's time: `["agent 1.2s", "device 0.1s"]`, or `person 3.4s` on a person's
    step. The user's answering time belongs to the answer (`answer_time`). A step recorded before
    schema 2 has only its wall time, shown bare."""
    t = step.timings
    if t is None:
        return [seconds((step.ended_at - step.started_at).total_seconds())]
    bits = []
    if t.person_s or step.by == "human":
        bits.append(f"person {seconds(t.person_s)}")
    if t.agent_s or step.by != "human":
        bits.append(f"agent {seconds(t.agent_s)}")
    if t.device_s:
        bits.append(f"device {seconds(t.device_s)}")
    return bits


def answer_time(step: Step) -> str:
    """`answered in 5.0s` for a step whose `ask_user` was answered, else empty."""
    if step.ask is None or step.ask.answer is None or step.timings is None:
        return ""
    return f"answered in {seconds(step.timings.user_s)}"


def time_split(t: Timings) -> str:
    """An attempt's time by who spent it, non-zero buckets only: `agent 3.1s, user 5.0s, device 1.2s`."""
    parts = [(name, getattr(t, f"{name}_s")) for name in ("agent", "person", "user", "device")]
    return ", ".join(f"{name} {seconds(v)}" for name, v in parts if v)


def time_text(t: Timings) -> str:
    """The wall time and its split: `107.5s (agent 0.02s, person 101s, user 5.0s, device 1.2s)`."""
    split = time_split(t)
    wall = f"{t.duration_s:.1f}s" if t.duration_s is not None else "running"
    return wall + (f" ({split})" if split else "")


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


def retries_text(retries: list[Any]) -> str:
    """A step's retries and repairs in one line (`2 API retries (HTTP 529 ...), 1 repair (...)`), or ""."""
    if not retries:
        return ""
    out = []
    for kind, word in (("api", "API retry"), ("repair", "repair")):
        mine = [r for r in retries if r.kind == kind]
        if mine:
            causes = "; ".join(dict.fromkeys(short(r.cause, 60) for r in mine))
            noun = word if len(mine) == 1 else ("API retries" if kind == "api" else "repairs")
            out.append(f"{len(mine)} {noun} ({causes})")
    return ", ".join(out)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def outcome_bits(ep: Episode, answer_width: int = 40, milestones: str | None = None) -> list[str]:
    """The facts of a finished attempt: steps, milestones, user turns, answer, dollars, time.

    `milestones`: the count as the task's checklist reads it (`milestones 8/8`, an alternatives
    item once), where the caller knows the task; else the episode's own count of every milestone."""
    bits = [_plural(ep.steps, "step")]
    if ep.milestones_total:
        bits.append(milestones or f"milestones {len(ep.milestones)}/{ep.milestones_total}")
    if ep.user_turns:
        bits.append(_plural(ep.user_turns, "user turn"))
    if ep.final_answer:
        bits.append(f"answer {short(ep.final_answer, answer_width)!r}")
    if ep.cost_usd:
        bits.append(f"${ep.cost_usd:.4f}")
    if ep.timings.duration_s is not None:
        bits.append(time_text(ep.timings))
    return bits
