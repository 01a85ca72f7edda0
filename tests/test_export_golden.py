"""`guilens scenarios from-episode` on whole packs: every export of a successful episode verifies.

The measured acceptance of issue 11 (Build item 1):
- the oracle's runs of the memory pack (26 tasks), the day (10) and the demo
  (at its most ambiguous level, as `guilens demo` runs it): every episode
  exported and the file verified with `guilens scenarios verify`;
- a person (the human agent, driven by `export_helpers.Person`) doing every
  built-in task (37) along its reference with a detour, marking a milestone:
  every export verifies, and its golden steps count the detour.

Runs are shared by the tests of this module, on the simulated phone in-process.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from export_helpers import MARK, Person, plan_detours
from runner_helpers import run
from typer.testing import CliRunner

from guilens.cli import app
from guilens.episode import EpisodeReader, find_episodes
from guilens.scenarios.loader import find_scenario

pytestmark = pytest.mark.slow
PACKS = (("memory", "L0"), ("day", "L0"), ("demo", "L2"))
TIMES: dict[str, float] = {}


def _export_and_verify(episode: Path, out: Path) -> tuple[bool, str, dict[str, Any]]:
    """What a user does: export, then `scenarios verify` the file. (ok, output, the written task)."""
    cli = CliRunner()
    res = cli.invoke(app, ["scenarios", "from-episode", str(episode), "--out", str(out), "--no-verify"])
    if res.exit_code != 0:
        return False, res.output, {}
    data = yaml.safe_load(out.read_text())
    task = next(t for t in data["tasks"] if "baseline" in t.get("meta", {}))
    said = re.search(r"(\d+) golden steps, (\d+) milestones?", res.output)
    held = sum(len(it["unordered"]) if "unordered" in it else 1 for it in task.get("milestones", []))
    assert said is not None and (int(said[1]), int(said[2])) == (task["golden_steps"], held), res.output
    checked = cli.invoke(app, ["scenarios", "verify", str(out)])
    return checked.exit_code == 0, res.output + checked.output, task


@pytest.fixture(scope="module")
def oracle_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Path]]:
    out = tmp_path_factory.mktemp("oracle")
    t = time.perf_counter()
    runs = {pack: find_episodes(run(pack, out / pack, agent="oracle", level=level).run_dir) for pack, level in PACKS}
    TIMES["oracle runs"] = time.perf_counter() - t
    return runs


@pytest.fixture(scope="module")
def person_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, list[Path]], dict[str, Person]]:
    from guilens.config import Settings
    from guilens.control import QuestionChannel
    from guilens.run.engine import Runner
    from guilens.run.plan import plan_run

    out = tmp_path_factory.mktemp("person")
    t = time.perf_counter()
    runs: dict[str, list[Path]] = {}
    people: dict[str, Person] = {}
    for pack, _ in PACKS:
        channel = QuestionChannel()
        person = Person(plan_detours(find_scenario(pack)), channel)
        plan = plan_run(pack, agent="human", devices=["sim"], user="oracle", level="L0", out=out / pack,
                        settings=Settings())
        runner = Runner(plan, observers=[person], channel=channel)
        person.runner = runner
        runs[pack] = find_episodes(runner.run().run_dir)
        people[pack] = person
    TIMES["person runs"] = time.perf_counter() - t
    return runs, people


@pytest.mark.parametrize(("pack", "want"), [("memory", 26), ("day", 10), ("demo", 1)])
def test_every_oracle_episode_exports_to_a_task_that_verifies(oracle_runs: dict[str, list[Path]], tmp_path: Path,
                                                              pack: str, want: int) -> None:
    episodes = oracle_runs[pack]
    assert len(episodes) == want
    t = time.perf_counter()
    failed = []
    for ep_dir in episodes:
        reader = EpisodeReader(ep_dir)
        ok, output, task = _export_and_verify(ep_dir, tmp_path / f"{reader.episode.task}.yaml")
        if not ok:
            failed.append(f"{reader.episode.task}:\n{output}")
            continue
        # the agent's path is the reference, step for step; golden steps count it at L0, where the demo's
        # instruction names the headphones and the oracle does not ask which
        assert task["golden_steps"] == len(reader.steps) - (pack == "demo")
        assert task["meta"]["baseline"]["by"] == "oracle"
    TIMES[f"oracle {pack} exports"] = time.perf_counter() - t
    assert not failed, f"{len(episodes) - len(failed)}/{len(episodes)} verified:\n" + "\n".join(failed)


def test_every_task_done_by_a_person_with_a_detour_exports_to_a_task_that_verifies(
        person_runs: tuple[dict[str, list[Path]], dict[str, Person]], tmp_path: Path) -> None:
    runs, people = person_runs
    assert all(not p.errors for p in people.values()), [p.errors for p in people.values()]
    builtin = {s.id: s for s in (find_scenario(pack) for pack, _ in PACKS)}
    episodes = [ep for pack, _ in PACKS for ep in runs[pack]]
    assert len(episodes) == 37
    t = time.perf_counter()
    passed, failed = 0, []
    for ep_dir in episodes:
        reader = EpisodeReader(ep_dir)
        ep = reader.episode
        assert ep.status == "success", f"{ep.task}: {ep.status} {ep.outcome_reason}"
        assert {s.by for s in reader.steps} == {"human"}
        original = builtin[ep.scenario].task(ep.task)
        ok, output, task = _export_and_verify(ep_dir, tmp_path / f"{ep.task}.yaml")
        if not ok:
            failed.append(f"{ep.task}:\n{output}")
            continue
        passed += 1
        # the detour (back, and the same step again) is part of the golden path
        assert task["golden_steps"] == original.golden_steps + 2 == len(reader.steps)
        assert "back" in task["reference"]
        assert task["id"] == f"{ep.task}-human" and task["meta"]["baseline"]["by"] == "human"
        # the task's own milestones and checks are all kept, the person's mark added with a check of its own
        ids = [m["id"] for it in task["milestones"] for m in (it.get("unordered") or [it])]
        assert set(ids) >= {m.id for m in original.all_milestones()}
        (mark,) = [m for it in task["milestones"] for m in (it.get("unordered") or [it]) if m["text"] == MARK]
        assert "check" in mark and mark["golden_step"] == people[ep.scenario].marked[ep.task]
        assert task.get("success", {}).get("milestones") != "none"
    TIMES["person exports"] = time.perf_counter() - t
    assert not failed, f"{passed}/{len(episodes)} verified:\n" + "\n".join(failed)


def test_report_times() -> None:
    """Not a check: prints how long the shared runs and the exports took (`pytest -s`)."""
    for what, secs in TIMES.items():
        print(f"{what}: {secs:.1f} s")
