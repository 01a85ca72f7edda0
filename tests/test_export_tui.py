"""A person's run in the run screen, exported: the path, the element they picked, their mark, all kept.

The person does the Notes task of the runner tests' pack with `--agent human`
in the run screen: commands on the `:` line, an element picked from the element
list, a milestone of their own marked with `m`. `guilens scenarios from-episode`
then writes a task that `guilens scenarios verify` passes, with the task's own
milestones and checks, and the mark as a milestone with a rule check.
"""

from __future__ import annotations

from pathlib import Path

import tui_helpers  # noqa: F401
import yaml
from runner_helpers import write_scenarios
from test_tui_run import run_screen, wait_for
from typer.testing import CliRunner

from guilens.episode import EpisodeReader
from guilens.screens.app import GuilensApp
from guilens.screens.modals import PromptScreen
from guilens.screens.widgets.human import HumanPanel


async def _person_writes_the_note(pack: Path, out: Path) -> Path:
    from guilens.run.plan import plan_run
    from guilens.screens.launch import make_run_screen

    plan = plan_run(f"{pack}:grocery", agent="human", devices=["sim"], user="oracle", level="L0", out=out)
    app = GuilensApp(lambda: make_run_screen(plan))
    async with app.run_test(size=(200, 60)) as pilot:
        screen = run_screen(app)

        async def turn(n: int) -> None:
            await wait_for(pilot, lambda: len(screen.steps) == n, what=f"step {n}")
            await wait_for(pilot, lambda: any(r.kind == "action" for r in screen.pending.values()), what="my turn")

        async def command(text: str, n: int) -> None:
            await turn(n)
            await pilot.press("colon", *text, "enter")

        await command("open notes", 0)
        await turn(1)
        panel = screen.query_one(HumanPanel)
        await wait_for(pilot, lambda: any("New note" in e.label for e in panel.elements))
        target = next(e for e in panel.elements if "New note" in e.label)
        panel.query_one("#elements").focus()
        await pilot.press(*["down"] * target.number, "enter")
        await turn(2)
        await pilot.press("m")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        await pilot.press(*"note started", "enter")
        await command("type Groceries", 2)
        await command('tap "id:body"', 3)
        await command("type milk", 4)
        await command("tap Save", 5)
        await command("finish", 6)
        await wait_for(pilot, lambda: screen.finished)
        return screen.finished_dirs[-1]


async def test_a_persons_run_in_the_run_screen_exports_to_a_task_that_verifies(tmp_path: Path) -> None:
    from guilens.cli import app

    pack, _ = write_scenarios(tmp_path)
    episode = await _person_writes_the_note(pack, tmp_path / "runs")
    reader = EpisodeReader(episode)
    assert reader.episode.status == "success"
    assert [s.by for s in reader.steps] == ["human"] * 7
    assert reader.steps[1].annotations == ["note started"]

    out = tmp_path / "baseline.yaml"
    res = CliRunner().invoke(app, ["scenarios", "from-episode", str(episode), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "task 'grocery-human': 7 golden steps, 3 milestones (1 from marks)" in res.output
    assert "verified: 1/1 task(s) of the file" in res.output

    task = yaml.safe_load(out.read_text())["tasks"][0]
    ref = [{k: v for k, v in r.items() if k != "why"} if isinstance(r, dict) else r for r in task["reference"]]
    # the element picked from the list by its id; the id and the text typed, as the person named them; the
    # note's text is the user's item, asked for where the task's own reference asks (at L1 and L2)
    assert ref == [{"open": "notes"}, {"tap": {"id": "new_note"}}, {"type": "Groceries"}, {"tap": {"id": "body"}},
                   {"ask": {"question": "What should the note say?", "slot": "item", "levels": ["L1", "L2"]}},
                   {"type": "{item}"}, {"tap": "Save"}, "finish"]
    # the task's milestones keep their checks; the mark is one more, checked by rules, where it was marked
    editor, mark, saved = task["milestones"]
    assert (editor["id"], editor["golden_step"], saved["id"], saved["golden_step"]) == ("editor", 2, "saved", 6)
    assert editor["check"] == {"state": "screen", "op": "equals", "value": "notes/edit"}
    assert mark["id"] == "note-started" and mark["text"] == "note started" and mark["golden_step"] == 2
    assert "check" in mark
    assert "success" not in task or task["success"].get("milestones") != "none"
