"""The judge's verdict: the final decision and every stage with its reason and the steps it
looked at. Stages still running show as pending, so a judgement can be watched as it goes."""

from __future__ import annotations

from typing import Any

from textual.content import Content
from textual.widgets import Static

from guilens.screens.widgets.render import short

STATUS_MARK = {
    "decided": ("●", "$success"),
    "undecided": ("◐", "$warning"),
    "done": ("✓", "$accent"),
    "skipped": ("–", "$text-muted"),
    "error": ("✗", "$error"),
    "pending": ("…", "$text-muted"),
    "running": ("◌", "$accent"),
}
DECISION_STYLE = {"success": "$success", "failure": "$error", "undecided": "$warning"}


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def steps_text(steps: list[int]) -> str:
    """`1-4, 8, 10` from the 0-based `[0, 1, 2, 3, 7, 9]`: steps as people count them."""
    if not steps:
        return ""
    s = sorted({n + 1 for n in steps})
    out, start, prev = [], s[0], s[0]
    for n in s[1:] + [None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        out.append(f"{start}-{prev}" if prev > start else str(start))
        if n is not None:
            start = prev = n
    return ", ".join(out)


def render_stage(stage: Any) -> Content:
    name = _get(stage, "stage", "?")
    status = _get(stage, "status", "pending")
    mark, style = STATUS_MARK.get(status, ("·", "$text"))
    decision = _get(stage, "decision")
    head = Content.from_markup(
        f"[b {style}]$m[/] [b]$name[/] [{style}]$status[/]",
        m=mark, name=f"{name:<10}", status=status + (f": {decision}" if decision else ""),
    )
    bits = []
    usage = _get(stage, "usage")
    cost = _get(usage, "cost_usd", 0.0) if usage is not None else 0.0
    calls = _get(stage, "calls", 0)
    if calls:
        cached = _get(stage, "cached_calls", 0)
        bits.append(f"{calls} call{'s' if calls != 1 else ''}" + (f" ({cached} cached)" if cached else ""))
    if cost:
        bits.append(f"${cost:.4f}")
    dur = _get(stage, "duration_s", 0.0)
    if dur:
        bits.append(f"{dur:.1f}s")
    if bits:
        head = head + Content.from_markup("  [$text-muted]$b[/]", b=" · ".join(bits))
    reason = _get(stage, "reason", "")
    if status == "skipped":  # one line: why it did not run
        return head + Content.from_markup("  [$text-muted]$r[/]", r=short(reason, 200)) if reason else head
    lines = [head]
    if reason:
        lines.append(Content.from_markup("    $r", r=short(reason, 500)))
    steps = _get(stage, "steps", []) or []
    if steps:
        lines.append(Content.from_markup("    [$text-muted]looked at steps $s[/]", s=steps_text(list(steps))))
    return Content("\n").join(lines)


def render_verdict(verdict: Any, pending: list[str] | None = None) -> Content:
    lines: list[Content] = []
    if verdict is not None:
        decision = _get(verdict, "decision", "undecided")
        by = _get(verdict, "decided_by")
        style = DECISION_STYLE.get(decision, "$text")
        lines.append(Content.from_markup(
            f"[b {style}]$d[/]" + (" [$text-muted]decided by $by[/]" if by else ""),
            d=decision.upper(), by=by or "",
        ))
        reason = _get(verdict, "reason", "")
        if reason:
            lines.append(Content(short(reason, 600)))
        extras = []
        progress = _get(verdict, "progress")
        if progress is not None:
            extras.append(f"progress {progress:.0%}")
        irr = _get(verdict, "irr")
        if irr is not None:
            extras.append(f"IRR {irr:.0%}")
        usage = _get(verdict, "usage")
        cost = _get(usage, "cost_usd", 0.0) if usage is not None else 0.0
        if cost:
            extras.append(f"${cost:.4f}")
        if extras:
            lines.append(Content.from_markup("[$text-muted]$e[/]", e=" · ".join(extras)))
        lines.append(Content(""))
        for stage in _get(verdict, "stages", []) or []:
            lines.append(render_stage(stage))
    for name in pending or []:
        lines.append(render_stage({"stage": name, "status": "pending"}))
    if not lines:
        return Content.from_markup("[$text-muted]not judged yet · j judges this episode[/]")
    return Content("\n").join(lines)


class VerdictView(Static):
    DEFAULT_CSS = """
    VerdictView { height: auto; padding: 0 1; }
    """

    def show(self, verdict: Any, pending: list[str] | None = None) -> None:
        self.update(render_verdict(verdict, pending))

    def show_stages(self, stages: list[Any], pending: list[str]) -> None:
        """Stages done so far (no final decision yet) and those still to come."""
        lines = [render_stage(s) for s in stages] + [render_stage({"stage": n, "status": "pending"}) for n in pending]
        self.update(Content("\n").join(lines) if lines else Content("judging…"))
