"""TUI details: the theme is kept in the settings file, the runs table sorts by column, and the
command palette lists each command once."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_tui_run import wait_for
from textual.widgets import DataTable

from guilens.config import load_settings
from guilens.screens.app import GuilensApp
from guilens.screens.home_screen import HomeScreen
from guilens.screens.runs_screen import COLUMNS, RunsScreen

TASKS = ("apple-park-to-bob", "before-flight-note", "cheaper-headphones")


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "config" / "config.toml"
    path.parent.mkdir()
    path.write_text('# my settings\nstm_size = 6  # longer memory\n\n[prices]\n'
                    '"openai:local" = {input = 0.0, output = 0.0}\n', encoding="utf-8")
    monkeypatch.setenv("GUILENS_CONFIG_FILE", str(path))
    for name in ("GUILENS_THEME", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)
    return path


@pytest.fixture(scope="module")
def three_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The oracle on three memory tasks of different lengths, recorded by the real runner."""
    from guilens.run.engine import Runner
    from guilens.run.plan import plan_run

    root = tmp_path_factory.mktemp("runs")
    for task in TASKS:
        Runner(plan_run(f"memory:{task}", agent="oracle", devices=["sim"], user="oracle", level="L0",
                        out=root)).run()
    return root


# -- the theme -------------------------------------------------------------------------------------
async def test_a_theme_picked_in_the_palette_is_saved_and_the_next_start_has_it(config: Path) -> None:
    settings = load_settings(run_dir=config.parent / "runs")
    app = GuilensApp(lambda: HomeScreen(settings), settings=settings)
    async with app.run_test(size=(140, 44)) as pilot:
        await pilot.pause(0.2)
        assert app.theme != "gruvbox"
        app.action_change_theme()  # the palette's "Theme" command
        await pilot.pause(0.3)
        await pilot.press(*"gruvbox")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.theme == "gruvbox", what="the theme to change")
        await wait_for(pilot, lambda: 'theme = "gruvbox"' in config.read_text(encoding="utf-8"),
                       what="the theme in the settings file")
    text = config.read_text(encoding="utf-8")
    assert "# my settings" in text and "stm_size = 6  # longer memory" in text  # the rest is as it was
    again = load_settings()
    assert again.theme == "gruvbox" and again.stm_size == 6 and "openai:local" in again.prices
    app = GuilensApp(lambda: HomeScreen(again), settings=again)
    async with app.run_test(size=(140, 44)) as pilot:
        await pilot.pause(0.2)
        assert app.theme == "gruvbox"


async def test_an_unknown_theme_setting_is_said_and_not_used(config: Path) -> None:
    config.write_text('theme = "no-such-theme"\n', encoding="utf-8")
    settings = load_settings()
    app = GuilensApp(lambda: HomeScreen(settings), settings=settings)
    async with app.run_test(size=(140, 44)) as pilot:
        await pilot.pause(0.2)
        assert app.theme == "textual-dark"
        assert any("no-such-theme" in str(n.message) for n in app._notifications)
    assert config.read_text(encoding="utf-8") == 'theme = "no-such-theme"\n'  # nothing written back


# -- sorting the runs table ------------------------------------------------------------------------
def task_names(screen: RunsScreen) -> list[str]:
    table = screen.query_one(DataTable)
    return [str(table.get_row_at(i)[COLUMNS.index("task")]) for i in range(table.row_count)]


async def test_the_runs_table_sorts_by_a_clicked_header_and_by_keys(three_runs: Path) -> None:
    app = GuilensApp(lambda: RunsScreen(three_runs))
    async with app.run_test(size=(180, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, RunsScreen)
        await wait_for(pilot, lambda: len(screen.rows) == 3, what="three episodes")
        steps = {r.task.split(":")[1]: r.steps for r in screen.rows}
        assert len(set(steps.values())) == 3
        by_steps = [f"memory:{t}" for t in sorted(steps, key=steps.__getitem__)]

        table = screen.query_one(DataTable)
        x = sum(table.columns[c].get_render_width(table) for c in table.columns if str(c.value) != "steps"
                and COLUMNS.index(str(c.value)) < COLUMNS.index("steps"))
        await pilot.click(DataTable, offset=(x + 2, 0))  # the header cell of `steps`
        await wait_for(pilot, lambda: screen.sort_column == "steps", what="a sort by steps")
        assert task_names(screen) == by_steps and not screen.sort_reverse
        assert "steps ▲" in str(table.border_subtitle)
        await pilot.click(DataTable, offset=(x + 2, 0))  # again: the other way
        await wait_for(pilot, lambda: screen.sort_reverse)
        assert task_names(screen) == by_steps[::-1]

        await pilot.press("s")  # the next column: $
        assert screen.sort_column == "$" and not screen.sort_reverse
        await pilot.press("s", "s", "s")  # verdict, then round to run, then task
        assert screen.sort_column == "task"
        assert task_names(screen) == sorted(f"memory:{t}" for t in TASKS)
        await pilot.press("S")
        assert task_names(screen) == sorted((f"memory:{t}" for t in TASKS), reverse=True)
        await pilot.press("slash", *"cheaper")  # a filter keeps the sort
        await pilot.pause(0.2)
        assert task_names(screen) == ["memory:cheaper-headphones"]
        await pilot.press("escape")
        await pilot.pause(0.2)
        assert task_names(screen) == sorted((f"memory:{t}" for t in TASKS), reverse=True)


# -- the palette -----------------------------------------------------------------------------------
async def test_the_palette_lists_quit_once(tmp_path: Path, three_runs: Path, config: Path) -> None:
    settings = load_settings(run_dir=tmp_path / "runs")
    for first in (lambda: HomeScreen(settings), lambda: RunsScreen(three_runs)):
        app = GuilensApp(first, settings=settings)
        async with app.run_test(size=(140, 44)) as pilot:
            await pilot.pause(0.2)
            titles = [c.title for c in app.get_system_commands(app.screen)]
            assert titles.count("Quit") == 1, titles
            assert len(titles) == len({t.casefold() for t in titles}), titles
            assert "Theme" in titles  # Textual's own commands stay
            if isinstance(app.screen, RunsScreen):
                assert "Filter" in titles and "Sort" in titles  # and the screen's keys are still listed


# -- no colour -------------------------------------------------------------------------------------
async def test_no_color_reaches_the_tui(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`guilens --no-color` becomes `NO_COLOR=1`, which Textual reads when the app is made."""
    import os

    from typer.testing import CliRunner

    from guilens.cli import app as cli

    monkeypatch.setenv("GUILENS_CONFIG_FILE", str(tmp_path / "none.toml"))
    monkeypatch.setenv("NO_COLOR", "")  # restored (unset) after the test, whatever guilens sets
    assert CliRunner().invoke(cli, ["locate"]).exit_code == 0
    assert not GuilensApp(lambda: RunsScreen(tmp_path)).no_color  # empty: no switch (no-color.org)
    assert CliRunner().invoke(cli, ["--no-color", "locate"]).exit_code == 0
    assert os.environ["NO_COLOR"] == "1"
    app = GuilensApp(lambda: RunsScreen(tmp_path))
    assert app.no_color
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.2)
        assert isinstance(app.screen, RunsScreen)
