"""The run screen's panels, each mounted alone: trace, memory, milestones, status line, verdict,
and the person's controls (element list, command line)."""

from __future__ import annotations

from datetime import UTC, datetime

import tui_helpers
from textual.app import App, ComposeResult
from textual.widget import Widget

from guilens.episode import Ask, LTMEntry, Memory, Step, StepTimings
from guilens.screens.widgets.human import CommandLine, CommandMessage, HumanPanel, elements_of
from guilens.screens.widgets.memory import MemoryView, diff_memory, render_memory
from guilens.screens.widgets.milestones import MilestoneView, mark_reached, render_milestones, rows_from_task
from guilens.screens.widgets.render import Question, Reply, render_step
from guilens.screens.widgets.status import StatusLine
from guilens.screens.widgets.trace import TraceView
from guilens.screens.widgets.verdict import render_verdict, steps_text

T0 = datetime(2025, 1, 20, 9, 0, tzinfo=UTC)


def step(i: int, **kw: object) -> Step:
    base: dict[str, object] = {"index": i, "started_at": T0, "ended_at": T0, "action": {"type": "tap", "x": 5, "y": 6}}
    base.update(kw)
    return Step(**base)  # type: ignore[arg-type]


class Host(App[None]):
    def __init__(self, widget: Widget) -> None:
        super().__init__()
        self.widget = widget
        self.commands: list[str] = []
        self.highlighted: list[object] = []

    def compose(self) -> ComposeResult:
        yield self.widget

    def on_command_message(self, event: CommandMessage) -> None:
        self.commands.append(event.text)

    def on_human_panel_highlighted(self, event: HumanPanel.Highlighted) -> None:
        self.highlighted.append(event.bounds)


def test_step_text_has_thought_action_result_user_turn_error_and_milestones() -> None:
    s = step(3, thought="Open the [cart]", action_description="Tap the cart", action_result="the list opened",
             ask=Ask(question="Which size?", answer="M", answered_by="human", suggested="L"),
             error="element 9 does not exist", milestones=["cart"], by="human", annotations=["cart open"],
             timings=StepTimings(person_s=3.4, user_s=5.0))
    text = render_step(s, {"cart": "The cart is open"}).plain
    for part in ("step 4 human · person 3.4s", "Open the [cart]", "tap 5 6", "Tap the cart",
                 "last action: the list opened", "? Which size?", "← M human answered in 5.0s", "suggested: L", "✗ element 9 does not exist", "★ cart",
                 "The cart is open", "✎ cart open"):
        assert part in text, part


async def test_trace_appends_steps_and_a_step_replaces_its_live_question() -> None:
    trace = TraceView()
    async with Host(trace).run_test(size=(80, 30)) as pilot:
        trace.add(step(0, thought="first"))
        trace.add(Question("Which size?", "M"))
        trace.add(Reply("Which size?", "M", "oracle"))
        await pilot.pause()
        assert len(trace.children) == 3
        trace.add(step(1, ask=Ask(question="Which size?", answer="M", answered_by="oracle")))
        await pilot.pause()
        kinds = [type(c.event).__name__ for c in trace.children]  # type: ignore[attr-defined]
        assert kinds == ["Step", "Step"]
        assert trace.children[1].has_class("-step")


def test_memory_diff_marks_the_new_entry_the_evicted_one_and_ltm_changes() -> None:
    prev = Memory(stm=["a", "b", "c", "d"], ltm=[LTMEntry(app="shop", content="price 9", step=1),
                                                   LTMEntry(app="notes", content="draft", step=2)])
    cur = Memory(stm=["b", "c", "d", "e"], ltm=[LTMEntry(app="shop", content="price 12", step=4),
                                                 LTMEntry(app="notes", content="draft", step=2),
                                                 LTMEntry(app="maps", content="2 km", step=4)],
                 lessons=["check the size first"])
    d = diff_memory(cur, prev)
    assert d.evicted == ["a"]
    assert d.stm == [("b", False), ("c", False), ("d", False), ("e", True)]
    marks = {e.app: (mark, old) for e, mark, old in d.ltm}
    assert marks == {"shop": ("replaced", "price 9"), "notes": ("", None), "maps": ("appended", None)}
    text = render_memory(cur, prev).plain
    assert "− a" in text and "+ e" in text and "↻ [shop] price 12" in text and "price 9" in text
    assert "+ [maps] 2 km" in text and "check the size first" in text


async def test_memory_view_shows_oldest_to_newest() -> None:
    view = MemoryView()
    async with Host(view).run_test(size=(60, 20)) as pilot:
        view.show(Memory(stm=["x", "y"]), Memory(stm=["x"]))
        await pilot.pause()
        lines = view.render().plain.splitlines()  # type: ignore[union-attr]
        assert lines.index("  1 x") < lines.index("  + y")


def test_milestone_rows_keep_groups_kinds_and_steps() -> None:
    rows = rows_from_task(tui_helpers.FakeTask())
    assert [(r.id, r.group, r.kind) for r in rows] == [
        ("open_notes", None, "fixed"), ("write_note", 1, "flexible"), ("save", 1, "fixed")]
    marked = mark_reached(rows, {"open_notes": 0, "write_note": 3, "extra-mark": 4}, {"extra-mark": "by hand"})
    assert [(r.id, r.step) for r in marked] == [
        ("open_notes", 0), ("write_note", 3), ("save", None), ("extra-mark", 4)]
    text = render_milestones(marked).plain
    assert "3/4 reached" in text and "┌ any order" in text and "write_note ~ @4" in text and "○ 3 save" in text  # @ the step as counted from 1


async def test_milestone_view_reaches_milestones() -> None:
    view = MilestoneView()
    async with Host(view).run_test(size=(60, 20)) as pilot:
        view.set_rows(rows_from_task(tui_helpers.FakeTask()))
        view.reach("open_notes", 2)
        await pilot.pause()
        assert view.done == 1 and "open_notes @3" in view.render().plain  # type: ignore[union-attr]


async def test_status_line_shows_the_state_and_drops_detail_when_narrow() -> None:
    status = StatusLine()
    async with Host(status).run_test(size=(200, 3)) as pilot:
        status.scenario, status.task_id, status.level = "demo", "note", "L1"
        status.attempt, status.attempts, status.step, status.budget = 1, 2, 3, 10
        status.tokens, status.cost, status.clock = 12_345, 0.0123, "Mon 09:41"
        status.state = "paused"
        await pilot.pause()
        text = status.render().plain
        for part in ("demo:note", "L1", "attempt 1/2", "3/10 steps done", "12.3k tok", "$0.0123", "device Mon 09:41", "paused"):
            assert part in text, part
        assert status.has_class("-paused")
        status.state, status.outcome = "finished", "success"
        await pilot.pause()
        assert "finished: success" in status.render().plain and not status.has_class("-paused")
        await pilot.resize_terminal(60, 3)
        await pilot.pause()
        narrow = status.render().plain
        assert "finished: success" in narrow and "device" not in narrow and len(narrow) <= 60


def test_verdict_text_has_the_decision_stages_reasons_and_steps() -> None:
    verdict = {"decision": "failure", "decided_by": "semantic", "reason": "the note is missing", "progress": 0.5,
               "stages": [{"stage": "rules", "status": "skipped", "reason": "a real device"},
                          {"stage": "semantic", "status": "decided", "decision": "failure",
                           "reason": "no note saved", "steps": [0, 1, 2, 3, 7, 9], "calls": 1,
                           "usage": {"cost_usd": 0.0123}}]}
    text = render_verdict(verdict, pending=["irr"]).plain
    for part in ("FAILURE", "decided by semantic", "the note is missing", "progress 50%", "rules", "a real device",
                 "decided: failure", "no note saved", "looked at steps 1-4, 8, 10", "$0.0123", "irr", "pending"):
        assert part in text, part
    assert steps_text([5, 1, 2, 3]) == "2-4, 6"  # 0-based in, counted from 1 out


def _sim_xml() -> str:
    from guilens.actions import OpenApp
    from guilens.device.sim import SimDevice

    dev = SimDevice()
    dev.act(OpenApp(app="notes"))
    xml = dev.observe().ui_xml
    assert xml is not None
    return xml


async def test_element_list_taps_an_element_by_number_and_outlines_it() -> None:
    xml = _sim_xml()
    elements = elements_of(xml)
    new_note = next(e for e in elements if "New note" in e.label)
    panel = HumanPanel()
    app = Host(panel)
    async with app.run_test(size=(80, 30)) as pilot:
        panel.set_ui(xml)
        ol = panel.query_one("#elements")
        ol.focus()
        await pilot.pause()
        for _ in range(new_note.number):
            await pilot.press("down")
        await pilot.press("enter")
        await pilot.pause()
        assert app.commands == [f"tap #{new_note.number}"]
        assert app.highlighted[-1] == new_note.bounds


async def test_command_line_sends_only_commands_that_parse() -> None:
    line = CommandLine()
    app = Host(line)
    async with app.run_test(size=(80, 10)) as pilot:
        line.add_class("-open")
        line.focus()
        await pilot.press(*"tpye hello")
        await pilot.press("enter")
        await pilot.pause()
        assert app.commands == [] and line.value == "tpye hello"
        line.value = ""
        await pilot.press(*"type hello")
        await pilot.press("enter")
        await pilot.pause()
        assert app.commands == ["type hello"] and not line.has_class("-open")
