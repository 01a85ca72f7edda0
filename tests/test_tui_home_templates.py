"""The home screen and task templates: a template shows as one (its parameters, an example variant's
filled instruction at the chosen seed), and the launch passes variants and seed to `plan_run` as
`guilens run --variants N --seed S` does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tui_helpers  # noqa: F401
from textual.screen import Screen
from textual.widgets import Input, Select, Static

from guilens.config import Settings
from guilens.screens.app import GuilensApp
from guilens.screens.home_screen import HomeScreen


def _home(tmp_path: Path) -> GuilensApp:
    settings = Settings(run_dir=tmp_path / "runs", cache_dir=tmp_path / "cache")
    return GuilensApp(lambda: HomeScreen(settings))


async def _pick(pilot: Any, home: HomeScreen, scenario: str, task: str | None = None) -> None:
    home.query_one("#scenario", Select).value = scenario
    await pilot.pause(0.2)
    if task is not None:
        home.query_one("#task", Select).value = task
        await pilot.pause(0.2)


async def test_a_template_shows_its_parameters_and_an_example_variant(tmp_path: Path) -> None:
    app = _home(tmp_path)
    async with app.run_test(size=(160, 60)) as pilot:
        home = app.screen
        assert isinstance(home, HomeScreen)
        scenario = home.scenarios["variants"]
        template = next(t for t in scenario.tasks if t.params)
        await _pick(pilot, home, "variants", template.id)
        labels = [label for label, _ in home._task_options(scenario)]
        assert labels and not [x for x in labels if "{" in x], labels  # no raw `{first_item}` in the list
        info = str(home.query_one("#task-info", Static).render())
        assert "template" in info and "{" not in info, info
        assert all(f"{name}:" in info for name in template.params), info
        assert f"{template.id}~s0.0" in info
        assert home.query_one("#variants-row").display
        home.query_one("#seed", Input).value = "7"
        await pilot.pause(0.2)
        seven = str(home.query_one("#task-info", Static).render())
        assert f"{template.id}~s7.0" in seven and "{" not in seven
        await _pick(pilot, home, "demo")
        assert not home.query_one("#variants-row").display  # a scenario without templates has no variants


async def test_start_passes_variants_and_seed_to_the_plan(tmp_path: Path, monkeypatch: Any) -> None:
    import guilens.screens.launch as launch

    plans: list[Any] = []

    def capture(plan: Any, **kw: Any) -> Screen[None]:
        plans.append(plan)
        return Screen()

    monkeypatch.setattr(launch, "make_run_screen", capture)
    app = _home(tmp_path)
    async with app.run_test(size=(160, 60)) as pilot:
        home = app.screen
        assert isinstance(home, HomeScreen)
        template = next(t for t in home.scenarios["variants"].tasks if t.params)
        await _pick(pilot, home, "variants", template.id)
        home.query_one("#variants", Input).value = "2"
        home.query_one("#seed", Input).value = "3"
        await pilot.pause(0.1)
        home.action_start()
        await pilot.pause(0.2)
        assert plans, str(home.query_one("#home-error", Static).render())
        assert [t.id for t in plans[0].tasks] == [f"{template.id}~s3.0", f"{template.id}~s3.1"]
        assert "--variants 2 --seed 3" in plans[0].command
