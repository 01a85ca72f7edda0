"""The pack summary (`guilens scenarios stats`, and `stats` in `scenarios list --json`) on a small
hand-made pack whose counts are known, and on bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from guilens.cli import app
from guilens.scenarios.loader import load_scenario
from guilens.scenarios.stats import apps_bucket, pack_stats, steps_range, tier_of, total_stats


def _task(tid: str, steps: int, apps: list[str], memory: str = "none", difficulty: int = 1, extra: str = "") -> str:
    return f"""\
  - id: {tid}
    apps: [{', '.join(apps)}]
    instruction: {{L0: "Do {tid}"}}
    memory: {memory}
    difficulty: {difficulty}
    golden_steps: {steps}
{extra}"""


TASKS = "id: small\ntitle: Small\ntasks:\n" + "".join([
    _task("a", 5, ["notes"]),
    _task("b", 20, ["shop", "notes"], "cross-app", extra="    mirror_of: a\n"),
    _task("c", 21, ["shop", "notes", "search"], "cross-app", 2),
    _task("d", 40, ["shop", "notes", "search", "messages"], "cross-temporal", 1),  # declared easy, is medium
    _task("e", 41, ["shop", "notes", "search", "messages"], "cross-app", 3, extra=(
        "    milestones:\n      - id: n\n        text: N\n        any_of:\n"
        "          - {id: p, milestones: [{id: m1, text: M1, check: {app: notes}}]}\n"
        "          - {id: q, milestones: [{id: m2, text: M2, check: {app: shop}}]}\n")),
    _task("f", 75, ["shop", "notes", "search", "messages", "maps"], "cross-app", 3),
])
DAY = """\
id: smallday
title: Two days
kind: sequence
start: 2026-11-21
tasks:
  - {id: one, apps: [notes], instruction: {L0: "x"}, difficulty: 1, golden_steps: 3, clock: "08:00"}
  - {id: two, apps: [notes], instruction: {L0: "y"}, difficulty: 1, golden_steps: 4, clock: "09:00"}
  - {id: three, apps: [notes], instruction: {L0: "z"}, difficulty: 1, golden_steps: 5, clock: "09:00", day: 1}
"""


def _write(tmp: Path, name: str, text: str) -> Path:
    p = tmp / name
    p.write_text(text, encoding="utf-8")
    return p


def test_the_buckets_follow_the_papers() -> None:
    assert [tier_of(n) for n in (1, 20, 21, 40, 41, 160)] == ["easy", "easy", "medium", "medium", "hard", "hard"]
    assert [steps_range(n) for n in (1, 10, 11, 41, 60, 61)] == ["1-10", "1-10", "11-20", "41-60", "41-60", "61+"]
    assert [apps_bucket(n) for n in (1, 4, 5, 9)] == ["1", "4", "5+", "5+"]


def test_counts_of_a_hand_made_pack(tmp_path: Path) -> None:
    st = pack_stats(load_scenario(_write(tmp_path, "small.yaml", TASKS)))
    assert st.tasks == 6
    assert st.by_tier == {"easy": 2, "medium": 2, "hard": 2}
    assert st.by_difficulty == {"easy": 3, "medium": 1, "hard": 2}
    assert st.by_memory == {"none": 1, "cross-app": 4, "cross-temporal": 1}
    assert st.by_apps == {"1": 1, "2": 1, "3": 1, "4": 2, "5+": 1}
    assert st.by_steps == {"1-10": 1, "11-20": 1, "21-30": 1, "31-40": 1, "41-60": 1, "61+": 1}
    assert (st.mirror_pairs, st.with_alternatives, st.templates, st.instantiated) == (1, 1, 0, None)
    assert st.tier_mismatches == ["d (declared easy, 40 steps: medium)"]
    day = pack_stats(load_scenario(_write(tmp_path, "day.yaml", DAY)))
    assert (day.kind, day.tasks, day.sequence_tasks, day.days) == ("sequence", 3, 3, 2)
    total = total_stats([st, day])
    assert (total.tasks, total.sequence_tasks, total.days) == (9, 3, 2)
    assert total.by_tier == {"easy": 5, "medium": 2, "hard": 2}
    assert total.tier_mismatches == ["small:d (declared easy, 40 steps: medium)"]


def test_templates_count_their_distinct_variants() -> None:
    from guilens.scenarios.loader import load_builtin

    packs = [s for s in load_builtin() if any(t.params for t in s.tasks)]
    if not packs:
        pytest.skip("no built-in pack has task templates")
    s = packs[0]
    n = sum(1 for t in s.tasks if t.params)
    st = pack_stats(s, variants=3, seed=5)
    assert st.templates == n and st.instantiated == 3 * n and (st.variants, st.seed) == (3, 5)
    assert pack_stats(s).instantiated is None  # nothing drawn without --variants


def test_cli_stats_text_json_and_list(tmp_path: Path) -> None:
    small = _write(tmp_path, "small.yaml", TASKS)
    day = _write(tmp_path, "day.yaml", DAY)
    r = CliRunner().invoke(app, ["scenarios", "stats", str(small), str(day)])
    assert r.exit_code == 0, r.output
    assert "small (tasks): 6 tasks" in r.output and "smallday (sequence): 3 tasks, 3 in sequences over 2 days" in r.output
    assert "tier (golden steps)   easy 2  medium 2  hard 2" in r.output and "total: 9 tasks" in r.output
    r = CliRunner().invoke(app, ["scenarios", "stats", str(small), "--json"])
    data = json.loads(r.output)
    assert data["packs"][0]["by_apps"] == {"1": 1, "2": 1, "3": 1, "4": 2, "5+": 1} and data["total"]["tasks"] == 6
    r = CliRunner().invoke(app, ["scenarios", "list", str(small), "--json"])
    assert json.loads(r.output)[0]["stats"]["by_tier"] == {"easy": 2, "medium": 2, "hard": 2}


def test_builtin_packs_meet_the_issue_goals() -> None:
    r = CliRunner().invoke(app, ["scenarios", "stats", "hard", "--json"])
    assert r.exit_code == 0, r.output
    hard = json.loads(r.output)["packs"][0]
    assert hard["by_tier"].get("hard", 0) >= 10 and hard["with_alternatives"] >= 4


@pytest.mark.parametrize("args", [["nosuchpack"], ["hard", "nosuchpack"]])
def test_a_bad_pack_name_is_one_line(args: list[str]) -> None:
    r = CliRunner().invoke(app, ["scenarios", "stats", *args])
    assert r.exit_code == 2
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and "nosuchpack: no built-in scenario or file by that name" in lines[0]
    assert "Traceback" not in r.output


def test_a_bad_variants_count_is_one_line() -> None:
    from guilens.scenarios.loader import load_builtin

    packs = [s.id for s in load_builtin() if any(t.params for t in s.tasks)]
    if not packs:
        pytest.skip("no built-in pack has task templates")
    r = CliRunner().invoke(app, ["scenarios", "stats", packs[0], "--variants", "0"])
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1 and "--variants 0" in r.output
