"""A labelled set built from real runs on the simulated phone, and the rules stage against it.

Labels come from how the episodes were made, not from any judge: the oracle
plays each task's reference (success); a sabotaged oracle stops one action short
of the reference's last milestone, or corrupts the numbers of its answer
(failure); a seeded random agent taps about (failure). The rules stage replays
the recorded files and must agree on every episode; `guilens judge` on the
oracle run and on the random run must say the same from the command line.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from guilens.judge.pipeline import judge_path
from guilens.judge.report import load_report
from tests.judge_helpers import OracleWrapper

MAX_TASKS = 4
"""Tasks taken from the built-in packs (the first ones of each), to keep the test quick."""


def _settings() -> Any:
    from guilens.config import load_settings

    return load_settings(screen_width=540, screen_height=1200)


def _tasks() -> dict[str, list[str]]:
    """Up to MAX_TASKS task ids per built-in sim task pack, by scenario."""
    from guilens.scenarios.loader import load_builtin

    picked: dict[str, list[str]] = {}
    total = 0
    for scenario in load_builtin():
        if scenario.kind != "tasks" or scenario.device != "sim":
            continue
        for task in scenario.tasks:
            if total < MAX_TASKS:
                picked.setdefault(scenario.id, []).append(task.id)
                total += 1
    return picked


def _run(scenario: str, tasks: list[str], agent: Any, out: Path) -> Path:
    """One run of `tasks` of a scenario, as `guilens run` makes it."""
    from guilens.run.engine import Runner
    from guilens.run.plan import plan_run

    plan = plan_run(scenario, agent=agent, out=out, settings=_settings(), check_agent=False, seed=7)
    plan.tasks = [t for t in plan.tasks if t.id in tasks]
    run_dir = Runner(plan).run().run_dir
    # The run's own copy of its scenario, which the judge prefers to the (editable) built-in pack.
    assert (run_dir / "scenario.json").is_file()
    return run_dir


class Sabotaged(OracleWrapper):
    """The oracle, made to fail in a way it cannot recover from: it claims success one action before
    the step that reached the reference's last milestone, or answers with every digit changed."""

    name = "sabotaged"

    def __init__(self, stop_at: dict[str, int], settings: Any = None) -> None:
        super().__init__(settings)
        self.stop_at = stop_at

    def step(self, inp: Any) -> Any:
        from guilens.actions import Answer, Finish
        from guilens.agents.base import AgentStep

        if inp.index >= self.stop_at.get(self.task, 10**6):
            return AgentStep(action=Finish(status="success"), thought="Looks done to me.", description="finish")
        out = self.inner.step(inp)
        if isinstance(out.action, Answer):
            wrong = re.sub(r"\d", lambda m: str((int(m[0]) + 1) % 10), out.action.text)
            out.action = Answer(text=wrong if wrong != out.action.text else out.action.text + " (unsure)")
        return out

    def lessons(self, episode: Any, steps: list[Any]) -> list[str]:
        return []


@pytest.fixture(scope="module")
def labelled(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tasks = _tasks()
    if not tasks:
        pytest.skip("no built-in sim task packs yet")
    root = tmp_path_factory.mktemp("labelled")
    oracle_runs = [_run(s, ts, "oracle", root / "oracle") for s, ts in tasks.items()]
    stop_at = {}
    for run in oracle_runs:
        for p in run.rglob("episode.json"):
            ep = json.loads(p.read_text())
            hits = [h["step"] for h in ep["milestones"]]
            # One action short of the last milestone; with none, stop before the final answer/finish.
            stop_at[ep["task"]] = max(hits) if hits else max(0, ep["steps"] - 2)
    sabotaged = [_run(s, ts, lambda settings=None: Sabotaged(stop_at, settings), root / "sabotaged")
                 for s, ts in tasks.items()]
    random_runs = [_run(s, ts, "random", root / "random") for s, ts in tasks.items()]
    label: dict[Path, str] = {}
    for runs, outcome in ((oracle_runs, "success"), (sabotaged, "failure"), (random_runs, "failure")):
        for run in runs:
            for ep_file in run.rglob("episode.json"):
                label[ep_file.parent] = outcome
    return {"label": label, "oracle": oracle_runs, "random": random_runs, "root": root}


def test_the_rules_stage_agrees_with_every_label(labelled: dict[str, Any]) -> None:
    label: dict[Path, str] = labelled["label"]
    assert len(label) == 3 * sum(1 for run in labelled["oracle"] for _ in run.rglob("episode.json"))
    disagree = []
    for d, want in sorted(label.items()):
        ((_, v),) = judge_path(d, ["rules"], force=True)
        rules = v.stage("rules")
        assert rules is not None
        if not (rules.status == "decided" and v.decision == want and v.decided_by == "rules"):
            disagree.append(f"{d}: labelled {want}, rules {rules.status} {v.decision}: {rules.reason}")
        if want == "success":
            assert v.progress == 1.0 and all(m.by == "rules" for m in v.milestones)
            live = json.loads((d / "episode.json").read_text())["milestones"]
            assert {h["id"]: h["step"] for h in live} == {m.id: m.step for m in v.milestones}
    assert not disagree, "\n".join(disagree)


def test_the_default_pipeline_without_a_key_decides_them_all_by_rules(labelled: dict[str, Any],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    for d, want in labelled["label"].items():
        ((_, v),) = judge_path(d, force=True)
        assert (v.decision, v.decided_by) == (want, "rules"), d
        llm = [s for s in v.stages if s.stage not in ("rules", "irr", "failure_mode")]
        assert llm and all(s.status == "skipped" and s.reason.startswith("decided by rules") for s in llm)
        irr = v.stage("irr")
        assert irr is not None and irr.calls == 0
        memory = irr.reason != "not a memory task"
        assert (irr.status == "done") == memory  # a failed memory task's IRR is counted by the rules
        if memory:
            assert irr.details["method"] == ("task_succeeded" if want == "success" else "rules"), d


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    return subprocess.run([sys.executable, "-m", "guilens", *args], capture_output=True, text=True, env=env,
                          timeout=120)


def test_guilens_judge_on_the_oracle_and_random_runs(labelled: dict[str, Any]) -> None:
    for runs, word in ((labelled["oracle"], "success"), (labelled["random"], "failure")):
        for run in runs:
            out = _cli("judge", str(run), "--force")
            assert out.returncode == 0, out.stderr
            lines = [ln for ln in out.stdout.splitlines() if "attempt-" in ln]
            assert lines and all(f"{word}" in ln and "by rules" in ln for ln in lines), out.stdout
    rep = load_report(labelled["oracle"][0])
    m = rep.metrics()
    assert m["sr"]["value"] == 1.0 and m["atp"]["value"] == 1.0 and m["undecided"] == 0
    assert m["step_ratio"]["value"] is not None and m["step_ratio"]["value"] <= 1.5
