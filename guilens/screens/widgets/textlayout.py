"""Placing the phone's labels in a box of terminal cells: the text view's layout, without Textual.

A label goes at its element's place on the phone: the column of its left edge
and the row of its vertical centre, scaled from the viewport (the whole screen,
or a magnifier's region) to `cols x rows` cells. The box is filled, not fitted
to the phone's aspect: the point is to read text, and every cell is room for it.

Two labels that would overlap are resolved so none is lost where there is
room. Each label in turn takes the cheapest free place, costs counted in rows
moved: its own place; another row within its element's vertical bounds, or a
shift along the row; a row just above or below the element; or, when it fits
whole nowhere (or only by spilling far into a neighbour's column), cut with
"…" and continued on its element's rows below, word-wrapped, every line but
the last ending in "…" (so a capture of the first line still reads as a cut
label). A cut whose first line shows fewer than 12 characters cannot be read
and costs most, so a cut label shows at least 12 wherever the box allows.
Labels keep one blank cell between them, so two never read as one.

Less flexible labels (elements one or two rows tall) are placed first, top to
bottom, so a tall element's label gives way rather than a one-line button's.
Widths are counted in terminal cells (Rich's `cell_len`), so wide characters
on a real phone do not break the grid. A typical sim screen lays out in about
a millisecond (`benchmarks/bench_text_view.py`).

Written by hand because no library places text at absolute cells with
collision handling: Rich and Textual lay out flows and boxes, and label
placers for maps and charts work in pixels with float geometry. Rich still
measures and cuts the text.
"""

from __future__ import annotations

import math
from bisect import insort
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from rich.cells import cell_len

from guilens.actions import stroke_of
from guilens.device.uitree import UINode, parse_ui_xml
from guilens.screens.widgets.textlabels import (
    MIN_CUT,
    Label,
    Mark,
    Rect,
    action_point,
    check_viewport,
    collect_labels,
)

_Choice = tuple[float, int, int, list[str], int]
"""A candidate place: (cost, row, column, lines, characters hidden)."""
NEAR_ROWS = 2
"""How far above or below its element a label may move."""
# Costs of a placement, in rows moved: a whole label may move or spill out of its element; a cut one
# may wrap onto its element's rows below. A first line under MIN_CUT characters is the worst case,
# because the label then cannot be read (nor counted) at all.
_ROW_COST, _NEAR_COST, _SHIFT_COST, _SPILL_COST, _CLAIMED_COST = 3.0, 4.0, 0.5, 0.25, 2.0
_LINE_COST, _HIDDEN_COST, _HARD_COST, _UNREADABLE_COST = 1.5, 1.0, 6.0, 100.0


@dataclass(frozen=True)
class Span:
    """A run of cells on one row: text in one style, standing for one label (or none: -1)."""

    col: int
    text: str
    width: int
    flags: Mark
    item: int = -1


@dataclass(frozen=True)
class Placed:
    """Where a label went and how much of it shows."""

    row: int
    col: int
    lines: tuple[str, ...]
    """The label's text as drawn, one entry per row (a cut line ends in "…")."""
    whole: bool
    """Shown entirely on one row."""
    hidden: int = 0
    """Characters that found no room."""

    @property
    def readable(self) -> bool:
        """Whole, or its first row cut after at least `MIN_CUT` characters (the acceptance rule)."""
        return self.whole or len(self.lines[0].removesuffix("…")) >= MIN_CUT


@dataclass
class TextLayout:
    """What goes in each cell row of the text view, and how cells map back to the phone."""

    cols: int
    rows: int
    screen_size: tuple[int, int]
    viewport: Rect
    labels: list[Label] = field(default_factory=list)
    lines: list[list[Span]] = field(default_factory=list)
    placed: dict[int, Placed] = field(default_factory=dict)
    """Label index -> placement; a label missing here found no room."""

    def span_at(self, col: int, row: int) -> Span | None:
        if not 0 <= row < len(self.lines):
            return None
        for span in self.lines[row]:
            if span.col <= col < span.col + span.width:
                return span
        return None

    def label_at(self, col: int, row: int) -> Label | None:
        span = self.span_at(col, row)
        return self.labels[span.item] if span is not None and span.item >= 0 else None

    def device_at(self, col: int, row: int) -> tuple[int, int] | None:
        """The device pixel at the centre of cell (col, row), or None outside the box."""
        if not (0 <= col < self.cols and 0 <= row < self.rows):
            return None
        vx1, vy1, vx2, vy2 = self.viewport
        x = vx1 + (col + 0.5) * (vx2 - vx1) / self.cols
        y = vy1 + (row + 0.5) * (vy2 - vy1) / self.rows
        return min(self.screen_size[0] - 1, int(x)), min(self.screen_size[1] - 1, int(y))

    def tap_at(self, col: int, row: int) -> tuple[int, int] | None:
        """What a click on a cell taps: a drawn element's centre, else the pixel under the cell."""
        label = self.label_at(col, row)
        return label.tap_point if label is not None else self.device_at(col, row)

    def text(self) -> list[str]:
        """The rows as plain text (what a terminal capture of the view reads)."""
        out = []
        for spans in self.lines:
            parts, pos = [], 0
            for s in spans:
                parts += [" " * (s.col - pos), s.text]
                pos = s.col + s.width
            out.append("".join(parts))
        return out


def layout_screen(
    ui: UINode | str | bytes,
    screen_size: tuple[int, int],
    cols: int,
    rows: int,
    *,
    viewport: Rect | None = None,
    action: dict[str, Any] | None = None,
) -> TextLayout:
    """Lay out a UI tree (parsed, or the XML of `uiautomator dump`) in `cols x rows` cells.

    Raises `UITreeError` for a dump that is not one and ValueError for an empty viewport.
    """
    root = ui if isinstance(ui, UINode) else parse_ui_xml(ui)
    action = stroke_of(action, screen_size) if action else action  # a scroll is marked as its stroke
    vp = check_viewport(viewport, screen_size)
    cols, rows = max(0, cols), max(0, rows)
    out = TextLayout(cols, rows, screen_size, vp)
    if not cols or not rows:
        return out
    out.labels = collect_labels(root, vp, action)
    grid = _Grid(cols, rows, vp)
    jobs = [(_Job(i, lab, grid)) for i, lab in enumerate(out.labels)]
    jobs = [j for j in jobs if j.width > 0]
    for job in jobs:
        grid.claim(job)
    jobs.sort(key=lambda j: (min(j.r2 - j.r1, 3), j.ideal_row, j.c1))
    for job in jobs:
        placed = grid.place(job)
        if placed is not None:
            out.placed[job.index] = placed
    if action and not any(lab.flags & Mark.TARGET for i, lab in enumerate(out.labels) if i in out.placed):
        grid.mark_action(action)
    out.lines = [sorted(r, key=lambda s: s.col) for r in grid.spans]
    return out


def head(text: str, width: int) -> str:
    """The longest prefix of `text` that fits in `width` cells (measured by Rich, so wide
    characters, joiners and variation selectors count right)."""
    if width <= 0:
        return ""
    part = text[:width]
    if part.isascii():
        return part
    part = text[: 2 * width + 8]  # a cell holds one character at most, besides joiners and selectors
    lo, hi = 0, len(part)  # a prefix's width only grows with its length: bisect it
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if cell_len(part[:mid]) <= width:
            lo = mid
        else:
            hi = mid - 1
    return part[:lo]


class _Job:
    """A label with its geometry in cells."""

    def __init__(self, index: int, label: Label, grid: _Grid) -> None:
        self.index, self.label = index, label
        x1, y1, x2, y2 = label.bounds
        self.c1, self.c2 = grid.col_span(x1, x2)
        self.r1, self.r2 = grid.row_span(y1, y2)
        self.ideal_row = min(self.r2 - 1, max(self.r1, grid.row_of((y1 + y2) / 2)))
        self.prefix = [(p, f) for p, f in ((label.number, Mark.NUMBER), (label.glyph, Mark.GLYPH)) if p]
        self.plen = sum(cell_len(p) for p, _ in self.prefix)
        self.body = label.text + label.cursor
        self.width = self.plen + cell_len(self.body)
        # No more of a long text (a note's body) can show than the box holds: wrap only that much.
        cap = grid.cols * grid.rows
        self.text, self.beyond = label.text[:cap], max(0, len(label.text) - cap)

    def rows(self, total: int) -> Iterator[tuple[int, float]]:
        """Candidate rows with their cost: own rows nearest the centre first, then rows nearby."""
        for r in range(self.r1, self.r2):
            yield r, abs(r - self.ideal_row) * _ROW_COST
        for d in range(1, NEAR_ROWS + 1):
            for r in (self.r1 - d, self.r2 - 1 + d):
                if 0 <= r < total:
                    yield r, _NEAR_COST + (d + abs(self.ideal_row - (self.r1 if r < self.r1 else self.r2 - 1))) * _ROW_COST


class _Grid:
    """Occupied cells per row (as sorted intervals) and the spans placed so far."""

    def __init__(self, cols: int, rows: int, vp: Rect) -> None:
        self.cols, self.rows, self.vp = cols, rows, vp
        self.sx = cols / (vp[2] - vp[0])
        self.sy = rows / (vp[3] - vp[1])
        self.occ: list[list[tuple[int, int]]] = [[] for _ in range(rows)]
        self.spans: list[list[Span]] = [[] for _ in range(rows)]
        self.claims: list[list[tuple[int, int, int]]] = [[] for _ in range(rows)]

    def col_span(self, x1: float, x2: float) -> tuple[int, int]:
        c1 = min(self.cols - 1, max(0, math.floor((x1 - self.vp[0]) * self.sx)))
        return c1, max(c1 + 1, min(self.cols, math.ceil((x2 - self.vp[0]) * self.sx)))

    def row_span(self, y1: float, y2: float) -> tuple[int, int]:
        r1 = min(self.rows - 1, max(0, math.floor((y1 - self.vp[1]) * self.sy)))
        return r1, max(r1 + 1, min(self.rows, math.ceil((y2 - self.vp[1]) * self.sy)))

    def row_of(self, y: float) -> int:
        return min(self.rows - 1, max(0, math.floor((y - self.vp[1]) * self.sy)))

    def gaps(self, row: int) -> Iterator[tuple[int, int]]:
        """Free runs [a, b) of the row, keeping one blank cell next to what is there."""
        start = 0
        for a, b in self.occ[row]:
            if a - 1 > start:
                yield start, a - 1
            start = b + 1
        if self.cols > start:
            yield start, self.cols

    def free_from(self, row: int, col: int) -> int:
        """Free cells from `col` rightwards on `row` (0 when `col` is not free)."""
        for a, b in self.gaps(row):
            if a <= col < b:
                return b - col
        return 0

    def claim(self, job: _Job) -> None:
        """Note the cells a label's element covers, so other labels pay to spill into them."""
        for r in range(job.r1, job.r2):
            self.claims[r].append((job.c1, job.c2, job.index))

    def _spill_cost(self, job: _Job, row: int, s: int, e: int) -> float:
        """Cost of the cells of [s, e) outside the label's element: more where another's element is."""
        outside = max(0, min(e, job.c1) - s) + max(0, e - max(s, job.c2))
        claimed = 0
        for a, b, who in self.claims[row]:
            if who != job.index:
                claimed += max(0, min(e, b, job.c1) - max(s, a)) + max(0, min(e, b) - max(s, a, job.c2))
        return outside * _SPILL_COST + claimed * _CLAIMED_COST

    def place(self, job: _Job) -> Placed | None:
        """The cheapest place for the label: whole (perhaps moved), or cut and wrapped in its element."""
        best = self._best_whole(job)
        if best is None or best[0] > 0:
            cut = self._best_cut(job)
            if cut is not None and (best is None or cut[0] < best[0]):
                best = cut
        if best is None:
            return None
        _, row, s, lines, hidden = best
        hidden += job.beyond
        return self._put(job, row, s, lines, whole=not hidden and len(lines) == 1, hidden=hidden)

    def _best_whole(self, job: _Job) -> _Choice | None:
        width = job.width
        c0 = max(0, min(job.c1, self.cols - width))  # moving left to stay inside the box is free
        hi = max(job.c1, job.c2 - 1)
        best: _Choice | None = None
        for row, row_cost in job.rows(self.rows):
            for a, b in self.gaps(row):
                s_hi = min(b - width, hi)
                if a > s_hi:
                    continue
                s = min(max(c0, a), s_hi)
                cost = row_cost + abs(s - c0) * _SHIFT_COST + self._spill_cost(job, row, s, s + width)
                if best is None or cost < best[0]:
                    best = (cost, row, s, [job.body], 0)
        return best

    def _best_cut(self, job: _Job) -> _Choice | None:
        base = max(0, min(job.c1, self.cols - job.plen - MIN_CUT - 1))
        hi = max(job.c1, job.c2 - 1)
        best: _Choice | None = None
        for row, row_cost in job.rows(self.rows):
            for a, b in self.gaps(row):
                # At the element's left edge, or further left if only that leaves room to read it;
                # within the element (at least a readable cut wide), or as far as the row is free.
                tries = dict.fromkeys((s0, e) for s0 in (max(a, base), a) if s0 <= hi
                                      for e in (min(b, max(job.c2, s0 + job.plen + MIN_CUT + 1)), b))
                for s, end in tries:
                    if end - s <= job.plen + 1:
                        continue
                    lines, hidden, hard = self._wrap(job, row, s, end - s - job.plen)
                    if not lines:
                        continue
                    cut = len(lines) > 1 or hidden > 0
                    first = len(lines[0]) - 1 if cut else len(lines[0])
                    used = s + job.plen + max(cell_len(x) for x in lines)
                    # A wrapped label's rows are centred on its element, as the phone draws them.
                    centre = row + (len(lines) - 1) / 2
                    block = row_cost if row < job.r1 else abs(centre - job.ideal_row) * _ROW_COST
                    cost = (block + abs(s - base) * _SHIFT_COST + self._spill_cost(job, row, s, used)
                            + (len(lines) - 1) * _LINE_COST + hidden * _HIDDEN_COST + hard * _HARD_COST
                            + (_UNREADABLE_COST if cut and first < MIN_CUT else 0.0))
                    if best is None or cost < best[0]:
                        best = (cost, row, s, lines, hidden)
        return best

    def _wrap(self, job: _Job, row: int, s: int, width: int) -> tuple[list[str], int, int]:
        """The label's text in lines of at most `width` cells from `row` down through its element's
        rows: (lines, characters left out, words broken)."""
        text, col = job.text, s + job.plen
        lines: list[str] = []
        hard, r = 0, row
        while text:
            more = r + 1 < job.r2 and self.free_from(r + 1, col) >= min(width, 4)
            # (more than two characters a cell cannot fit: saves measuring a long note's body each time)
            if len(text) <= 2 * width and cell_len(text) <= width:
                lines.append(text)
                return lines, 0, hard
            cut = head(text, width - 1)
            space = cut.rfind(" ")
            keep = max(min(MIN_CUT, width - 1), (width - 1) // 2) if not lines else (width - 1) // 2
            if more and space >= keep:
                cut, text = cut[:space], text[space + 1 :]
            else:  # cut mid-word, keeping every character that fits (a space too: it counts)
                hard += 1 if more and not text[len(cut) : len(cut) + 1].isspace() else 0
                text = text[len(cut) :].lstrip(" ") if more else text[len(cut) :]
            if not cut.strip():
                break
            lines.append(cut + "…")
            if not more:
                break
            r += 1
            width = min(width, self.free_from(r, col))
        return lines, len(text), hard

    def _put(self, job: _Job, row: int, s: int, lines: list[str], *, whole: bool, hidden: int) -> Placed:
        flags, item = job.label.flags, job.index
        target = flags & Mark.TARGET
        col = s
        for piece, kind in job.prefix:
            self._span(row, Span(col, piece, cell_len(piece), kind | target, item))
            col += cell_len(piece)
        text_col = col
        for i, line in enumerate(lines):
            if line:
                self._span(row + i, Span(text_col, line, cell_len(line), flags, item))
        return Placed(row, s, tuple(lines), whole, hidden)

    def _span(self, row: int, span: Span) -> None:
        self.spans[row].append(span)
        insort(self.occ[row], (span.col, span.col + span.width))

    def mark_action(self, action: dict[str, Any]) -> None:
        """Where the last action touched, when no drawn label shows it: ◉ at a tap, ◉→ for a swipe."""
        marks: list[tuple[float, float, str]] = []
        point = action_point(action)
        if point is not None:
            marks.append((point[0], point[1], "◉"))
        elif action.get("type") == "swipe":
            try:
                x1, y1, x2, y2 = (float(action[k]) for k in ("x1", "y1", "x2", "y2"))
            except (KeyError, TypeError, ValueError):
                return
            dx, dy = x2 - x1, y2 - y1
            arrow = ("→" if dx > 0 else "←") if abs(dx) > abs(dy) else ("↓" if dy > 0 else "↑")
            marks += [(x1, y1, "◉"), (x2, y2, arrow)]
        vx1, vy1, vx2, vy2 = self.vp
        for x, y, glyph in marks:
            if not (vx1 <= x < vx2 and vy1 <= y < vy2):
                continue
            col, row = self.col_span(x, x + 1)[0], self.row_of(y)
            if all(not (a <= col < b) for a, b in self.occ[row]):
                self._span(row, Span(col, glyph, 1, Mark.POINT | Mark.TARGET))
