"""`guilens report RUN --html FILE`: one self-contained HTML file that is a viewer of the run.

The file needs nothing but itself: the plots are inline SVG (`html_charts`), every screen is
embedded as a small WebP with its action drawn (`html_assets`), and the style and the few lines of
script are inline (`html_static`). It opens offline, can be mailed or attached to a paper's
supplement, and moves without the run directory (the folder links are relative, for whoever has it).

The page is an overview (plots, metrics, an episode table to sort and filter) and, hidden below it,
one section per episode (`html_trajectory`): `report.html#ep-<task>-<attempt>` opens on it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

from guilens.judge.html_assets import ScreenImages, ScreenJob, render_screens
from guilens.judge.html_charts import (
    attempt_grid,
    bar_chart,
    cost_bars,
    esc,
    histogram,
    line_chart,
    milestone_reach,
    steps_vs_golden,
)
from guilens.judge.html_static import CSS, JS
from guilens.judge.html_trajectory import OUTCOME, episode_id, episode_section
from guilens.judge.report import EpisodeRow, RunReport
from guilens.judge.report_text import fmt_metric, headline, run_modes, time_columns
from guilens.storage import StorageError, write_atomic


def _link(target: Path, base: Path, text: str) -> str:
    rel = os.path.relpath(target, base)
    return f'<a href="{quote(Path(rel).as_posix())}">{esc(text)}</a>'


def _name(row: EpisodeRow) -> str:
    r = row.record
    return f"{r.scenario}:{r.task}" if r.scenario else r.task


def episode_ids(rows: list[EpisodeRow]) -> list[str]:
    """Each row's anchor: `ep-<task>-<attempt>`, with the scenario only where a task name recurs in two."""
    seen: dict[tuple[str, int], int] = {}
    for row in rows:
        seen[(row.record.task, row.record.attempt)] = seen.get((row.record.task, row.record.attempt), 0) + 1
    return [episode_id(r.record.task, r.record.attempt,
                       r.record.scenario if seen[(r.record.task, r.record.attempt)] > 1 else "") for r in rows]


def _screens(rows: list[EpisodeRow], workers: int | None) -> list[tuple[list[ScreenImages | None], ScreenImages | None]]:
    """Every row's step screens (by step index) and final screen, made in one pool."""
    jobs: list[ScreenJob] = []
    where: list[tuple[int, int]] = []  # (row, step index or -1 for the final screen)
    for n, row in enumerate(rows):
        for step in row.steps:
            if step.screen:
                jobs.append(ScreenJob(row.dir / step.screen, step.action))
                where.append((n, step.index))
        if row.final_screen:
            jobs.append(ScreenJob(row.dir / row.final_screen, None))
            where.append((n, -1))
    made = render_screens(jobs, workers)
    out: list[tuple[list[ScreenImages | None], ScreenImages | None]] = [
        ([None] * (max((s.index for s in row.steps), default=-1) + 1), None) for row in rows]
    for (n, i), img in zip(where, made, strict=True):
        if i < 0:
            out[n] = (out[n][0], img)
        elif i < len(out[n][0]):
            out[n][0][i] = img
    return out


def _plots(report: RunReport, m: dict[str, Any], ids: list[str]) -> list[str]:
    """The overview's plots; `m` is `report.metrics()`, computed once for the whole page."""
    rows = report.rows
    one = len({r.record.scenario for r in rows}) <= 1

    def label(r: EpisodeRow) -> str:
        return r.record.task if one else _name(r)

    tasks = list(dict.fromkeys(label(r) for r in rows))
    cells = {(label(r), r.record.attempt): (r.record.success, f"#{eid}",
                                            f"{_name(r)} attempt {r.record.attempt}: {OUTCOME[r.record.success]}, "
                                            f"{r.record.steps} steps") for r, eid in zip(rows, ids, strict=True)}
    cost: dict[str, list[float]] = {}
    for r in rows:
        c = cost.setdefault(label(r), [0.0, 0.0])
        c[0] += r.record.agent_cost_usd
        c[1] += r.record.judge_cost_usd
    positions: list[list[int]] = []
    for r in rows:
        for i, ms in enumerate(r.record.milestones):
            while len(positions) <= i:
                positions.append([0, 0])
            if ms.reached is not None:
                positions[i][0] += int(ms.reached)
                positions[i][1] += 1
    return [
        line_chart("pass@k", [(int(kk), v["value"]) for kk, v in m["pass_at_k"].items()]),
        bar_chart("SR by difficulty", [(n, g["sr"]["value"], g["tasks"]) for n, g in m["by_difficulty"].items()]),
        bar_chart("SR by number of apps", [(f"{n} app{'s' if n != '1' else ''}", g["sr"]["value"], g["tasks"])
                                           for n, g in m["by_apps"].items()]),
        bar_chart("SR, memory vs standard", [(n, g["sr"]["value"], g["tasks"]) for n, g in m["by_memory"].items()]),
        histogram("ATP distribution (per task)", m["atp_distribution"]),
        steps_vs_golden("Steps against golden", [(f"{_name(r)} #{r.record.attempt}", r.record.golden_steps or 0,
                                                  r.record.steps, r.record.success) for r in rows]),
        cost_bars("Cost by task (agent + judge)", [(t, a, j) for t, (a, j) in cost.items()]),
        milestone_reach("Milestone reach by position", [(a, b) for a, b in positions]),
        attempt_grid("Task × attempt", tasks, max((r.record.attempt for r in rows), default=1), cells),
    ]


def _episode_table(report: RunReport, ids: list[str], base: Path) -> str:
    times = time_columns(report.records)
    time_heads = "".join(f"<th>{esc(head)}</th>" for head, _ in times)
    trs = []
    for row, eid in zip(report.rows, ids, strict=True):
        r = row.record
        cls = OUTCOME[r.success]
        ms = f"{sum(1 for x in r.milestones if x.reached)}/{len(r.milestones)}" if r.milestones else "-"
        reason = esc(row.verdict.reason) if row.verdict is not None else ""
        if row.verdict is not None and row.verdict.failure_mode:  # the mode first: the filter finds it
            steps = ", ".join(map(str, row.verdict.failure_steps))
            reason = (f"<b>{esc(row.verdict.failure_mode)}</b>{f' (steps {esc(steps)})' if steps else ''}: "
                      f"{reason}")
        time_cells = "".join(f"<td class=num>{'-' if v is None else f'{v:.2f} s'}</td>" for v in
                             (fn(r) for _, fn in times))
        trs.append(
            f'<tr data-outcome="{cls}"><td><a href="#{eid}">{esc(_name(row))}</a></td>'
            f"<td class=num>{r.attempt}</td><td class={cls}>{cls}</td><td>{esc(row.outcome_source)}</td>"
            f"<td class=num>{r.steps}{'/' + str(r.golden_steps) if r.golden_steps else ''}</td><td class=num>{ms}</td>"
            f"<td class=num>{r.user_turns}</td>"
            f"<td class=num>{'-' if r.duration_s is None else f'{r.duration_s:.1f} s'}</td>{time_cells}"
            f"<td class=num>{r.agent_cost_usd:.4f}</td><td class=num>{f'{r.judge_cost_usd:.4f}' if r.judged else '-'}"
            f"</td><td>{_link(row.dir, base, 'folder')}</td><td class=reason>{reason}</td></tr>")
    options = "".join(f'<option value="{o}">{o}</option>' for o in ("success", "failure", "undecided"))
    return (f'<div class="filters"><input id="filter" type="search" placeholder="filter: task, reason, …" '
            f'aria-label="filter episodes"><select id="outcome" aria-label="outcome"><option value="">any outcome'
            f'</option>{options}</select><span class="note"><span id="shown">{len(trs)}</span> of {len(trs)} shown; '
            f"click a header to sort, a task to open its trajectory</span></div>"
            '<table id="episodes" class="sortable"><thead><tr><th>task</th><th>attempt</th><th>outcome</th>'
            f"<th>decided by</th><th>steps</th><th>milestones</th><th>user turns</th><th>time</th>{time_heads}"
            f"<th>agent $</th><th>judge $</th><th>files</th><th>reason</th></tr></thead>"
            f"<tbody>{''.join(trs)}</tbody></table>")


def _failure_modes(report: RunReport) -> str:
    """MemGUI-Bench's failure analysis (A.8): failed attempts by mode, and by task property."""
    from guilens.judge.failure_summary import APART_LABELS, PROPERTIES, SHORT

    fm = report.failure_modes()
    if not fm["failures"]:
        return ""
    modes = fm["modes"]
    chart = bar_chart("Failure modes (share of classified failures)",
                      [(SHORT[m], fm["share"][m], c) for m, c in modes.items()])
    rows = "".join(f"<tr><td>{esc(m)}</td><td class=num>{c}</td><td class=num>"
                   f"{fmt_metric({'value': fm['share'][m]}, 'pct')}</td></tr>" for m, c in modes.items())
    rows += "".join(f"<tr><td class=note>{esc(APART_LABELS[m])}</td><td class=num>{c}</td><td></td></tr>"
                    for m, c in fm["not_classified"].items() if c)
    shown = [m for m, c in modes.items() if c]
    apart = [m for m, c in fm["not_classified"].items() if c]
    tables = [f"<table><tr><th>mode</th><th>failures</th><th>share</th></tr>{rows}</table>"]
    for key, (label, _) in PROPERTIES.items():
        head = "".join(f"<th title=\"{esc(m)}\">{esc(SHORT[m])}</th>" for m in shown) + "".join(
            f"<th>{esc(APART_LABELS[m])}</th>" for m in apart)
        body = "".join(
            f"<tr><td>{esc(name)}</td><td class=num>{g['failures']}</td>"
            + "".join(f"<td class=num>{g['modes'][m]}</td>" for m in shown)
            + "".join(f"<td class=num>{g['not_classified'][m]}</td>" for m in apart) + "</tr>"
            for name, g in fm[key].items())
        tables.append(f"<table><tr><th>{esc(label)}</th><th>failures</th>{head}</tr>{body}</table>")
    return (f"<h2>Failure modes</h2><p class=note>{fm['failures']} failed attempts, {fm['classified']} classified "
            f"into MemGUI-Bench's modes.</p><div class=\"plots\">{chart}{''.join(tables)}</div>")


def render_html(report: RunReport, out_file: Path, workers: int | None = None) -> str:
    """The page. `workers`: processes making the screens (None: one per core for a large run)."""
    m = report.metrics()
    base = out_file.resolve().parent
    run = report.run
    title = f"guilens report: {run.get('run_id') or run.get('id') or report.root.name}"
    meta = " &middot; ".join([esc(f"{k}: {run[k]}") for k in ("agent", "model", "device", "level", "user",
                                                              "started_at") if run.get(k)]
                             + [esc(mode) for mode in run_modes(run)])
    k = m["attempts"]
    ids = episode_ids(report.rows)
    metric_rows = "".join(
        f"<tr><td>{esc(label)}</td><td class=num>{esc(fmt_metric(m[key], kind))}</td>"
        f"<td class=num>{esc(m[key].get('n', ''))}</td><td class=note>{esc(m[key].get('note', ''))}</td></tr>"
        for key, label, kind in headline(m))
    passk = "".join(f"<th>pass@{esc(kk)}</th>" for kk in m["pass_at_k"])
    passv = "".join(f"<td class=num>{esc(fmt_metric(v, 'pct'))}</td>" for v in m["pass_at_k"].values())
    groups = []
    for key, label in (("by_difficulty", "difficulty"), ("by_apps", "apps"), ("by_memory", "memory")):
        rows = "".join(f"<tr><td>{esc(n)}</td><td class=num>{g['tasks']}</td><td class=num>"
                       f"{esc(fmt_metric(g['sr'], 'pct'))}</td><td class=num>{esc(fmt_metric(g[f'pass@{k}'], 'pct'))}"
                       f"</td></tr>" for n, g in m[key].items())
        groups.append(f"<table><tr><th>{esc(label)}</th><th>tasks</th><th>SR</th><th>pass@{k}</th></tr>{rows}</table>")
    screens = _screens(report.rows, workers)
    sections = []
    for n, (row, eid) in enumerate(zip(report.rows, ids, strict=True)):
        steps, final = screens[n]
        nav = (ids[n - 1] if n > 0 else None, ids[n + 1] if n + 1 < len(ids) else None)
        sections.append(episode_section(row, eid, steps, final, nav))
    made = [img for steps, final in screens for img in (*steps, final) if img is not None and not img.error]
    size = sum(len(img.thumb) + len(img.full) for img in made)
    problems = "".join(f"<li>{esc(p)}</li>" for p in report.problems)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{esc(title)}</title>
<meta name="viewport" content="width=device-width,initial-scale=1"><style>{CSS}</style></head>
<body>
<div id="overview">
<h1>{esc(title)}</h1>
<div class="meta">{meta}<br>{m['episodes']} episodes, {m['tasks']} tasks ({m['memory_tasks']} memory,
{m['standard_tasks']} standard), up to {k} attempts, {m['undecided']} undecided.
Agent ${m['agent_cost_usd']:.4f}, judge ${m['judge_cost_usd']:.4f}.</div>
<div class="plots">{''.join(_plots(report, m, ids))}</div>
<h2>Metrics</h2>
<table><tr><th>metric</th><th>value</th><th>over</th><th>note</th></tr>{metric_rows}</table>
<h2>pass@k</h2><table><tr>{passk}</tr><tr>{passv}</tr></table>
<h2>Success by group</h2><div class="plots">{''.join(groups)}</div>
{_failure_modes(report)}
<h2>Episodes</h2>
{_episode_table(report, ids, base)}
{f'<h2>Skipped</h2><ul>{problems}</ul>' if problems else ''}
<p class="note">{len(made)} screens embedded ({size / 1e6:.1f} MB of WebP), each with its action drawn.</p>
</div>
{''.join(sections)}
<dialog id="zoom"><img alt=""></dialog>
<script>{JS}</script>
</body></html>
"""


def write_html(report: RunReport, out_file: str | Path, workers: int | None = None) -> Path:
    """Write the report to `out_file` atomically; `StorageError` names the file that could not be written."""
    out = Path(out_file)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise StorageError.of(out.parent, err) from None
    write_atomic(out, render_html(report, out, workers))
    return out


__all__ = ["bar_chart", "episode_ids", "histogram", "line_chart", "render_html", "write_html"]
