"""One table that turns run events into terminal text, for the live trace and the replay screen.

Each event type has one renderer (inspect_ai's transcript table), so a step
looks the same live and replayed. Colours are theme variables (`$accent`,
`$error`, ...) resolved by Textual, never fixed colours; text from the agent
or the device is passed as markup variables, so brackets in it stay text.

Events carry the runner's 0-based step indices; what is shown is the number
people count (`describe.step_number`: the first step is step 1), the same the
status line, the replay, the report and the headless lines show. A step's time
is shown by who spent it (agent, person, device; the user's on the answer).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from textual.content import Content

from guilens.describe import (
    action_text,
    answer_time,
    outcome_bits,
    retries_text,
    short,
    step_number,
    step_times,
)
from guilens.episode import Episode, Step

STATUS_STYLE = {
    "success": "$success",
    "failure": "$error",
    "error": "$error",
    "timeout": "$warning",
    "aborted": "$warning",
    "interrupted": "$warning",
    "blocked": "$warning",
    "running": "$accent",
}


def target_text(step: Step) -> str:
    t = step.target or {}
    label = t.get("label") or t.get("selector")
    if not label:
        return ""
    num = f"#{t['element']} " if t.get("element") is not None else ""
    return f"{num}{short(label, 40)}"


# -- events the trace shows besides steps ---------------------------------------------------------


@dataclass
class AttemptHeader:
    episode: Episode


@dataclass
class Question:
    question: str
    suggestion: str | None = None


@dataclass
class Reply:
    question: str
    answer: str
    answered_by: str


@dataclass
class Mark:
    label: str
    step: int
    """The 0-based index of the step it was marked at (shown as `step_number(step)`)."""


@dataclass
class Note:
    text: str
    severity: str = "information"


@dataclass
class Outcome:
    episode: Episode
    milestones: str | None = None
    """`milestones 8/8` as the checklist counts them (an alternatives item once), where the view
    knows the task; else the episode's own count of every milestone reached."""


def render_attempt(ev: AttemptHeader) -> Content:
    ep = ev.episode
    what = f"{ep.scenario}:{ep.task}" if ep.scenario else ep.task
    att = f"attempt {ep.attempt}/{ep.attempts}" if ep.attempts > 1 else ""
    return Content.from_markup(
        "[b $accent]▶ $what[/] [$text-muted]$level · $agent · $att[/]\n[i]$instruction[/]",
        what=what, level=ep.level, agent=ep.agent or "agent", att=att or ep.device,
        instruction=short(ep.instruction, 400),
    )


def render_step(step: Step, milestone_text: dict[str, str] | None = None) -> Content:
    """A step: header, thought, action and description, what the previous action did, the
    user turn, errors and milestones, one line each, skipping what is empty."""
    milestone_text = milestone_text or {}
    by = " [b $warning]human[/]" if step.by == "human" else ""
    clock = f" · {step.clock:%H:%M}" if step.clock else ""
    app = f" · {step.app}" if step.app else ""
    parts = [Content.from_markup(
        f"[b]step $n[/]{by} [$text-muted]· $secs$app$clock[/]",
        n=str(step_number(step.index)), secs=" · ".join(step_times(step)), app=app, clock=clock,
    )]
    if step.action_result:
        parts.append(Content.from_markup("  [$text-muted]↳ last action: $r[/]", r=short(step.action_result)))
    if step.thought:
        parts.append(Content.from_markup("  [i]$t[/]", t=short(step.thought, 600)))
    target = target_text(step)
    parts.append(Content.from_markup(
        "  [b $accent]→ $a[/]$tg",
        a=action_text(step.action), tg=f"  [{target}]" if target else "",
    ))
    same = {short(step.thought, 600).casefold(), action_text(step.action).casefold()}
    if step.action_description and short(step.action_description, 300).casefold() not in same:
        parts.append(Content.from_markup("    $d", d=short(step.action_description, 300)))
    if step.device_result and step.ask is None:
        parts.append(Content.from_markup("    [$text-muted]device: $r[/]", r=short(step.device_result)))
    if step.ask is not None:
        parts.append(Content.from_markup("  [b $text-secondary]? $q[/]", q=short(step.ask.question, 300)))
        if step.ask.answer is not None:
            sugg = ""
            if step.ask.suggested and step.ask.suggested != step.ask.answer:
                sugg = f" (suggested: {short(step.ask.suggested, 80)})"
            took = answer_time(step)
            parts.append(Content.from_markup(
                "  [$text-secondary]← $a[/] [$text-muted]$by$s[/]",
                a=short(step.ask.answer, 300), by=step.ask.answered_by + (f" {took}" if took else ""), s=sugg,
            ))
    if step.error:
        parts.append(Content.from_markup("  [b $error]✗ $e[/]", e=short(step.error, 400)))
    if step.usage.retries:  # faults survived are still faults: the record says what each call went through
        parts.append(Content.from_markup("  [$warning]↻ $r[/]", r=short(retries_text(step.usage.retries), 300)))
    for gap in step.gaps:  # the phone went away during this step: how long, and what became of it
        parts.append(Content.from_markup("  [b $warning]⚡ $g[/]", g=short(gap.describe(), 300)))
    for anomaly in step.anomalies:  # an ad, a permission dialog, low battery, a crash: seen here, or cleared
        parts.append(Content.from_markup("  [b $warning]⚠ $a[/]", a=anomaly.describe()))
    for mid in step.milestones:
        text = milestone_text.get(mid, "")
        parts.append(Content.from_markup("  [b $success]★ $id[/] $t", id=mid, t=short(text, 100)))
    for label in step.annotations:
        parts.append(Content.from_markup("  [b $warning]✎ $l[/]", l=short(label, 100)))
    return Content("\n").join(parts)


def render_question(ev: Question) -> Content:
    sugg = "\n  [$text-muted]suggested: $s[/]" if ev.suggestion else ""
    return Content.from_markup(f"[b $text-secondary]? the agent asks:[/] $q{sugg}", q=ev.question, s=ev.suggestion or "")


def render_reply(ev: Reply) -> Content:
    return Content.from_markup("[$text-secondary]← $a[/] [$text-muted]($by)[/]", a=ev.answer, by=ev.answered_by)


def render_mark(ev: Mark) -> Content:
    return Content.from_markup("[b $warning]✎ marked at step $n:[/] $l", n=str(step_number(ev.step)), l=ev.label)


def render_note(ev: Note) -> Content:
    style = {"error": "$error", "warning": "$warning"}.get(ev.severity, "$text-muted")
    return Content.from_markup(f"[{style}]$t[/]", t=ev.text)


def render_outcome(ev: Outcome) -> Content:
    ep = ev.episode
    style = STATUS_STYLE.get(ep.status, "$text")
    bits = outcome_bits(ep, answer_width=60, milestones=ev.milestones)
    err = "\n  [$error]$err[/]" if ep.error and ep.status != "success" else ""
    return Content.from_markup(f"[b {style}]■ $status[/] $bits{err}", status=ep.status,
                               bits=" · ".join(bits), err=short(ep.error, 300))


RENDERERS: list[tuple[type, Callable[[Any], Content]]] = [
    (Step, render_step),
    (AttemptHeader, render_attempt),
    (Question, render_question),
    (Reply, render_reply),
    (Mark, render_mark),
    (Note, render_note),
    (Outcome, render_outcome),
]


def render(event: Any) -> Content:
    for cls, fn in RENDERERS:
        if isinstance(event, cls):
            return fn(event)
    return Content(str(event))
