"""One episode of the HTML report: its trajectory, step by step, and the judge's stages.

Each episode is a `<section id="ep-...">` hidden until the address names it (`:target`), so the one
file holds every trajectory and opening `report.html#ep-note-2` shows that episode alone, with or
without scripts. A step is its screen (a thumbnail with the action drawn; the larger copy rides in
`data-full` and is decoded only when clicked) beside what the agent thought and did, its memory,
the milestones it reached, the user's turn and anything that went wrong. Steps are numbered from 1,
as everywhere a person reads them; the judge's 0-based step indexes are shown the same way.
"""

from __future__ import annotations

import json
import re

from guilens.episode import Memory, Step
from guilens.judge.html_assets import ScreenImages
from guilens.judge.html_charts import esc
from guilens.judge.report import EpisodeRow
from guilens.judge.verdict import StageResult, Verdict

OUTCOME = {True: "success", False: "failure", None: "undecided"}


def episode_id(task: str, attempt: int, scenario: str = "") -> str:
    """The anchor of an episode's section: `ep-<task>-<attempt>` (the scenario too when given)."""
    raw = f"{scenario}-{task}" if scenario else task
    return f"ep-{re.sub(r'[^A-Za-z0-9_.-]+', '-', raw).strip('-')}-{attempt}"


def _img(img: ScreenImages | None, alt: str) -> str:
    if img is None:
        return '<div class="noscreen">no screen recorded</div>'
    if img.error:
        return f'<div class="noscreen">{esc(img.error)}</div>'
    h = round(img.height * 180 / img.width) if img.width else 400
    return (f'<img class="thumb" loading="lazy" width="180" height="{h}" alt="{esc(alt)}" '
            f'src="{img.thumb_uri()}" data-full="{img.full_uri()}">')


def _memory(mem: Memory, changed: bool) -> str:
    parts = []
    if mem.stm:
        parts.append("<div><b>STM</b><ol>" + "".join(f"<li>{esc(s)}</li>" for s in mem.stm) + "</ol></div>")
    if mem.ltm:
        parts.append("<div><b>LTM</b><ul>" + "".join(
            f"<li><span class=app>{esc(e.app)}</span> {esc(e.content)} <span class=note>(step {e.step + 1})</span>"
            f"</li>" for e in mem.ltm) + "</ul></div>")
    if mem.history:
        parts.append("<div><b>history</b><ol>" + "".join(f"<li>{esc(h)}</li>" for h in mem.history) + "</ol></div>")
    if mem.lessons:
        parts.append("<div><b>lessons</b><ul>" + "".join(f"<li>{esc(s)}</li>" for s in mem.lessons) + "</ul></div>")
    if not parts:
        return ""
    what = " · ".join(f"{k} {n}" for k, n in (("STM", len(mem.stm)), ("LTM", len(mem.ltm)),
                                                ("history", len(mem.history))) if n)
    return (f'<details class="memory"{" open" if changed else ""}><summary>memory{" (changed)" if changed else ""}'
            f" · {esc(what or mem.strategy or 'lessons')}</summary>{''.join(parts)}</details>")


def _action(step: Step) -> str:
    a = step.action or {}
    raw = json.dumps({k: v for k, v in a.items() if k != "type"}, ensure_ascii=False) if a else ""
    kind = str(a.get("type", "none"))
    desc = step.action_description or raw
    return f'<span class="act">{esc(kind)}</span> {esc(desc)}'


def step_card(eid: str, step: Step, img: ScreenImages | None, milestones: dict[int, list[tuple[str, str]]],
              prev: Memory | None) -> str:
    """A step: its screen beside the thought, the action, the memory, milestones, the user turn, errors."""
    i = step.index
    lines = [f'<div class="head"><a href="#{eid}-s{i}">Step {i + 1}</a> {_action(step)}'
             f'{" <span class=human>by a person</span>" if step.by == "human" else ""}'
             f'<span class="note"> {esc(step.app)}{" · " + esc(step.clock.strftime("%a %H:%M")) if step.clock else ""}'
             f"</span></div>"]
    if step.thought:
        lines.append(f'<p class="thought">{esc(step.thought)}</p>')
    result = step.device_result or ""
    if result:
        lines.append(f'<div class="note">device: {esc(result)}</div>')
    for mid, text in milestones.get(i, []):
        lines.append(f'<div class="ms">✓ milestone <b>{esc(mid)}</b> {esc(text)}</div>')
    if step.ask is not None:
        lines.append(f'<div class="ask"><b>asked</b> {esc(step.ask.question)}<br><b>answer</b> '
                     f'{esc(step.ask.answer if step.ask.answer is not None else "(none)")} '
                     f'<span class="note">by {esc(step.ask.answered_by)}</span></div>')
    if step.error:
        lines.append(f'<div class="err">error: {esc(step.error)}</div>')
    for g in step.gaps:
        lines.append(f'<div class="err">device gap {g.seconds:.1f} s{" during " + esc(g.during) if g.during else ""}:'
                     f" {esc(g.message)} ({esc(g.outcome)})</div>")
    for anomaly in step.anomalies:
        lines.append(f'<div class="err">anomaly: {esc(anomaly.describe())}</div>')
    for note in step.annotations:
        lines.append(f'<div class="note">note: {esc(note)}</div>')
    u = step.usage
    if u.input_tokens or u.output_tokens or u.cost_usd:
        lines.append(f'<div class="note">{u.input_tokens} in / {u.output_tokens} out tokens, ${u.cost_usd:.4f}</div>')
    changed = prev is not None and prev.model_dump() != step.memory.model_dump()
    lines.append(_memory(step.memory, changed))
    return (f'<div class="step" id="{eid}-s{i}"><figure>{_img(img, f"step {i + 1}")}</figure>'
            f'<div class="sbody">{"".join(lines)}</div></div>')


def _step_links(eid: str, steps: list[int], final_index: int) -> str:
    def one(n: int) -> str:
        return (f'<a href="#{eid}-final">final</a>' if n >= final_index
                else f'<a href="#{eid}-s{n}">{n + 1}</a>')

    if len(steps) > 2 and steps == list(range(steps[0], steps[-1] + 1)):
        return f"{one(steps[0])}–{one(steps[-1])}"
    return " ".join(one(n) for n in steps)


def stage_rows(eid: str, stages: list[StageResult], final_index: int) -> str:
    rows = []
    for s in stages:
        extra = []
        if s.model:
            extra.append(esc(s.model))
        if s.calls:
            extra.append(f"{s.calls} calls ({s.cached_calls} cached), ${s.usage.cost_usd:.4f}")
        if s.duration_s:
            extra.append(f"{s.duration_s:.2f} s")
        errors = "".join(f'<div class="err">{esc(e)}</div>' for e in s.errors)
        runs = "".join(f'<div class="note">earlier run for {esc(r.purpose)}: {esc(r.status)}: {esc(r.reason)}</div>'
                       for r in s.runs)
        details = json.dumps(s.details, ensure_ascii=False, indent=1, default=str) if s.details else ""
        if len(details) > 4000:
            details = details[:4000] + "\n…"
        more = f"<details><summary>details</summary><pre>{esc(details)}</pre></details>" if details else ""
        rows.append(f'<tr><td>{esc(s.stage)}</td><td class="st-{esc(s.status)}">{esc(s.status)}</td>'
                    f'<td>{esc(s.decision or "")}</td><td class="reason">{esc(s.reason)}{errors}{runs}{more}</td>'
                    f"<td>{_step_links(eid, s.steps, final_index)}</td><td class=note>{' · '.join(extra)}</td></tr>")
    return ("<table class=stages><thead><tr><th>stage</th><th>status</th><th>decision</th><th>reason</th>"
            f"<th>steps looked at</th><th>spent</th></tr></thead><tbody>{''.join(rows)}</tbody></table>")


def _milestone_table(eid: str, verdict: Verdict | None, row: EpisodeRow) -> tuple[str, dict[int, list[tuple[str, str]]]]:
    """The milestones table, and the milestones reached at each step (the judge's if it judged them,
    else the runner's live hits)."""
    at: dict[int, list[tuple[str, str]]] = {}
    if verdict is not None and verdict.milestones:
        trs = []
        for m in verdict.milestones:
            if m.reached and m.step is not None:
                at.setdefault(m.step, []).append((m.id, m.text))
            state = {True: "reached", False: "not reached", None: "unknown"}[m.reached]
            where = f'<a href="#{eid}-s{m.step}">step {m.step + 1}</a>' if m.step is not None else ""
            trs.append(f"<tr><td>{esc(m.id)}</td><td class=ms-{state.replace(' ', '-')}>{state}</td><td>{where}</td>"
                       f"<td>{esc(m.by or '')}{' · flexible' if m.flexible else ''}</td><td>{esc(m.text)}</td></tr>")
        return ("<table><thead><tr><th>milestone</th><th>state</th><th>at</th><th>by</th><th>what</th></tr></thead>"
                f"<tbody>{''.join(trs)}</tbody></table>"), at
    ep = row.episode
    for h in ep.milestones if ep is not None else []:
        at.setdefault(h.step, []).append((h.id, h.text))
    return "", at


def episode_section(row: EpisodeRow, eid: str, images: list[ScreenImages | None], final: ScreenImages | None,
                    nav: tuple[str | None, str | None]) -> str:
    """The whole trajectory page of one attempt. `images[i]` is step i's screen (None: none recorded)."""
    r, ep, v = row.record, row.episode, row.verdict
    outcome = OUTCOME[r.success]
    name = f"{r.scenario}:{r.task}" if r.scenario else r.task
    prev, nxt = nav
    links = " ".join(x for x in (
        '<a href="#">← all episodes</a>',
        f'<a href="#{prev}">‹ previous</a>' if prev else "",
        f'<a href="#{nxt}">next ›</a>' if nxt else "") if x)
    facts: list[str] = [f"<span class={outcome}>{outcome}</span> ({esc(row.outcome_source)})",
                        f"{r.steps} steps" + (f" (golden {r.golden_steps})" if r.golden_steps else "")]
    if r.milestones:
        facts.append(f"milestones {sum(1 for m in r.milestones if m.reached)}/{len(r.milestones)}")
    if r.user_turns:
        facts.append(f"{r.user_turns} user turns")
    if r.duration_s is not None:
        facts.append(f"{r.duration_s:.1f} s")
    facts.append(f"agent ${r.agent_cost_usd:.4f}" + (f", judge ${r.judge_cost_usd:.4f}" if r.judged else ""))
    head = [f'<div class="nav">{links}</div><h2>{esc(name)} · attempt {r.attempt}</h2>',
            f'<div class="meta">{" · ".join(facts)}</div>']
    if row.instruction:
        head.append(f'<p class="instr">{esc(row.instruction)}</p>')
    if ep is not None and ep.final_answer:
        head.append(f'<div class="ask"><b>final answer</b> {esc(ep.final_answer)}</div>')
    if ep is not None and ep.error:
        head.append(f'<div class="err">error: {esc(ep.error)}</div>')
    ms_table, at = _milestone_table(eid, v, row)
    judge = ""
    if v is not None:
        warn = "".join(f'<div class="err">warning: {esc(w)}</div>' for w in v.warnings)
        judge = (f'<h3>Judge: {esc(v.decision)}{" by " + esc(v.decided_by) if v.decided_by else ""}</h3>'
                 f'<p class="reason">{esc(v.reason)}</p>{warn}{ms_table}'
                 f"{stage_rows(eid, v.stages, len(row.steps))}")
    else:
        judge = f"<h3>Judge</h3><p class=note>not judged (run <code>guilens judge</code>)</p>{ms_table}"
    prev_mem: Memory | None = None
    cards = []
    for step in row.steps:
        img = images[step.index] if 0 <= step.index < len(images) else None
        cards.append(step_card(eid, step, img, at, prev_mem))
        prev_mem = step.memory
    if row.final_screen:
        cards.append(f'<div class="step" id="{eid}-final"><figure>{_img(final, "final screen")}</figure>'
                     f'<div class="sbody"><div class="head"><a href="#{eid}-final">Final screen</a></div>'
                     f'<div class="note">after the last action; status {esc(r.status)}</div></div></div>')
    return (f'<section class="episode" id="{eid}">{"".join(head)}{judge}<h3>Trajectory</h3>'
            f'<div class="steps">{"".join(cards)}</div></section>')


