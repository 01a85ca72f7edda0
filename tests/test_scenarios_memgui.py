"""Importing MemGUI-Bench's 128 tasks."""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from guilens.scenarios.errors import ScenarioError
from guilens.scenarios.loader import load_scenario
from guilens.scenarios.memgui import import_memgui, milestone_texts, split_camel
from guilens.scenarios.model import Scenario

CSV = Path(__file__).resolve().parents[2] / "shared" / "data" / "memgui-tasks-all.csv"
if not CSV.exists():
    CSV = Path("/work/shared/data/memgui-tasks-all.csv")


@pytest.fixture(scope="module")
def memgui() -> Scenario:
    return import_memgui(CSV)


def test_all_128_tasks_import_with_the_benchmark_counts(memgui: Scenario) -> None:
    tasks = memgui.tasks
    assert len(tasks) == 128
    assert memgui.device == "any" and memgui.kind == "tasks"
    assert sum(t.memory != "none" for t in tasks) == 115
    assert sum(len(t.apps) > 1 for t in tasks) == 100
    assert Counter(len(t.apps) for t in tasks) == {1: 28, 2: 56, 3: 34, 4: 10}
    assert Counter(t.difficulty for t in tasks) == {1: 48, 2: 42, 3: 38}
    gs = [t.golden_steps for t in tasks]
    assert (min(gs), max(gs), round(sum(gs) / len(gs), 2)) == (3, 160, 36.19)
    assert sum(1 for t in tasks if t.mirror_of) == 64
    assert sum(t.forbid_copy for t in tasks) == 6


def test_a_task_in_detail(memgui: Scenario) -> None:
    t = memgui.task("056-SearchAndCalculate")
    assert t.apps == ["bing", "Calculator"]
    assert t.memory == "cross-app"
    assert (t.golden_steps, t.difficulty, t.budget) == (35, 2, 50)
    assert t.mirror_of == "055-SearchAndCalculate"
    assert t.instruction.L0.startswith("In Bing app, find the current stock prices for NVIDIA (NVDA)")
    assert t.levels == ["L0"]
    assert t.answer is not None and not t.answer.decidable
    assert "Information Retrieval: Data Extraction" in t.categories
    assert [m.text for m in t.all_milestones()] == [
        "In Bing app, find the current stock prices for NVIDIA (NVDA) and Apple (AAPL).",
        "In the Calculator app, first calculate the value of 50 NVDA shares.",
        "Calculate the value of 75 AAPL shares.",
        "Calculate the total combined value of both holdings.",
        "Directly answer with the final combined value.",
    ]
    assert all(m.check is None for m in t.all_milestones())  # real apps: the LLM judges
    assert t.meta["source"] == "MemGUI-Bench" and t.meta["output_type"] == "Direct Command Output"


def test_budget_is_floor_1_4_golden_plus_1(memgui: Scenario) -> None:
    for t in memgui.tasks:
        assert t.budget == int(t.golden_steps * 1.4 + 1)


def test_helpers() -> None:
    assert split_camel("FindProductAndFilter") == "Find product and filter"
    assert split_camel("CheckRamCompatibilityAndPrice") == "Check ram compatibility and price"
    assert milestone_texts("Open X. Remember it. Do not use copy.") == ["Open X."]
    assert milestone_texts("Remember it.") == ["Remember it."]


def test_cli_writes_a_valid_scenario(tmp_path: Path) -> None:
    out = tmp_path / "memgui.yaml"
    res = subprocess.run([sys.executable, "-m", "guilens", "scenarios", "import-memgui", str(CSV), "--out", str(out)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "128 tasks (115 memory, 100 cross-app, 64 mirror pairs)" in res.stdout
    s = load_scenario(out)
    assert len(s.tasks) == 128
    val = subprocess.run([sys.executable, "-m", "guilens", "scenarios", "validate", str(out)],
                         capture_output=True, text=True)
    assert val.returncode == 0, val.stderr


def _rows(n: int = 4) -> list[dict[str, str]]:
    with CSV.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))[:n]


def _write(tmp_path: Path, rows: list[dict[str, str]], header: list[str] | None = None) -> Path:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=header or list(rows[0]))
    w.writeheader()
    for r in rows:
        w.writerow({k: r.get(k, "") for k in (header or list(rows[0]))})
    p = tmp_path / "tasks.csv"
    p.write_text(buf.getvalue())
    return p


def test_bad_rows_are_named_by_line_and_id(tmp_path: Path) -> None:
    rows = _rows()
    rows[1]["golden_steps"] = "many"
    rows[2]["task_app"] = "Amazon"
    rows[3]["num_apps"] = "2"
    rows[3]["task_difficulty"] = "5"
    with pytest.raises(ScenarioError) as info:
        import_memgui(_write(tmp_path, rows))
    ps = info.value.problems
    assert len(ps) == 3, ps
    assert ps[0].endswith("tasks.csv:3: task '002-FindProductAndFilter': golden_steps 'many' is not a whole number")
    assert "tasks.csv:4: task '003-RecordAndNameAudio': task_app 'Amazon' is not a list like ['Amazon', 'joplin']" in ps[1]
    assert "tasks.csv:5: task '004-ConfigureRecordAndNameAudio': num_apps is 2 but task_app lists 1" in ps[2]


def test_duplicate_ids_missing_columns_and_files(tmp_path: Path) -> None:
    rows = _rows(2)
    rows[1]["task_identifier"] = rows[0]["task_identifier"]
    with pytest.raises(ScenarioError, match="task '001-FindProductAndFilter': duplicate task_identifier"):
        import_memgui(_write(tmp_path, rows))
    header = [k for k in rows[0] if k != "golden_steps"]
    with pytest.raises(ScenarioError, match=r"tasks.csv:1: not a MemGUI-Bench task table: missing column\(s\) golden_steps"):
        import_memgui(_write(tmp_path, rows, header))
    with pytest.raises(ScenarioError, match="cannot read"):
        import_memgui(tmp_path / "none.csv")


def test_cli_bad_csv_exits_2_without_traceback(tmp_path: Path) -> None:
    rows = _rows(2)
    rows[0]["is_cross_app"] = "maybe"
    p = _write(tmp_path, rows)
    res = subprocess.run([sys.executable, "-m", "guilens", "scenarios", "import-memgui", str(p), "--out",
                          str(tmp_path / "o.yaml")], capture_output=True, text=True)
    assert res.returncode == 2
    assert "is_cross_app 'maybe' is not Y or N" in res.stderr and "Traceback" not in res.stderr
