"""The report's plots, drawn as inline SVG by hand: no plotting library, no script, nothing fetched.

Each function returns one self-contained `<svg>` of a fixed size (the grid grows with the run), so
the page lays them out in a wrapping row and they print as they show. Values outside their range
are clamped, and a plot with no data says so instead of drawing an empty frame.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

W, H = 360, 220
PAD_L, PAD_B, PAD_T, PAD_R = 44, 36, 40, 16
ACCENT = "#3b6fd8"


def esc(s: object) -> str:
    return html.escape(str(s), quote=True)


def _frame(title: str, body: str, y_labels: Sequence[tuple[float, str]]) -> str:
    ph = H - PAD_B - PAD_T
    grid = "".join(
        f'<line x1="{PAD_L}" x2="{W - PAD_R}" y1="{PAD_T + ph * (1 - f):.1f}" y2="{PAD_T + ph * (1 - f):.1f}" '
        f'stroke="#ddd"/><text x="{PAD_L - 6}" y="{PAD_T + ph * (1 - f) + 4:.1f}" text-anchor="end">{esc(t)}</text>'
        for f, t in y_labels
    )
    return svg(title, W, H, grid + body)


def svg(title: str, w: float, h: float, body: str) -> str:
    """An `<svg>` of `w` x `h` on white, with `title` centred on top."""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}" '
            f'font-family="sans-serif" font-size="11" fill="#222" role="img" aria-label="{esc(title)}">'
            f'<rect width="{w}" height="{h}" fill="#fff"/>'
            f'<text x="{w / 2}" y="16" text-anchor="middle" font-weight="bold" font-size="12">{esc(title)}</text>'
            f"{body}</svg>")


def _no_data(title: str, why: str) -> str:
    return svg(title, W, H, f'<text x="{W / 2}" y="{H / 2}" text-anchor="middle" fill="#777">{esc(why)}</text>')


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
                       f'fill="{ACCENT}"><title>{esc(label)}: {value * 100:.1f}% of {n}</title></rect>'
                       f'<text x="{cx:.1f}" y="{PAD_T + ph - h - 4:.1f}" text-anchor="middle">{value * 100:.0f}%</text>')
        out.append(f'<text x="{cx:.1f}" y="{H - PAD_B + 14}" text-anchor="middle">{esc(label)}</text>'
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




OUTCOME_COLOUR = {True: "#1e8e3e", False: "#d93025", None: "#f2a600"}
OUTCOME_NAME = {True: "success", False: "failure", None: "undecided"}


def steps_vs_golden(title: str, points: list[tuple[str, int, int, bool | None]]) -> str:
    """Each attempt as a dot: the reference solution's steps on x, the steps taken on y, coloured by
    outcome. Dots above the diagonal took more steps than the golden path (the step ratio's excess)."""
    pts = [p for p in points if p[1] > 0]
    if not pts:
        return _no_data(title, "no task has golden steps")
    top = max(max(g for _, g, _, _ in pts), max(s for _, _, s, _ in pts), 1)
    top = ((top + 4) // 5) * 5
    pw, ph = W - PAD_L - PAD_R, H - PAD_B - PAD_T

    def xy(g: float, s: float) -> tuple[float, float]:
        return PAD_L + pw * g / top, PAD_T + ph * (1 - s / top)

    ticks = sorted({0, top // 2, top})
    body = [f'<line x1="{xy(0, 0)[0]:.1f}" y1="{xy(0, 0)[1]:.1f}" x2="{xy(top, top)[0]:.1f}" '
            f'y2="{xy(top, top)[1]:.1f}" stroke="#bbb" stroke-dasharray="4 3"/>']
    for t in ticks:
        x, y = xy(t, t)
        body.append(f'<line x1="{PAD_L}" x2="{W - PAD_R}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eee"/>'
                    f'<text x="{PAD_L - 6}" y="{y + 4:.1f}" text-anchor="end">{t}</text>'
                    f'<text x="{x:.1f}" y="{H - PAD_B + 14}" text-anchor="middle">{t}</text>')
    for label, golden, steps, ok in pts:
        x, y = xy(golden, min(steps, top))
        body.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{OUTCOME_COLOUR[ok]}" fill-opacity="0.75">'
                    f'<title>{esc(label)}: {steps} steps, golden {golden} ({OUTCOME_NAME[ok]})</title></circle>')
    body.append(f'<text x="{PAD_L + pw / 2}" y="{H - 6}" text-anchor="middle" fill="#555">golden steps</text>'
                f'<text x="12" y="{PAD_T + ph / 2}" text-anchor="middle" fill="#555" '
                f'transform="rotate(-90 12 {PAD_T + ph / 2})">steps taken</text>')
    return svg(title, W, H, "".join(body))


def cost_bars(title: str, items: list[tuple[str, float, float]], most: int = 12) -> str:
    """The costliest tasks as horizontal bars, agent and judge dollars stacked (all attempts summed)."""
    items = sorted((i for i in items if i[1] + i[2] > 0), key=lambda i: -(i[1] + i[2]))[:most]
    if not items:
        return _no_data(title, "nothing cost anything ($0 everywhere)")
    top = max(a + j for _, a, j in items)
    left, row = 130, min(18.0, (H - PAD_T - 24) / len(items))
    pw = W - left - PAD_R - 40
    body = []
    for i, (label, agent, judge) in enumerate(items):
        y = PAD_T + i * row
        wa, wj = pw * agent / top, pw * judge / top
        short = label if len(label) <= 20 else label[:19] + "…"
        body.append(f'<text x="{left - 6}" y="{y + row * 0.7:.1f}" text-anchor="end">{esc(short)}</text>'
                    f'<rect x="{left}" y="{y + 2:.1f}" width="{wa:.1f}" height="{row - 4:.1f}" fill="{ACCENT}">'
                    f"<title>{esc(label)}: agent ${agent:.4f}</title></rect>"
                    f'<rect x="{left + wa:.1f}" y="{y + 2:.1f}" width="{wj:.1f}" height="{row - 4:.1f}" '
                    f'fill="#9c6ade"><title>{esc(label)}: judge ${judge:.4f}</title></rect>'
                    f'<text x="{left + wa + wj + 4:.1f}" y="{y + row * 0.7:.1f}">${agent + judge:.3f}</text>')
    body.append(f'<rect x="{left}" y="{H - 16}" width="10" height="10" fill="{ACCENT}"/>'
                f'<text x="{left + 14}" y="{H - 7}">agent</text><rect x="{left + 60}" y="{H - 16}" width="10" '
                f'height="10" fill="#9c6ade"/><text x="{left + 74}" y="{H - 7}">judge</text>')
    return svg(title, W, H, "".join(body))


def attempt_grid(title: str, tasks: list[str], attempts: int,
                 cells: dict[tuple[str, int], tuple[bool | None, str, str]]) -> str:
    """Tasks down, attempts across: one cell per attempt coloured by outcome, linking to its trajectory.
    `cells[(task, attempt)]` is (outcome, link target, tooltip); a missing attempt is a grey outline."""
    if not tasks:
        return _no_data(title, "no episodes")
    cell, left, top = 18, 170, 44
    w = max(W, left + cell * max(1, attempts) + PAD_R)
    h = top + cell * len(tasks) + 10
    body = [f'<text x="{left + cell * (a - 0.5):.1f}" y="{top - 6}" text-anchor="middle">{a}</text>'
            for a in range(1, attempts + 1)]
    body.append(f'<text x="{left - 6}" y="{top - 6}" text-anchor="end" fill="#555">attempt</text>')
    for i, task in enumerate(tasks):
        y = top + i * cell
        short = task if len(task) <= 26 else task[:25] + "…"
        body.append(f'<text x="{left - 6}" y="{y + cell * 0.7:.1f}" text-anchor="end">{esc(short)}</text>')
        for a in range(1, attempts + 1):
            x = left + (a - 1) * cell
            got = cells.get((task, a))
            if got is None:
                body.append(f'<rect x="{x + 1}" y="{y + 1}" width="{cell - 2}" height="{cell - 2}" fill="none" '
                            f'stroke="#ccc"/>')
                continue
            ok, href, tip = got
            body.append(f'<a href="{esc(href)}"><rect x="{x + 1}" y="{y + 1}" width="{cell - 2}" '
                        f'height="{cell - 2}" rx="2" fill="{OUTCOME_COLOUR[ok]}"><title>{esc(tip)}</title></rect></a>')
    return svg(title, w, h, "".join(body))


def ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def milestone_reach(title: str, by_position: list[tuple[int, int]]) -> str:
    """How often each milestone position (1st, 2nd, ...) was reached, over the attempts whose tasks have
    one there and whose state is known: `by_position[i]` is (reached, known) for position i + 1."""
    items: list[tuple[str, float | None, int]] = [
        (ordinal(i + 1), (r / n) if n else None, n) for i, (r, n) in enumerate(by_position)]
    if not items:
        return _no_data(title, "no milestones")
    return bar_chart(title, items)
