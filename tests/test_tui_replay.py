"""The replay screen, the runs browser and judging from the TUI, over recorded episode directories;
and the `guilens replay` / `guilens runs` commands' errors."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import tui_helpers
from PIL import ImageChops
from test_tui_run import wait_for
from typer.testing import CliRunner

from guilens.episode import EpisodeReader
from guilens.screens.app import GuilensApp
from guilens.screens.judge_screen import JudgeScreen
from guilens.screens.modals import PromptScreen
from guilens.screens.replay_screen import ReplayScreen
from guilens.screens.runs_screen import RunsScreen, matches, read_rows
from guilens.screens.widgets.memory import MemoryView
from guilens.screens.widgets.milestones import MilestoneView
from guilens.screens.widgets.phone import PhoneView
from guilens.screens.widgets.verdict import VerdictView


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two episodes: the scripted note episode, and the oracle on a built-in task with the real runner."""
    from guilens.run.engine import Runner
    from guilens.run.plan import plan_run
    from guilens.scenarios.loader import load_builtin

    root = tmp_path_factory.mktemp("runs")
    tui_helpers.make_episode(root)
    scenario = next(s for s in load_builtin() if s.device == "sim" and s.kind == "tasks")
    plan = plan_run(f"{scenario.id}:{scenario.tasks[0].id}", agent="oracle", devices=["sim"], user="oracle",
                    level="L0", out=root)
    Runner(plan).run()
    return root


def scripted(runs: Path) -> Path:
    return runs / "test-run" / "note" / "attempt-1"


def real(runs: Path) -> Path:
    return next(p for p in read_rows(runs)[0] if p.run != "test-run").path


async def test_replay_moves_through_steps_with_before_and_after_screens(runs: Path) -> None:
    path = scripted(runs)
    reader = EpisodeReader(path)
    app = GuilensApp(lambda: ReplayScreen(path))
    async with app.run_test(size=(200, 60)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        before, after = screen.query_one("#before", PhoneView), screen.query_one("#after", PhoneView)

        async def at(i: int) -> None:
            await wait_for(pilot, lambda: screen.index == i and before.shown.image is not None
                           and after.shown.image is not None and before.canvas.frame is not None  # type: ignore[union-attr]
                           and before.shown.serial > 0, what=f"step {i}")
            await pilot.pause(0.2)
            want_before, want_after = reader.screen(i), reader.screen(i + 1)
            assert ImageChops.difference(before.shown.image, want_before).getbbox() is None  # type: ignore[arg-type]
            assert ImageChops.difference(after.shown.image, want_after).getbbox() is None  # type: ignore[arg-type]
            assert before.shown.action == reader.steps[i].action and after.shown.action is None
            n = len(reader.steps)  # steps are numbered from 1, as everywhere a person reads them
            assert before.border_title == f"before · step {i + 1}"
            assert after.border_title.startswith(f"after · step {i + 1}")  # type: ignore[union-attr]
            assert screen.query_one("#detail-box").border_title == f"step {i + 1} of {n}"
            assert screen.query_one("#steps").border_title == f"{n} steps"
            detail = str(screen.query_one("#step-detail").render())
            assert f"step {i + 1}" in detail and reader.steps[i].thought in detail

        await at(0)
        await pilot.press("right", "right")
        await at(2)
        milestones = screen.query_one(MilestoneView)
        assert milestones.reached == {"open_notes": 0}
        assert "What should the note say?" in str(screen.query_one("#step-detail").render())
        await pilot.press("end")
        await at(4)
        assert screen.query_one("#after", PhoneView).border_title == "after · step 5 · final screen"
        assert milestones.reached == {"open_notes": 0, "write_note": 3}
        assert "+ done" in screen.query_one(MemoryView).render().plain  # type: ignore[union-attr]
        await pilot.press("left")
        await at(3)
        await pilot.press("home")
        await at(0)
        await pilot.press("g")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        await pilot.press("9", "enter")  # out of range: refused, the prompt stays
        await pilot.pause(0.1)
        assert isinstance(app.screen, PromptScreen)
        await pilot.press("backspace", "4", "enter")  # step 4 is the fourth step: index 3
        await at(3)
        await pilot.press("z")
        await pilot.pause(0.2)
        assert screen.has_class("-zoomed") and not screen.query_one("#detail").display
        assert before.size.width > 60  # half the terminal each
        await pilot.press("q")
        await wait_for(pilot, lambda: not app.is_running)


async def test_judging_from_the_replay_shows_the_stages_and_writes_the_verdict(runs: Path) -> None:
    path = real(runs)
    app = GuilensApp(lambda: ReplayScreen(path))
    async with app.run_test(size=(160, 50)) as pilot:
        screen = app.screen
        assert "not judged yet" in screen.query_one(VerdictView).render().plain  # type: ignore[union-attr]
        await pilot.press("j")
        await wait_for(pilot, lambda: isinstance(app.screen, JudgeScreen))
        judge = app.screen
        await wait_for(pilot, lambda: judge.verdict is not None, timeout=60, what="the verdict")  # type: ignore[attr-defined]
        # each stage was shown as it landed, before the verdict
        assert [getattr(st, "stage", None) for st in judge.stages][:1] == ["rules"]  # type: ignore[attr-defined]
        text = judge.query_one(VerdictView).render().plain  # type: ignore[union-attr]
        assert "SUCCESS" in text and "rules" in text and "decided: success" in text
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)
        assert "SUCCESS" in screen.query_one(VerdictView).render().plain  # type: ignore[union-attr]
    verdict = EpisodeReader(path).verdict()
    assert verdict is not None and verdict["decision"] == "success"


async def test_runs_browser_lists_filters_and_opens_episodes(runs: Path) -> None:
    app = GuilensApp(lambda: RunsScreen(runs))
    async with app.run_test(size=(160, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, RunsScreen)
        await wait_for(pilot, lambda: len(screen.rows) == 2, what="two episodes")
        table = screen.query_one("#runs-table")
        assert table.row_count == 2  # type: ignore[attr-defined]
        await pilot.press("slash", *"agent:scripted")
        await pilot.pause(0.2)
        assert [r.task for r in screen.shown] == ["demo:note"]
        await pilot.press("enter", "enter")  # leave the filter, open the row under the cursor
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen))
        assert app.screen.path == scripted(runs)  # type: ignore[attr-defined]
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)
        await pilot.press("slash", "escape")
        await pilot.pause(0.2)
        assert len(screen.shown) == 2


def test_filter_words_and_fields() -> None:
    rows = read_rows(Path("/nonexistent"))[0]
    assert rows == []
    from guilens.screens.runs_screen import EpisodeRow

    row = EpisodeRow(Path("x"), "r1", "memory:shoes", "1/1", "claude (sonnet)", "failure", 12, 0.1, "")
    assert matches(row, "shoes failure") and matches(row, "status:fail agent:claude")
    assert not matches(row, "status:success") and not matches(row, "notes")


def test_replay_and_runs_commands_explain_bad_directories(tmp_path: Path, runs: Path) -> None:
    from guilens.cli import app

    cli = CliRunner()
    res = cli.invoke(app, ["replay", str(tmp_path / "missing")])
    assert res.exit_code == 2 and "not an attempt directory" in res.output
    res = cli.invoke(app, ["replay", str(runs)])
    assert res.exit_code == 2 and "holds 2 episodes" in res.output and "guilens runs" in res.output
    res = cli.invoke(app, ["runs", str(tmp_path / "nowhere")])
    assert res.exit_code == 2 and "no such directory" in res.output
    res = cli.invoke(app, ["replay", str(scripted(runs)), "--renderer", "ascii"])
    assert res.exit_code == 2 and "--renderer" in res.output


def test_replay_command_names_a_bad_step_line_before_the_terminal_changes(tmp_path: Path, runs: Path) -> None:
    """A broken line inside `steps.jsonl` (not a last line cut short by a crash, which is dropped) is
    one line naming the file and the line, exit 2, before the TUI starts: not an error inside it."""
    import shutil

    from guilens.cli import app

    episode = shutil.copytree(scripted(runs), tmp_path / "attempt-1")
    lines = (episode / "steps.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) >= 3
    lines[1] = lines[1][: len(lines[1]) // 2]
    (episode / "steps.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    res = CliRunner().invoke(app, ["replay", str(episode)])
    assert res.exit_code == 2, res.output
    assert res.output.strip() == f"error: {episode / 'steps.jsonl'}:2: not a valid step line"


def test_replay_command_decodes_the_first_step_while_textual_starts(runs: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """`launch.replay_tui` starts decoding the first step's two screens before the app starts (the
    terminal's probe and Textual's start take that long), and the replay screen uses those decodes."""
    import asyncio

    from guilens.screens import launch
    from guilens.screens.replay_decode import EpisodeScreens

    made: list[EpisodeScreens] = []
    original = EpisodeScreens.opening

    def opening(reader: EpisodeReader) -> EpisodeScreens:
        made.append(original(reader))
        return made[-1]

    monkeypatch.setattr(EpisodeScreens, "opening", staticmethod(opening))
    shown: list[ReplayScreen] = []

    async def drive(app: GuilensApp) -> None:
        async with app.run_test(size=(200, 60)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen)
                           and app.screen.query_one("#before", PhoneView).shown.image is not None)
            screen = app.screen
            assert isinstance(screen, ReplayScreen)
            first = made[0].ready(0)
            assert screen.screens is made[0] and first is not None
            assert screen.query_one("#before", PhoneView).shown.image is first.image
            shown.append(screen)

    def run(app: GuilensApp) -> None:
        assert len(made) == 1  # made before the app runs: its first step decoding already
        deadline = time.monotonic() + 10
        while made[0].ready(0) is None or made[0].ready(1) is None:  # `ready` starts nothing itself
            assert time.monotonic() < deadline, "the first step's screens were never started"
            time.sleep(0.01)
        asyncio.run(drive(app))

    monkeypatch.setattr(GuilensApp, "run", run)
    path = real(runs)
    launch.replay_tui(EpisodeReader(path), renderer="halfcell")
    assert shown  # the replay showed step 1, from the screens decoded since the opening


def test_launch_reviews_simulated_answers(tmp_path: Path) -> None:
    """In the TUI a simulated user's answer goes past the person: accepted, it stays the simulated
    user's; replaced, it is the person's with the simulated one kept as the suggestion."""
    from guilens.control import QuestionChannel
    from guilens.screens.launch import ReviewedUser
    from guilens.users import UserContext, UserReply

    class Fixed:
        name = "oracle"

        def answer(self, question: str, ctx: Any) -> UserReply:
            return UserReply(text="Nike Pegasus 40", answered_by="oracle")

    channel = QuestionChannel()
    replies = iter(["", "ASICS"])
    seen: list[tuple[str, str | None]] = []

    def respond(req: Any, event: str) -> None:
        if event == "opened":
            seen.append((req.text, req.suggestion))
            channel.answer(req.id, next(replies))

    channel.on_change(respond)
    user = ReviewedUser(Fixed(), channel, None)
    ctx = UserContext(task_id="t", intent="i", instruction="i")
    first = user.answer("Which shoe?", ctx)
    second = user.answer("Which shoe?", ctx)
    assert seen == [("Which shoe?", "Nike Pegasus 40")] * 2
    assert (first.text, first.answered_by) == ("Nike Pegasus 40", "oracle")
    assert (second.text, second.answered_by, second.suggested) == ("ASICS", "human", "Nike Pegasus 40")
