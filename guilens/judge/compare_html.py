"""`guilens compare ... --html FILE`: the comparison as one self-contained page.

It wears the run report's style (`html_static.CSS`, its sortable tables and script) and escapes
with the report's `esc`, so both pages read alike; it embeds no screens (each run's own report has
them) and fetches nothing. Links to the runs and their attempt folders are relative to the page,
for whoever has the runs beside it.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import quote

from guilens.judge.compare import (
    Comparison,
    cell_text,
    change,
    fmt_delta,
    fmt_p,
    verdict_of,
)
from guilens.judge.html_charts import esc
from guilens.judge.html_static import CSS, JS
from guilens.judge.report_text import fmt_metric
from guilens.storage import StorageError, write_atomic

EXTRA_CSS = """
.better{color:#137a2c;font-weight:600} .worse{color:#b3261e;font-weight:600} .same{color:#888}
.missing{color:#999;font-style:italic} .moved{font-size:11px;margin-left:6px}
td.success a,td.failure a{color:inherit}
"""
"""Deltas coloured by sign in the metric's direction: green better, red worse (a rise in SR, a fall in cost)."""

OUTCOME_CLASS = {True: "success", False: "failure", None: "undecided"}


def _href(target: str | Path, base: Path) -> str:
    return quote(Path(os.path.relpath(Path(target).resolve(), base)).as_posix())


def _letters(n: int) -> list[str]:
    return [chr(ord("A") + i) if i < 26 else str(i + 1) for i in range(n)]


def _runs(comp: Comparison, base: Path, letters: list[str]) -> str:
    rows = []
    for letter, side in zip(letters, comp.sides, strict=True):
        m = side.metrics
        role = " (baseline)" if side is comp.sides[0] else ""
        rows.append(f"<tr><td><b>{letter}</b></td><td>{esc(side.name)}{role}</td><td class=num>{m['episodes']}</td>"
                    f"<td class=num>{m['tasks']}</td><td class=num>{side.report.k}</td>"
                    f"<td class=num>{m['undecided']}</td>"
                    f'<td><a href="{_href(side.report.root, base)}">{esc(side.report.root)}</a></td></tr>')
    return ("<table id=runs><tr><th></th><th>run (agent, model)</th><th>episodes</th><th>tasks</th><th>k</th>"
            f"<th>undecided</th><th>folder</th></tr>{''.join(rows)}</table>")


def _metrics(comp: Comparison, letters: list[str]) -> str:
    heads = "".join(f"<th>{letter}</th>" + (f"<th>&Delta; {letter}</th>" if i else "")
                    for i, letter in enumerate(letters))
    rows = []
    for mr in comp.metrics:
        cols = []
        for i, (v, d) in enumerate(zip(mr.values, mr.deltas, strict=True)):
            cols.append(f'<td class=num title="{esc(v.get("note", ""))}">{esc(fmt_metric(v, mr.kind))}</td>')
            if i:
                cols.append(f"<td class='num {verdict_of(d, mr.better)}'>{esc(fmt_delta(d, mr.kind))}</td>")
        rows.append(f"<tr><td>{esc(mr.label)}</td>{''.join(cols)}</tr>")
    return f"<table id=metrics><tr><th>metric</th>{heads}</tr>{''.join(rows)}</table>"


def _tests(comp: Comparison, letters: list[str]) -> str:
    rows = []
    for o, test in zip(letters[1:], comp.tests, strict=True):  # one test per run after the baseline
        rows.append(f"<tr><td>{o} against {letters[0]}</td><td class=num>{test.n}</td><td class=num>{test.b}</td>"
                    f"<td class=num>{test.c}</td><td class=num>{esc(fmt_p(test.p_value))}</td>"
                    f"<td class=num>{test.left_out}</td></tr>")
    return ("<table id=mcnemar><tr><th>pair</th><th>n shared</th><th>b (baseline ✓, run ✗)</th>"
            "<th>c (baseline ✗, run ✓)</th><th>p (exact, two-sided)</th><th>undecided, left out</th></tr>"
            f"{''.join(rows)}</table>")


def _tasks(comp: Comparison, base: Path, letters: list[str]) -> str:
    trs = []
    for row in comp.tasks:
        tds = []
        for i, cell in enumerate(row.cells):
            if cell is None:
                tds.append("<td class=missing>missing</td>")
                continue
            moved = change(row.cells[0], cell) if i else ""
            tag = f"<span class='moved {'better' if moved == 'gained' else 'worse'}'>{moved}</span>" if moved else ""
            link = f'<a href="{_href(cell.paths[0], base)}">{esc(cell_text(cell))}</a>' if cell.paths else esc(
                cell_text(cell))
            tds.append(f"<td class={OUTCOME_CLASS[cell.first]}>{link}{tag}</td>")
        trs.append(f"<tr><td>{esc(comp.task_name(row))}</td>{''.join(tds)}</tr>")
    heads = "".join(f"<th>{letter}</th>" for letter in letters)
    return (f'<table id="tasks" class="sortable"><thead><tr><th>task</th>{heads}</tr></thead>'
            f"<tbody>{''.join(trs)}</tbody></table>")


def render_compare_html(comp: Comparison, out_file: Path) -> str:
    """The page; links are relative to `out_file`'s folder."""
    base = out_file.resolve().parent
    letters = _letters(len(comp.sides))
    title = "guilens compare: " + " vs ".join(s.label for s in comp.sides)
    problems = "".join(f"<li>{esc(p)}</li>" for p in comp.problems)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{esc(title)}</title>
<meta name="viewport" content="width=device-width,initial-scale=1"><style>{CSS}{EXTRA_CSS}</style></head>
<body>
<div id="overview">
<h1>{esc(title)}</h1>
<div class="meta">{len(comp.sides)} runs, {len(comp.tasks)} tasks in all; {letters[0]} is the baseline.
Outcomes are the judge's where it decided, else what the runner recorded.</div>
<h2>Runs</h2>
{_runs(comp, base, letters)}
<h2>Metrics</h2>
<p class="note">&Delta;: the run's value less the baseline's (pp: percentage points); green is better, red worse.
Hover a value for what it averages over.</p>
{_metrics(comp, letters)}
<h2>McNemar's test on first-attempt success</h2>
<p class="note">Over the tasks both runs decided on their first attempt: b and c count the tasks only one of
the two succeeded on; p is the exact two-sided binomial tail of min(b, c) out of b + c.</p>
{_tests(comp, letters)}
<h2>Tasks</h2>
<p class="note">✓ success, ✗ failure, ? undecided, one mark per attempt; then successes over decided attempts
(with several), and the first attempt's steps over the golden steps. Click a header to sort, a cell to open
its attempt folder.</p>
{_tasks(comp, base, letters)}
{f'<h2>Skipped</h2><ul>{problems}</ul>' if problems else ''}
</div>
<dialog id="zoom"><img alt=""></dialog>
<script>{JS}</script>
</body></html>
"""


def write_compare_html(comp: Comparison, out_file: str | Path) -> Path:
    """Write the page atomically; `StorageError` names the file that could not be written."""
    out = Path(out_file)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise StorageError.of(out.parent, err) from None
    write_atomic(out, render_compare_html(comp, out))
    return out
