"""Human baselines end to end: a person runs a task with `--agent human` in the run screen,
marks a milestone, and `guilens scenarios from-episode` writes a task whose reference replays."""

from __future__ import annotations

from pathlib import Path

import tui_helpers  # noqa: F401
import yaml
from test_tui_run import run_screen, wait_for
from typer.testing import CliRunner

from guilens.episode import EpisodeReader
from guilens.screens.app import GuilensApp
from guilens.screens.modals import PromptScreen
from guilens.screens.widgets.human import HumanPanel


async def _person_writes_a_note(out: Path) -> Path:
    from guilens.run.plan import plan_run
    from guilens.scenarios.loader import load_builtin
    from guilens.screens.launch import make_run_screen

    scenario, task = next((s, t) for s in load_builtin() if s.device == "sim" and s.kind == "tasks"
                          for t in s.tasks if "notes" in t.apps)
    plan = plan_run(f"{scenario.id}:{task.id}", agent="human", devices=["sim"], user="oracle", level="L0", out=out)
    app = GuilensApp(lambda: make_run_screen(plan))
    async with app.run_test(size=(200, 60)) as pilot:
        screen = run_screen(app)

        async def turn() -> None:
            await wait_for(pilot, lambda: any(r.kind == "action" for r in screen.pending.values()), what="my turn")

        await turn()
        assert screen.state == "human"
        await pilot.press("colon", *"open notes", "enter")
        await wait_for(pilot, lambda: len(screen.steps) == 1)
        await turn()
        panel = screen.query_one(HumanPanel)
        await wait_for(pilot, lambda: any("New note" in e.label for e in panel.elements))
        target = next(e for e in panel.elements if "New note" in e.label)
        panel.query_one("#elements").focus()
        await pilot.press(*["down"] * target.number, "enter")
        await wait_for(pilot, lambda: len(screen.steps) == 2)
        await pilot.press("m")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        await pilot.press(*"note started", "enter")
        await turn()
        await pilot.press("colon", *"type Groceries", "enter")
        await wait_for(pilot, lambda: len(screen.steps) == 3)
        await turn()
        await pilot.press("colon", *"finish", "enter")
        await wait_for(pilot, lambda: screen.finished)
        return screen.finished_dirs[-1]


async def test_a_human_run_becomes_a_task_whose_reference_replays(tmp_path: Path) -> None:
    from guilens.cli import app
    from guilens.device.sim import SimDevice
    from guilens.scenarios.loader import load_scenario
    from guilens.scenarios.reference import run_reference

    episode = await _person_writes_a_note(tmp_path / "runs")
    steps = EpisodeReader(episode).steps
    assert [s.by for s in steps] == ["human"] * 4
    assert steps[1].annotations == ["note started"]

    out = tmp_path / "baseline.yaml"
    res = CliRunner().invoke(app, ["scenarios", "from-episode", str(episode), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "4 golden steps, 1 milestones" in res.output

    data = yaml.safe_load(out.read_text())
    task = data["tasks"][0]
    assert task["golden_steps"] == 4
    assert task["milestones"] == [{"id": "note-started", "text": "note started", "golden_step": 2}]
    ref = [{k: v for k, v in (r.items() if isinstance(r, dict) else {"bare": r}.items()) if k != "why"}
           for r in task["reference"]]
    assert ref[0] == {"open": "notes"} and ref[2] == {"type": "Groceries"} and ref[3] == {"bare": "finish"}
    assert set(ref[1]) == {"tap"}  # an element id or text, never pixels
    assert isinstance(ref[1]["tap"], str) or set(ref[1]["tap"]) & {"id", "text", "desc"}

    scenario = load_scenario(out)  # valid as written
    written = scenario.tasks[0]
    dev = SimDevice()
    dev.load_setup(scenario.setup_for(written))
    played = run_reference(written, dev, "L0")
    assert played.error is None and len(played.steps) == 4
    assert "Groceries" in (dev.observe().ui_xml or "")  # the note editor shows what the person typed


def test_from_episode_explains_an_episode_without_actions(tmp_path: Path) -> None:
    from guilens.cli import app

    res = CliRunner().invoke(app, ["scenarios", "from-episode", str(tmp_path), "--out", str(tmp_path / "x.yaml")])
    assert res.exit_code == 2 and "episode.json" in res.output
