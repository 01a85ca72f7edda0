"""`guilens report RUN --html FILE`: one self-contained HTML file.

No scripts, no fonts, no external assets: the plots are inline SVG drawn here
(pass@k curve, SR by difficulty and by app count, the ATP distribution), so
the file opens anywhere, offline, and can be mailed or attached to a paper's
supplement. Each episode row links its screens by paths relative to the HTML
file, so the report and the run directory can move together.
"""

from __future__ import annotations

import html
import os
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote

from guilens.judge.report import RunReport, fmt_metric, headline, time_columns
from guilens.storage import StorageError, write_atomic

W, H = 360, 220
PAD_L, PAD_B, PAD_T, PAD_R = 44, 36, 40, 16
ACCENT = "#3b6fd8"


def _e(s: object) -> str:
    return html.escape(str(s), quote=True)


def _frame(title: str, body: str, y_labels: Sequence[tuple[float, str]]) -> str:
    ph = H - PAD_B - PAD_T
    grid = "".join(
        f'<line x1="{PAD_L}" x2="{W - PAD_R}" y1="{PAD_T + ph * (1 - f):.1f}" y2="{PAD_T + ph * (1 - f):.1f}" '
        f'stroke="#ddd"/><text x="{PAD_L - 6}" y="{PAD_T + ph * (1 - f) + 4:.1f}" text-anchor="end">{_e(t)}</text>'
        for f, t in y_labels
    )
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" width="{W}" height="{H}" '
            f'font-family="sans-serif" font-size="11" fill="#222" role="img" aria-label="{_e(title)}">'
            f'<rect width="{W}" height="{H}" fill="#fff"/>'
            f'<text x="{W / 2}" y="16" text-anchor="middle" font-weight="bold" font-size="12">{_e(title)}</text>'
            f"{grid}{body}</svg>")


_PCT_AXIS = [(f, f"{int(f * 100)}%") for f in (0, 0.25, 0.5, 0.75, 1.0)]


def bar_chart(title: str, items: list[tuple[str, float | None, int]]) -> str:
    """Bars of rates in 0..1, labelled with the value and how many tasks it is over; n/a bars are hollow."""
    if not items:
        return _frame(title, f'<text x="{W / 2}" y="{H / 2}" text-anchor="middle">no data</text>', _PCT_AXIS)
    pw, ph = W - PAD_L - PAD_R, H - PAD_B - PAD_T
    slot = pw / len(items)
    bw = min(48.0, slot * 0.6)
    out = []
    for i, (label, value, n) in enumerate(items):
        x = PAD_L + slot * i + (slot - bw) / 2
        cx = x + bw / 2
        if value is None:
            out.append(f'<rect x="{x:.1f}" y="{PAD_T + ph - 2}" width="{bw:.1f}" height="2" fill="#bbb"/>'
                       f'<text x="{cx:.1f}" y="{PAD_T + ph - 6}" text-anchor="middle">n/a</text>')
        else:
            h = ph * max(0.0, min(1.0, value))
            out.append(f'<rect x="{x:.1f}" y="{PAD_T + ph - h:.1f}" width="{bw:.1f}" height="{h:.1f}" '
                       f'fill="{ACCENT}"><title>{_e(label)}: {value * 100:.1f}% of {n}</title></rect>'
                       f'<text x="{cx:.1f}" y="{PAD_T + ph - h - 4:.1f}" text-anchor="middle">{value * 100:.0f}%</text>')
        out.append(f'<text x="{cx:.1f}" y="{H - PAD_B + 14}" text-anchor="middle">{_e(label)}</text>'
                   f'<text x="{cx:.1f}" y="{H - PAD_B + 27}" text-anchor="middle" fill="#777">n={n}</text>')
    return _frame(title, "".join(out), _PCT_AXIS)


def line_chart(title: str, points: list[tuple[int, float | None]]) -> str:
    """The pass@k curve: k on x, rate on y; points without a value are left out."""
    pw, ph = W - PAD_L - PAD_R, H - PAD_B - PAD_T
    ks = [k for k, _ in points]
    if not ks:
        return _frame(title, f'<text x="{W / 2}" y="{H / 2}" text-anchor="middle">no data</text>', _PCT_AXIS)
    span = max(1, max(ks) - min(ks))

    inset = 22.0  # keep the end points and their labels off the frame

    def xy(k: int, v: float) -> tuple[float, float]:
        x = PAD_L + inset + ((pw - 2 * inset) * (k - min(ks)) / span if len(ks) > 1 else (pw - 2 * inset) / 2)
        return x, PAD_T + ph * (1 - max(0.0, min(1.0, v)))

    pts = [(k, v) for k, v in points if v is not None]
    body = []
    if len(pts) > 1:
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in (xy(k, v) for k, v in pts))
        body.append(f'<polyline points="{path}" fill="none" stroke="{ACCENT}" stroke-width="2"/>')
    for k, v in pts:
        x, y = xy(k, v)
        body.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="{ACCENT}"><title>pass@{k}: {v * 100:.1f}%'
                    f'</title></circle><text x="{x:.1f}" y="{y - 7:.1f}" text-anchor="middle">{v * 100:.0f}%</text>')
    for k in ks:
        x, _ = xy(k, 0)
        body.append(f'<text x="{x:.1f}" y="{H - PAD_B + 14}" text-anchor="middle">k={k}</text>')
    return _frame(title, "".join(body), _PCT_AXIS)


def histogram(title: str, values: list[float], bins: int = 5) -> str:
    """Per-task progress in 0..1 in `bins` equal bins (the last one closed: 1.0 falls in it)."""
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, max(0, int(v * bins)))] += 1
    top = max(counts) if values else 1
    pw, ph = W - PAD_L - PAD_R, H - PAD_B - PAD_T
    slot = pw / bins
    body = []
    for i, c in enumerate(counts):
        h = ph * c / top if top else 0
        x = PAD_L + slot * i + 2
        body.append(f'<rect x="{x:.1f}" y="{PAD_T + ph - h:.1f}" width="{slot - 4:.1f}" height="{h:.1f}" '
                    f'fill="{ACCENT}"><title>{c} tasks</title></rect>'
                    f'<text x="{x + (slot - 4) / 2:.1f}" y="{PAD_T + ph - h - 4:.1f}" text-anchor="middle">{c}</text>'
                    f'<text x="{x + (slot - 4) / 2:.1f}" y="{H - PAD_B + 14}" text-anchor="middle">'
                    f"{int(100 * i / bins)}-{int(100 * (i + 1) / bins)}%</text>")
    axis: list[tuple[float, str]] = [(f, str(round(top * f, 1)).removesuffix(".0")) for f in (0.0, 0.5, 1.0)]
    if not values:
        axis = [(0.0, "0")]
    if not values:
        body.append(f'<text x="{W / 2}" y="{H / 2}" text-anchor="middle">no judged milestones</text>')
    return _frame(title, "".join(body), axis)


def _link(target: Path, base: Path, text: str) -> str:
    rel = os.path.relpath(target, base)
    return f'<a href="{quote(Path(rel).as_posix())}">{_e(text)}</a>'


CSS = """
body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1400px}
h1{font-size:20px;margin:0 0 4px} h2{font-size:16px;margin:28px 0 8px}
.meta{color:#555;margin-bottom:16px} .plots{display:flex;flex-wrap:wrap;gap:16px}
.plots svg{border:1px solid #e3e3e3;border-radius:6px;background:#fff}
table{border-collapse:collapse;font-size:13px} td,th{padding:4px 8px;border-bottom:1px solid #eee;text-align:left;
vertical-align:top} th{background:#f5f5f7} td.num{text-align:right;font-variant-numeric:tabular-nums}
.success{color:#137a2c;font-weight:600} .failure{color:#b3261e;font-weight:600} .undecided{color:#a06800}
.note{color:#666} details summary{cursor:pointer;color:#3b6fd8} .reason{max-width:420px;color:#444}
"""


def render_html(report: RunReport, out_file: Path) -> str:
    m = report.metrics()
    base = out_file.resolve().parent
    run = report.run
    title = f"guilens report: {run.get('run_id') or run.get('id') or report.root.name}"
    meta = " &middot; ".join(_e(f"{k}: {run[k]}") for k in ("agent", "model", "device", "level", "user", "started_at")
                             if run.get(k))
    k = m["attempts"]
    plots = [
        line_chart("pass@k", [(int(kk), v["value"]) for kk, v in m["pass_at_k"].items()]),
        bar_chart("SR by difficulty", [(n, g["sr"]["value"], g["tasks"]) for n, g in m["by_difficulty"].items()]),
        bar_chart("SR by number of apps", [(f"{n} app{'s' if n != '1' else ''}", g["sr"]["value"], g["tasks"])
                                           for n, g in m["by_apps"].items()]),
        bar_chart("SR, memory vs standard", [(n, g["sr"]["value"], g["tasks"]) for n, g in m["by_memory"].items()]),
        histogram("ATP distribution (per task)", m["atp_distribution"]),
    ]
    metric_rows = "".join(
        f"<tr><td>{_e(label)}</td><td class=num>{_e(fmt_metric(m[key], kind))}</td>"
        f"<td class=num>{_e(m[key].get('n', ''))}</td><td class=note>{_e(m[key].get('note', ''))}</td></tr>"
        for key, label, kind in headline(m)
    )
    passk = "".join(f"<th>pass@{_e(kk)}</th>" for kk in m["pass_at_k"])
    passv = "".join(f"<td class=num>{_e(fmt_metric(v, 'pct'))}</td>" for v in m["pass_at_k"].values())
    groups = []
    for key, label in (("by_difficulty", "difficulty"), ("by_apps", "apps"), ("by_memory", "memory")):
        rows = "".join(f"<tr><td>{_e(n)}</td><td class=num>{g['tasks']}</td><td class=num>"
                       f"{_e(fmt_metric(g['sr'], 'pct'))}</td><td class=num>{_e(fmt_metric(g[f'pass@{k}'], 'pct'))}"
                       f"</td></tr>" for n, g in m[key].items())
        groups.append(f"<table><tr><th>{_e(label)}</th><th>tasks</th><th>SR</th><th>pass@{k}</th></tr>{rows}</table>")
    times = time_columns(report.records)
    time_heads = "".join(f"<th>{_e(head)}</th>" for head, _ in times)
    ep_rows = []
    for row in report.rows:
        r = row.record
        cls = {True: "success", False: "failure", None: "undecided"}[r.success]
        screens = [_link(row.dir / s, base, Path(s).stem) for s in row.screens]
        if row.final_screen:
            screens.append(_link(row.dir / row.final_screen, base, "final"))
        first = screens[0] if screens else "-"
        final = _link(row.dir / row.final_screen, base, "final screen") if row.final_screen else ""
        all_screens = (f"<details><summary>{len(screens)} screens</summary>{' '.join(screens)}</details>"
                       if screens else "")
        ms = f"{sum(1 for x in r.milestones if x.reached)}/{len(r.milestones)}" if r.milestones else "-"
        reason = row.verdict.reason if row.verdict is not None else ""
        secs = [fn(r) for _, fn in times]
        time_cells = "".join(f"<td class=num>{'-' if v is None else f'{v:.2f} s'}</td>" for v in secs)
        ep_rows.append(
            f"<tr><td>{_link(row.dir, base, f'{r.scenario}:{r.task}' if r.scenario else r.task)}</td>"
            f"<td class=num>{r.attempt}</td><td class={cls}>{cls}</td><td>{_e(row.outcome_source)}</td>"
            f"<td class=num>{r.steps}{'/' + str(r.golden_steps) if r.golden_steps else ''}</td><td class=num>{ms}</td>"
            f"<td class=num>{r.user_turns}</td>"
            f"<td class=num>{'-' if r.duration_s is None else f'{r.duration_s:.1f} s'}</td>"
            f"{time_cells}"
            f"<td class=num>{r.agent_cost_usd:.4f}</td><td class=num>{f'{r.judge_cost_usd:.4f}' if r.judged else '-'}</td>"
            f"<td>{first} {final}{all_screens}</td><td class=reason>{_e(reason)}</td></tr>"
        )
    problems = "".join(f"<li>{_e(p)}</li>" for p in report.problems)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{_e(title)}</title><style>{CSS}</style></head>
<body>
<h1>{_e(title)}</h1>
<div class="meta">{meta}<br>{m['episodes']} episodes, {m['tasks']} tasks ({m['memory_tasks']} memory,
{m['standard_tasks']} standard), up to {k} attempts, {m['undecided']} undecided.
Agent ${m['agent_cost_usd']:.4f}, judge ${m['judge_cost_usd']:.4f}.</div>
<div class="plots">{''.join(plots)}</div>
<h2>Metrics</h2>
<table><tr><th>metric</th><th>value</th><th>over</th><th>note</th></tr>{metric_rows}</table>
<h2>pass@k</h2><table><tr>{passk}</tr><tr>{passv}</tr></table>
<h2>Success by group</h2><div class="plots">{''.join(groups)}</div>
<h2>Episodes</h2>
<table><tr><th>task</th><th>attempt</th><th>outcome</th><th>decided by</th><th>steps</th><th>milestones</th>
<th>user turns</th><th>time</th>{time_heads}<th>agent $</th><th>judge $</th><th>screens</th><th>reason</th></tr>
{''.join(ep_rows)}</table>
{f'<h2>Skipped</h2><ul>{problems}</ul>' if problems else ''}
</body></html>
"""


def write_html(report: RunReport, out_file: str | Path) -> Path:
    """Write the report to `out_file` atomically; `StorageError` names the file that could not be written."""
    out = Path(out_file)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise StorageError.of(out.parent, err) from None
    write_atomic(out, render_html(report, out))
    return out


__all__ = ["bar_chart", "histogram", "line_chart", "render_html", "write_html"]
