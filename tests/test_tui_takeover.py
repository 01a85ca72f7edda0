"""Taking over while paused, as an annotator does it: the keys go to the element list (not the trace),
the list is the screen the phone shows now, Enter taps at once and the list follows the new screen;
the trace keeps following while the controls are open; and at 100x30 the controls keep at least five
element rows and every key in view (a snapshot of that layout, and the same facts asserted)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import tui_helpers
from test_tui_run import run_screen, wait_for
from textual.widgets import OptionList

from guilens.config import Settings
from guilens.device.uitree import actionable_elements, parse_ui_xml
from guilens.episode import EpisodeReader
from guilens.run.plan import plan_run
from guilens.screens.app import GuilensApp
from guilens.screens.launch import make_run_screen
from guilens.screens.phone_setup import fixed
from guilens.screens.run_screen import RunScreen
from guilens.screens.widgets.keybar import KeyBar
from guilens.screens.widgets.trace import TraceView
from tests.runner_helpers import write_scenarios


def asking(screen: RunScreen) -> bool:
    return any(r.kind == "action" for r in screen.pending.values())


def labels_of(ui_xml: str | None) -> list[str]:
    """The element list a person should see for this UI tree (the runner's numbering)."""
    root = parse_ui_xml(ui_xml or "")
    return [n.label() or n.short_id or "(unlabelled)" for n in actionable_elements(root)]


async def test_a_paused_take_over_puts_the_keys_on_a_fresh_element_list(tmp_path: Path) -> None:
    pack = write_scenarios(tmp_path)[0]
    plan = plan_run(f"{pack}:budget", agent="oracle", devices=["sim"], out=tmp_path / "runs", settings=Settings())
    app = GuilensApp(lambda: make_run_screen(plan, paused=True))
    async with app.run_test(size=(160, 45)) as pilot:
        screen = run_screen(app)
        pane = screen.pane
        await wait_for(pilot, lambda: pane.phone.shown.image is not None, what="the first screen")
        trace = pane.query_one(TraceView)
        trace.focus()  # where the keys were before: ↑↓ must not stay here
        await pilot.pause(0.1)
        await pilot.press("t")
        await wait_for(pilot, lambda: asking(screen), what="the person's turn while paused")
        await pilot.pause(0.2)
        elements = pane.human.query_one("#elements", OptionList)
        assert screen.focused is elements, f"the keys are on {screen.focused!r}, not the element list"
        panel = pane.human
        assert [e.label for e in panel.elements] == labels_of(pane.phone.shown.ui_xml)  # the screen shown now
        notes = next(e for e in panel.elements if e.label == "Notes")
        scroll = trace.scroll_y
        await pilot.press(*["down"] * notes.number)
        assert elements.highlighted == notes.number and trace.scroll_y == scroll
        await pilot.press("enter")  # while paused: taps at once
        await wait_for(pilot, lambda: len(screen.steps) == 1, what="the tap, without resuming")
        assert screen.control.paused and screen.steps[0].by == "human"
        assert screen.steps[0].target is not None and screen.steps[0].target["label"] == "Notes"
        # the list and the phone follow the tap's result, and the keys stay on the list
        await wait_for(pilot, lambda: "Budget" in (pane.phone.shown.ui_xml or ""), what="the Notes screen shown")
        await wait_for(pilot, lambda: asking(screen), what="the next turn")
        await wait_for(pilot, lambda: [e.label for e in panel.elements] == labels_of(pane.phone.shown.ui_xml),
                       what="the element list of the new screen")
        assert any(e.label == "New note" for e in panel.elements)
        assert screen.focused is elements
        new_note = next(e for e in panel.elements if e.label == "New note")
        await pilot.press(*["down"] * (new_note.number - (elements.highlighted or 0)), "enter")
        await wait_for(pilot, lambda: len(screen.steps) == 2, what="a second tap")
        await pilot.press("c")
        await wait_for(pilot, lambda: screen.finished)
        steps = EpisodeReader(screen.finished_dirs[-1]).steps
    assert [s.by for s in steps] == ["human", "human"]
    assert [s.target["label"] for s in steps if s.target] == ["Notes", "New note"]


async def test_the_trace_follows_the_newest_step_while_the_controls_are_open(tmp_path: Path) -> None:
    """The agent's steps overflow the trace; then the controls open under it (the trace gets shorter),
    and their element list grows and shrinks with each screen: the newest step stays in view throughout."""
    thinking = tui_helpers.ScriptStep("wait 0.1", "Nothing to do yet: the shop has not opened, so I wait a "
                                      "little and look again.", "Wait a moment", "waited")
    factory = tui_helpers.scripted_factory(tmp_path, script=[thinking] * 9)  # the person's steps use none
    app = GuilensApp(lambda: RunScreen(factory, paused=True, task_lookup=lambda ep: tui_helpers.FakeTask()))
    async with app.run_test(size=(140, 26)) as pilot:
        screen = run_screen(app)
        await wait_for(pilot, lambda: screen.episode is not None)
        trace = screen.pane.trace
        for n in (1, 2, 3):
            await pilot.press("n")
            await wait_for(pilot, lambda: len(screen.steps) == n, what=f"agent step {n}")  # noqa: B023 (awaited here)
        await pilot.pause(0.2)
        assert trace.max_scroll_y > 0 and trace.scroll_y == trace.max_scroll_y
        await pilot.press("t")
        # home (11 elements), Notes (2: the trace grows), home again (11: it shrinks), back
        for n, command in enumerate(["home", "open notes", "home", "back"], start=4):
            await wait_for(pilot, lambda: asking(screen), what="the person's turn")
            screen.send_human(command)
            await wait_for(pilot, lambda: len(screen.steps) == n, what=command)  # noqa: B023 (awaited here)
            await pilot.pause(0.3)
            assert screen.pane.human.display
            assert trace.scroll_y == trace.max_scroll_y, f"the trace stopped following after {command!r}"
        # scrolled up to read: new steps do not pull the view away ... (the person's turn opens
        # first: opening it puts the keys on the element list, which would take Home from the trace)
        await wait_for(pilot, lambda: asking(screen))
        trace.focus()
        await wait_for(pilot, lambda: app.focused is trace, what="the trace's focus")
        await pilot.press("home")
        await wait_for(pilot, lambda: trace.scroll_offset.y == 0, what="the trace at its top")
        screen.send_human("back")
        await wait_for(pilot, lambda: len(screen.steps) == 8)
        await pilot.pause(0.2)
        assert trace.scroll_offset.y == 0 and not trace.following
        # ... until the person goes back to the end (the new turn put the keys back on the list)
        await wait_for(pilot, lambda: asking(screen))
        trace.focus()
        await wait_for(pilot, lambda: app.focused is trace, what="the trace's focus")
        await pilot.press("end")
        await wait_for(pilot, lambda: trace.following, what="the trace following again")
        screen.send_human("back")
        await wait_for(pilot, lambda: len(screen.steps) == 9)
        await pilot.pause(0.2)
        assert trace.following and trace.scroll_y == trace.max_scroll_y
        await pilot.press("c")
        await wait_for(pilot, lambda: screen.finished)


def _small_app(tmp_path: Path) -> GuilensApp:
    factory = tui_helpers.scripted_factory(tmp_path)
    setup = fixed("halfcell", "both", cell=(10, 20))  # as in tmux: half cells and the UI tree's text
    return GuilensApp(lambda: RunScreen(factory, renderer=setup, paused=True,
                                        task_lookup=lambda ep: tui_helpers.FakeTask()))


async def _take_over_at_start(app: GuilensApp, pilot: Any) -> RunScreen:
    screen = run_screen(app)
    await wait_for(pilot, lambda: screen.episode is not None and screen.pane.phone.shown.image is not None)
    await pilot.press("t")
    await wait_for(pilot, lambda: asking(screen) and len(screen.pane.human.elements) >= 5)
    phone = screen.pane.phone

    def settled() -> bool:
        """The frame shown was made for the pixels' part as it is now laid out: opening the controls
        resizes the phone, and under load the frame for the new size can land after a fixed pause."""
        canvas = phone.canvas
        if canvas is None or canvas.frame is None:
            return False
        fit, size = canvas.frame.fit, canvas.content_region.size
        return phone.box == (size.width, size.height) and (fit.box_cols, fit.box_rows) == phone.box

    await wait_for(pilot, settled, what="the frame for the phone's settled size")
    await pilot.pause(0.3)
    await wait_for(pilot, settled, what="the frame for the phone's settled size")
    return screen


async def test_at_100x30_the_controls_keep_five_rows_and_every_key_in_view(tmp_path: Path) -> None:
    app = _small_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await _take_over_at_start(app, pilot)
        pane = screen.pane
        elements = pane.human.query_one("#elements", OptionList)
        assert elements.region.height >= 5 and elements.region.bottom <= app.size.height
        assert not pane.query_one("#side").display  # narrow: the side panels give way
        assert pane.query_one("#trace").region.height >= 4
        bar = screen.query_one(KeyBar)
        shown = bar.render().plain
        # every key that applies now, the person's own among them, fully inside the terminal
        for key, what, _, _ in bar.entries():
            assert f"{key} {what}" in shown, (key, what)
        for key in ("b Back", "h Home", "e Enter", ": Command", "? Help", "space Pause", "t Take over"):
            assert key in shown, key
        assert bar.region.bottom == app.size.height and bar.region.height == len(shown.splitlines())
        assert all(len(line) <= bar.content_region.width for line in shown.splitlines())
        # a key can be clicked, as in Textual's footer
        row, line = next((i, ln) for i, ln in enumerate(shown.splitlines()) if "v View" in ln)
        view = pane.phone.view
        await pilot.click(KeyBar, offset=(bar.styles.padding.left + line.index("v View") + 2, row))
        await wait_for(pilot, lambda: pane.phone.view != view, what="the View key clicked")
        await pilot.press("c")
        await wait_for(pilot, lambda: screen.finished)


def test_snapshot_take_over_at_100x30(snap_compare: Any, tmp_path: Path) -> None:
    app = _small_app(tmp_path)

    async def run_before(pilot: Any) -> None:
        screen = await _take_over_at_start(app, pilot)
        status = screen.pane.status
        status.ended = status.started  # the elapsed time reads 00:00 however slow the machine
        app.clear_notifications()
        await pilot.pause(0.1)

    assert snap_compare(app, terminal_size=(100, 30), run_before=run_before)


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
async def test_the_traces_questions_and_answers_are_readable(theme: str) -> None:
    """WCAG contrast of every character of the trace's ask/answer lines against what is behind it: at
    least 4.5:1 (AA for body text), in Textual's default dark and light themes."""
    from test_tui_panels import Host, step

    from guilens.episode import Ask
    from guilens.screens.widgets.render import Question, Reply

    trace = TraceView()
    host = Host(trace)
    async with host.run_test(size=(80, 30)) as pilot:
        host.theme = theme
        trace.add(step(0, ask=Ask(question="Who should I text?", answer="Mom", answered_by="oracle")))
        trace.add(Question("Which colour?", "Black"))
        trace.add(Reply("Which colour?", "Black", "human"))
        await pilot.pause(0.2)
        worst = 99.0
        for entry in trace.children:
            for y in range(entry.size.height):
                strip = entry.render_line(y)
                line = "".join(seg.text for seg in strip)
                if not any(mark in line for mark in ("?", "←")):
                    continue
                for seg in strip:
                    if not seg.text.strip() or seg.style is None or seg.style.color is None:
                        continue
                    assert seg.style.bgcolor is not None, "the trace paints its own background"
                    worst = min(worst, contrast(seg.style.color.triplet, seg.style.bgcolor.triplet))
        assert worst >= 4.5, f"{theme}: the ask/answer lines are {worst:.2f}:1"


def contrast(fg: Any, bg: Any) -> float:
    def lum(rgb: Any) -> float:
        def ch(v: int) -> float:
            c = v / 255
            return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

        r, g, b = rgb
        return 0.2126 * ch(r) + 0.7152 * ch(g) + 0.0722 * ch(b)

    a, b = lum(fg), lum(bg)
    return (max(a, b) + 0.05) / (min(a, b) + 0.05)
