"""`guilens compare`: McNemar by hand, the per-task table, deltas from the report's own metrics,
a folder of runs, the command line (--json, --html, piped text), its error lines, and two real runs
on the simulated phone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from guilens.judge.compare import cell_text, compare_paths, mcnemar_exact
from guilens.judge.report import load_report
from guilens.judge.verdict import Verdict
from tests.judge_helpers import make_run, record

TASKS = [f"t{i:02}" for i in range(1, 13)]
SCENARIO = "id: judgepack\ntitle: Compare tests\ntasks:\n" + "".join(
    f"""  - id: {t}
    apps: [notes]
    instruction: {{L0: "Task {t}"}}
    memory: {"cross-app" if i % 2 else "none"}
    difficulty: 1
    golden_steps: 2
""" for i, t in enumerate(TASKS))

# First attempts: the baseline A succeeds on t01-t08; B fails t01-t06 (b = 6) and succeeds on t09 (c = 1).
A_OUTCOMES = {**{t: ["success"] for t in TASKS[:8]}, "t09": ["failure"], "t10": ["failure"], "t12": ["success"]}
B_OUTCOMES = {**{t: ["failure", "success"] for t in TASKS[:6]}, "t07": ["success"], "t08": ["success"],
              "t09": ["success"], "t10": ["failure", "failure"], "t11": ["success"]}


def write_run(root: Path, run_id: str, outcomes: dict[str, list[str]], agent: str, cost: float,
              steps: int = 2) -> Path:
    """A run of hand-recorded episodes (no screens): each task's attempts with the given statuses."""
    run = make_run(root, run_id, SCENARIO)
    for task, statuses in outcomes.items():
        for n, status in enumerate(statuses, start=1):
            record(run, task, [["x"]] * (steps + 1), [{"type": "wait", "seconds": 1}] * steps, attempt=n,
                   status=status, with_ui=False, with_screens=False, cost_per_step=cost)
    k = max(len(s) for s in outcomes.values())
    (run / "run.json").write_text(json.dumps({"run_id": run_id, "agent": agent, "model": f"{agent}-model", "k": k}))
    return run


@pytest.fixture
def runs(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "runs"
    a = write_run(root, "run-a", A_OUTCOMES, "claude", 0.01, steps=2)
    b = write_run(root, "run-b", B_OUTCOMES, "openai", 0.03, steps=3)
    # The judge decided one attempt: t10's first in A, a failure with an IRR of 0.5 (a memory task).
    verdict = Verdict(task="t10", scenario="judgepack", run_id="run-a", decision="failure", decided_by="rules",
                      irr=0.5)
    (a / "t10" / "attempt-1" / "verdict.json").write_text(verdict.model_dump_json())
    return a, b


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "COLUMNS", "NO_COLOR")}
    env["GUILENS_CONFIG_FILE"] = "/nonexistent/guilens.toml"
    return subprocess.run([sys.executable, "-m", "guilens", *args], capture_output=True, text=True, env=env,
                          timeout=120)


def test_mcnemar_exact_p_by_hand() -> None:
    assert mcnemar_exact(6, 1) == pytest.approx(2 * (1 + 7) / 128)  # 0.125
    assert mcnemar_exact(1, 6) == mcnemar_exact(6, 1)
    assert mcnemar_exact(10, 0) == pytest.approx(2 / 1024)
    assert mcnemar_exact(3, 3) == 1.0  # 2 * 42/64 > 1: capped
    assert mcnemar_exact(0, 0) == 1.0
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 2)


def test_mcnemar_on_a_hand_made_pair_of_runs(runs: tuple[Path, Path]) -> None:
    comp = compare_paths(list(runs))
    [test] = comp.tests
    # Shared tasks: t01-t10 (t11 only in B, t12 only in A). Discordant: t01-t06 (A ✓ B ✗), t09 (A ✗ B ✓).
    assert (test.baseline, test.run, test.n, test.b, test.c, test.left_out) == ("run-a", "run-b", 10, 6, 1, 0)
    assert test.p_value == pytest.approx(0.125)


def test_task_rows_show_tasks_missing_from_a_run(runs: tuple[Path, Path]) -> None:
    comp = compare_paths(list(runs))
    rows = {r.task: r for r in comp.tasks}
    assert [r.task for r in comp.tasks] == [*TASKS[:10], "t12", "t11"]  # the baseline's order, then B's own
    a11, b11 = rows["t11"].cells
    assert a11 is None and cell_text(a11) == "missing"
    assert b11 is not None and b11.outcomes == [True] and cell_text(b11) == "✓ · 3/2 steps"
    a12, b12 = rows["t12"].cells
    assert b12 is None and a12 is not None and a12.first is True
    a1, b1 = rows["t01"].cells
    assert a1 is not None and b1 is not None
    assert b1.outcomes == [False, True] and b1.tally == "1/2" and cell_text(b1) == "✗✓ 1/2 · 3/2 steps"
    data = comp.to_json()
    t11 = next(t for t in data["tasks"] if t["task"] == "t11")
    assert t11["cells"][0] is None and t11["cells"][1]["successes"] == 1


def test_deltas_are_the_differences_of_the_reports_metrics(runs: tuple[Path, Path]) -> None:
    comp = compare_paths(list(runs))
    ma, mb = load_report(runs[0]).metrics(), load_report(runs[1]).metrics()
    rows = {m.key: m for m in comp.metrics}
    assert set(rows) == {"sr", "pass@2", "irr", "step_ratio", "cost_per_task_usd", "cost_per_step_usd"}
    for key in ("sr", "irr", "step_ratio", "cost_per_step_usd"):
        assert rows[key].values[0]["value"] == ma[key]["value"], key
        assert rows[key].values[1]["value"] == mb[key]["value"], key
        assert rows[key].deltas == [None, pytest.approx(mb[key]["value"] - ma[key]["value"])], key
    # A: SR 9/11 (t12 too); B: 4/11. The verdict made t10's failure count with its IRR 0.5.
    assert ma["sr"]["value"] == pytest.approx(9 / 11) and mb["sr"]["value"] == pytest.approx(4 / 11)
    assert rows["sr"].deltas[1] == pytest.approx(4 / 11 - 9 / 11, abs=1e-5)  # the report rounds to 6 places
    assert load_report(runs[0]).rows[9].outcome_source == "judge:rules"
    # pass@2: A gave one attempt and failed t09, t10: unknown at 2; B's is its report's.
    assert rows["pass@2"].values[0]["value"] is None and rows["pass@2"].deltas == [None, None]
    assert rows["pass@2"].values[1]["value"] == mb["pass_at_k"]["2"]["value"] == pytest.approx(10 / 11, abs=1e-5)
    # A's memory tasks (t02 ... t12): five successes (IRR 1) and t10's 0.5 from its verdict.
    assert rows["irr"].values[0]["value"] == pytest.approx(5.5 / 6, abs=1e-5)
    assert rows["cost_per_task_usd"].values[0]["value"] == pytest.approx(ma["agent_cost_usd"] / ma["tasks"])
    assert rows["cost_per_step_usd"].deltas[1] == pytest.approx(0.02)
    assert rows["cost_per_step_usd"].better == -1 and rows["sr"].better == 1


def test_one_folder_of_runs_is_the_same_as_naming_them(runs: tuple[Path, Path]) -> None:
    by_folder = compare_paths([runs[0].parent]).to_json()
    by_paths = compare_paths(list(runs)).to_json()
    assert by_folder == by_paths
    assert [r["name"] for r in by_folder["runs"]] == ["run-a (claude, claude-model)", "run-b (openai, openai-model)"]


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tables: list[str] = []
        self.classes: list[str] = []
        self.external: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table" and a.get("id"):
            self.tables.append(a["id"] or "")
        self.classes += (a.get("class") or "").split()
        for key in ("src", "href"):
            if (a.get(key) or "").startswith(("http:", "https:", "//")):
                self.external.append(a[key] or "")

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_the_command_prints_json_writes_html_and_plain_text(runs: tuple[Path, Path], tmp_path: Path) -> None:
    page = tmp_path / "out" / "compare.html"
    out = cli("compare", *map(str, runs), "--json", "--html", str(page))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)  # --json alone on stdout
    assert data["baseline"] == "run-a" and data["k"] == 2
    assert data["mcnemar"] == [{"baseline": "run-a", "run": "run-b", "n_shared": 10, "b": 6, "c": 1,
                                "p_value": 0.125, "left_out": 0}]
    html = _Page()
    html.feed(page.read_text(encoding="utf-8"))
    assert html.tables == ["runs", "metrics", "mcnemar", "tasks"] and not html.external
    assert "worse" in html.classes and "better" in html.classes and "missing" in html.classes
    text = "".join(html.text)
    assert "run-a (claude, claude-model) (baseline)" in text and "-45.5 pp" in text and "0.125" in text

    plain = cli("compare", *map(str, runs))
    assert plain.returncode == 0, plain.stderr
    assert "\x1b[" not in plain.stdout  # piped: no colour codes
    assert "A run-a (claude, claude-model)  (baseline)" in plain.stdout
    assert "b=6" in plain.stdout and "c=1" in plain.stdout and "p=0.125" in plain.stdout
    assert any(line.split("│")[1].strip() == "t11" and "missing" in line for line in plain.stdout.splitlines()
               if line.count("│") > 2)


def test_bad_paths_are_one_error_line(runs: tuple[Path, Path], tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "run.json").write_text("{not json")
    cases = [
        ([str(tmp_path / "nope"), str(runs[0])], f"{tmp_path / 'nope'}: no such file or directory"),
        ([str(empty), str(runs[0])], f"{empty}: no run here"),
        ([str(runs[0])], "compare needs two runs or more; got only one run"),
        ([str(runs[0]), str(runs[0])], "compare needs two runs or more"),
        ([str(broken), str(runs[0])], f"{broken / 'run.json'}: unreadable: not JSON"),
        ([*map(str, runs), "--k", "0"], "--k 0: must be 1 or more"),
        ([*map(str, runs), "--html", str(tmp_path)], f"--html {tmp_path}: it is a folder"),
    ]
    for args, said in cases:
        out = cli("compare", *args)
        assert out.returncode == 2, (args, out.stderr)
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and said in lines[0], (args, out.stderr)


def test_two_real_runs_on_the_sim(tmp_path: Path) -> None:
    """The oracle and a random agent on the memory pack; compare the folder that holds both runs."""
    out_dir = tmp_path / "runs"
    for agent in (["--agent", "oracle"], ["--agent", "random", "--seed", "7", "--max-steps", "3"]):
        done = cli("run", "memory", *agent, "--headless", "--out", str(out_dir))
        assert done.returncode == 0, done.stderr
    oracle_dir, random_dir = sorted(out_dir.iterdir(), key=lambda p: "random" in p.name)
    out = cli("compare", str(out_dir), "--json", "--html", str(tmp_path / "c.html"))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert [r["agent"] for r in data["runs"]] == ["oracle", "random"]
    # What each run recorded, read from its own run.json, gives b and c.
    first = [{t: r["statuses"][0] == "success" for t, r in json.loads((d / "run.json").read_text())["results"].items()}
             for d in (oracle_dir, random_dir)]
    b = sum(1 for t in first[0] if first[0][t] and not first[1][t])
    c = sum(1 for t in first[0] if not first[0][t] and first[1][t])
    [test] = data["mcnemar"]
    assert (test["n_shared"], test["b"], test["c"]) == (26, b, c) and b >= 20
    assert test["p_value"] == pytest.approx(mcnemar_exact(b, c))
    sr = {m["key"]: m for m in data["metrics"]}["sr"]
    assert sr["values"][0]["value"] == 1.0 and sr["deltas"][1] == pytest.approx(sr["values"][1]["value"] - 1.0)
    assert (tmp_path / "c.html").stat().st_size > 5_000


def test_undecided_first_attempts_are_left_out_of_the_test(tmp_path: Path) -> None:
    a = write_run(tmp_path, "a", {"t01": ["success"], "t02": ["success"], "t03": ["failure"]}, "claude", 0.0)
    b = write_run(tmp_path, "b", {"t01": ["aborted"], "t02": ["failure"], "t03": ["failure"]}, "claude", 0.0)
    comp = compare_paths([a, b], k=1)
    [test] = comp.tests
    assert (test.n, test.b, test.c, test.left_out, test.p_value) == (2, 1, 0, 1, 1.0)
    assert [m.key for m in comp.metrics][:2] == ["sr", "irr"]  # --k 1: no pass@k row beside SR
    b1 = comp.tasks[0].cells[1]
    assert b1 is not None and b1.first is None and cell_text(b1).startswith("? ")
