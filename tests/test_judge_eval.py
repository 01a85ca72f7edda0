"""Scoring the judge against people's labels: `label.json`, the agreement scores, `guilens judge-eval`.

The labelled set is made of real attempts on the simulated phone: the oracle
playing the reference (the rules judge them success) and a seeded random agent
(the rules judge them failure). People's labels are written through
`guilens.judge.labels`, some agreeing with the judge and some not, so the
confusion matrix is known in advance and every score is computed by hand here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from guilens.episode import find_episodes
from guilens.judge.agreement import Case, Confusion, evaluate
from guilens.judge.labels import LabelError, clear_label, find_labelled, read_label, write_label
from guilens.judge.options import RULES_ONLY_STAGES
from guilens.judge.pipeline import judge_path
from tests import fakeapi
from tests.fakeapi import text
from tests.judge_helpers import by_role, role_of

fake_api = fakeapi.fake_api

ROOT = Path(__file__).resolve().parent.parent


def _run(agent: str, n: int, out: Path) -> list[Path]:
    """The first `n` tasks of the built-in memory pack, played by `agent`; the attempt directories."""
    from guilens.config import load_settings
    from guilens.run.engine import Runner
    from guilens.run.plan import plan_run

    plan = plan_run("memory", agent=agent, out=out, settings=load_settings(screen_width=540, screen_height=1200),
                    check_agent=False, seed=7)
    plan.tasks = plan.tasks[:n]
    return find_episodes(Runner(plan).run().run_dir)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Path]]:
    root = tmp_path_factory.mktemp("judge-eval")
    oracle, rand = _run("oracle", 8, root / "oracle"), _run("random", 4, root / "random")
    for d in oracle + rand:  # the judge's side of the matrix, checked before anything is scored
        ((_, v),) = judge_path(d, ["rules"])
        assert v.decided_by == "rules", (d, v.reason)
    assert [judge_path(d, ["rules"])[0][1].decision for d in oracle] == ["success"] * 8
    assert [judge_path(d, ["rules"])[0][1].decision for d in rand] == ["failure"] * 4
    return {"oracle": oracle, "random": rand, "root": [root]}


def _label_worked_example(runs: dict[str, list[Path]]) -> None:
    """TP 6, FP 2, FN 1, TN 3 (success the positive class)."""
    oracle, rand = runs["oracle"], runs["random"]
    for d in oracle[:6]:
        write_label(d, "success", "the note is there", by="ana")            # judged success: TP
    for d in oracle[6:8]:
        write_label(d, "failure", "wrong item, I think", by="ana")          # judged success: FP
    write_label(rand[0], "success", "it got there in the end", by="ben")    # judged failure: FN
    for d in rand[1:4]:
        write_label(d, "failure", by="ben")                                   # judged failure: TN


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"} if env is None else env
    base["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-m", "guilens", *args], capture_output=True, text=True, env=base,
                          timeout=300)


# --- the worked example ------------------------------------------------------------------------


# By hand, N = 6 + 2 + 1 + 3 = 12:
#   accuracy  = (TP + TN) / N      = (6 + 3) / 12          = 9/12 = 0.75
#   precision = TP / (TP + FP)     = 6 / 8                 = 0.75
#   recall    = TP / (TP + FN)     = 6 / 7                 = 0.857142...
#   F1        = 2TP / (2TP+FP+FN)  = 12 / 15               = 0.8   (= 2·0.75·(6/7) / (0.75 + 6/7))
#   p_e = (judged success · labelled success + judged failure · labelled failure) / N²
#       = ((6+2)·(6+1) + (1+3)·(2+3)) / 144 = (56 + 20) / 144 = 76/144 = 19/36
#   κ   = (p_o − p_e) / (1 − p_e) = (27/36 − 19/36) / (17/36) = 8/17 = 0.470588...
ACCURACY, PRECISION, RECALL, F1, KAPPA = Fraction(3, 4), Fraction(3, 4), Fraction(6, 7), Fraction(4, 5), Fraction(8, 17)


def test_the_worked_example_from_real_attempts(runs: dict[str, list[Path]]) -> None:
    _label_worked_example(runs)
    labelled = find_labelled(runs["root"])
    assert len(labelled) == 12 and all(lab.by in ("ana", "ben") for _, lab in labelled)
    cases = []
    for d, lab in labelled:
        ((_, v),) = judge_path(d, ["rules"])
        cases.append(Case.of(d, lab.label, v, lab.reason))
    result = evaluate(cases)
    c = result.overall
    assert (c.tp, c.fp, c.fn, c.tn, c.n) == (6, 2, 1, 3, 12)
    assert (c.accuracy, c.precision, c.recall, c.f1, c.kappa) == (ACCURACY, PRECISION, RECALL, F1, KAPPA)
    assert c.f1 == 2 * c.precision * c.recall / (c.precision + c.recall)  # type: ignore[operator]
    assert c.undefined() == {} and not result.undecided
    assert list(result.by_decider) == ["rules"] and result.by_decider["rules"] == c
    assert len(result.disagreements) == 3 and {x.path for x in result.disagreements} == {
        *runs["oracle"][6:8], runs["random"][0]}
    assert result.rules_vs_llm == {}  # only the rules decided


def test_guilens_judge_eval_prints_the_scores_as_json_and_as_a_table(runs: dict[str, list[Path]]) -> None:
    _label_worked_example(runs)
    root = runs["root"][0]
    out = _cli("judge-eval", str(root / "oracle"), str(root / "random"), "--rules-only", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    o = data["overall"]
    assert data["positive_class"] == "success" and data["labelled"] == 12 and data["undecided"] == 0
    assert (o["tp"], o["fp"], o["fn"], o["tn"]) == (6, 2, 1, 3)
    for key, want in (("accuracy", ACCURACY), ("precision", PRECISION), ("recall", RECALL), ("f1", F1),
                      ("kappa", KAPPA)):
        assert o[key] == pytest.approx(float(want), abs=1e-12), key
    assert data["by_decided_by"]["rules"]["n"] == 12 and data["stages"] == list(RULES_ONLY_STAGES)
    again = json.loads(_cli("judge-eval", str(root), "--rules-only", "--json").stdout)
    assert again["reused"] == 12 and again["judge_cost_usd"] == 0  # the verdicts on disk are current now
    assert again["overall"] == data["overall"]
    assert {Path(e["path"]) for e in data["episodes"]} == set(runs["oracle"] + runs["random"])
    assert sum(1 for e in data["episodes"] if e["agrees"] is False) == 3

    table = _cli("judge-eval", str(root), "--rules-only")
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    overall = next(ln for ln in lines if "overall" in ln)
    # n TP FP FN TN accuracy precision recall F1 κ
    cells = [c.strip() for c in overall.split("│")[2:12]]
    assert cells == ["12", "6", "2", "1", "3", "75.0", "75.0", "85.7", "80.0", "0.47"], overall
    assert any(ln.split("│")[1].strip() == "rules" for ln in lines if "│" in ln)
    assert "3 disagreements with people" in table.stdout and "it got there in the end" in table.stdout
    assert "\x1b[" not in table.stdout  # piped: no colour


def test_undefined_scores_are_undefined_not_zero(runs: dict[str, list[Path]], tmp_path: Path) -> None:
    # Only failures, labelled and judged: nothing is a success on either side.
    c = Confusion(tn=4)
    assert c.accuracy == 1 and c.precision is None and c.recall is None and c.f1 is None
    assert c.chance == 1 and c.kappa is None  # p_e = (0·0 + 4·4) / 16 = 1
    assert set(c.undefined()) == {"precision", "recall", "f1", "kappa"}
    # Every label a success, the judge passing them all: κ undefined, the rest 1.
    c = Confusion(tp=3)
    assert (c.accuracy, c.precision, c.recall, c.f1, c.kappa) == (1, 1, 1, 1, None)
    # The judge passing nothing while people passed some: precision undefined, recall and F1 are 0.
    c = Confusion(fn=2, tn=2)
    assert c.precision is None and c.recall == 0 and c.f1 == 0 and c.kappa == 0  # p_e = (0 + 4·2)/16 = 1/2
    # Nothing decided at all.
    empty = Confusion()
    assert empty.n == 0 and all(v is None for v in empty.scores().values())
    assert empty.undefined()["accuracy"] == "no decided episodes"

    # From the command line, on real attempts: the four random ones, all labelled failure.
    for d in runs["oracle"]:
        clear_label(d)
    for d in runs["random"]:
        write_label(d, "failure")
    out = _cli("judge-eval", str(runs["root"][0]), "--rules-only", "--json")
    assert out.returncode == 0, out.stderr
    o = json.loads(out.stdout)["overall"]
    assert (o["tn"], o["n"], o["accuracy"]) == (4, 4, 1.0)
    assert o["precision"] is None and o["recall"] is None and o["f1"] is None and o["kappa"] is None
    assert o["undefined"]["kappa"].startswith("p_e = 1")
    table = _cli("judge-eval", str(runs["root"][0]), "--rules-only")
    assert "undefined" in table.stdout and "note: κ undefined (p_e = 1" in table.stdout
    assert "note: precision undefined (the judge decided no episode a success): overall, rules" in table.stdout


def test_breakdown_by_the_stage_that_decided(fake_api: Any, runs: dict[str, list[Path]], tmp_path: Path) -> None:
    """Half the episodes judged by the rules, half by progressive scrutiny (the loopback API)."""
    fake_api.handler = lambda req: text(json.dumps({"reason": "the task is done", "decision": "Success"}))
    oracle, rand = runs["oracle"], runs["random"]
    cases = []
    for d in oracle[:3] + rand[:2]:
        ((_, v),) = judge_path(d, ["rules"])
        cases.append(Case.of(d, "success", v))
    for d in oracle[3:6]:
        ((_, v),) = judge_path(d, ["scrutiny"], force=True)
        assert v.decided_by == "triage"
        cases.append(Case.of(d, "success" if d != oracle[5] else "failure", v))
    assert by_role(fake_api) == {"triage": 3}
    result = evaluate(cases)
    assert list(result.by_decider) == ["rules", "triage"]
    rules, triage = result.by_decider["rules"], result.by_decider["triage"]
    assert (rules.tp, rules.fp, rules.fn, rules.tn) == (3, 0, 2, 0)
    assert (triage.tp, triage.fp, triage.fn, triage.tn) == (2, 1, 0, 0)
    # every label a success: p_o = 3/5, p_e = ((3+0)(3+2) + (2+0)(0+0)) / 25 = 15/25 = 3/5, so κ = 0
    assert rules.precision == 1 and rules.recall == Fraction(3, 5) and rules.kappa == 0
    assert triage.recall == 1 and triage.precision == Fraction(2, 3)
    assert result.overall.n == 8 and result.overall.tp == 5
    assert set(result.by_stage) == {"rules", "triage", "scrutiny"}
    # the rules' verdicts on disk are still the rules' (the scrutiny ones were written over)
    for d in oracle[3:6]:
        judge_path(d, ["rules"], force=True)


def test_all_stages_runs_the_llm_where_the_rules_decided(fake_api: Any, runs: dict[str, list[Path]]) -> None:
    """Four oracle episodes the rules pass. Triage passes the first two and is unsure of the rest, which the
    semantic judge then fails: rules and triage agree on 2 of 2, rules and the semantic judge on 0 of 2."""
    oracle = runs["oracle"][:4]
    for d in runs["oracle"] + runs["random"]:
        clear_label(d)
    for d in oracle[:3]:
        write_label(d, "success", by="ana")
    write_label(oracle[3], "failure", "the wrong item was saved", by="ana")
    triages = iter(["Success", "Success", "Uncertain", "Uncertain"])

    def handle(req: Any) -> dict[str, Any]:
        role = role_of(req)
        if role == "triage":
            return text(json.dumps({"reason": "looked at the last screens", "decision": next(triages)}))
        if role == "describe":
            return text(json.dumps({"action_description": "tapped", "ui_description": "a screen"}))
        if role == "semantic":
            return text(json.dumps({"decision": 0, "reason": "the final screen does not show it done"}))
        raise AssertionError(f"unexpected {role} call")

    fake_api.handler = handle
    out = _cli("judge-eval", *map(str, oracle), "--all-stages", "--json", env=dict(os.environ))  # the fake API's key
    assert out.returncode == 0, out.stderr
    fake_api.assert_clean()
    roles = by_role(fake_api)
    assert roles["triage"] == 4 and roles["semantic"] == 2 and "visual" not in roles
    data = json.loads(out.stdout)
    assert data["all_stages"] is True and "irr" in data["stages"] and "scrutiny" in data["stages"]
    # the final decision is still the rules': they have the authority
    assert data["by_decided_by"].keys() == {"rules"}
    o = data["overall"]
    assert (o["tp"], o["fp"], o["fn"], o["tn"]) == (3, 1, 0, 0)
    vs = data["rules_vs_llm"]
    assert (vs["triage"]["n"], vs["triage"]["agree"]) == (2, 2)
    assert (vs["semantic"]["n"], vs["semantic"]["agree"], vs["semantic"]["fn"]) == (2, 0, 2)
    assert (vs["scrutiny"]["n"], vs["scrutiny"]["agree"]) == (4, 2)
    # scrutiny against rules: tp 2 (both success), fn 2 (rules success, scrutiny failure); p_o = 1/2,
    # p_e = ((2+0)(2+2) + (2+0)(0+0)) / 16 = 8/16 = 1/2: κ = 0
    assert vs["scrutiny"]["accuracy"] == 0.5 and vs["scrutiny"]["kappa"] == 0
    # each stage against the people: semantic failed oracle[2] (labelled success) and oracle[3] (failure)
    sem = data["by_stage"]["semantic"]
    assert (sem["tp"], sem["fp"], sem["fn"], sem["tn"], sem["undecided"]) == (0, 0, 1, 1, 2)
    for d in oracle:
        v = json.loads((d / "verdict.json").read_text())
        triage = next(s for s in v["stages"] if s["stage"] == "triage")
        assert v["decided_by"] == "rules" and triage["status"] in ("decided", "undecided") and triage["calls"] == 1

    table = _cli("judge-eval", *map(str, oracle), "--all-stages", env=dict(os.environ))  # current: no more calls
    assert table.returncode == 0, table.stderr
    assert by_role(fake_api) == roles
    assert "Rules against the LLM stages" in table.stdout and "Each stage's own decisions" in table.stdout
    semantic_row = next(ln for ln in table.stdout.splitlines() if ln.startswith("│ semantic") and "0.0" in ln)
    assert semantic_row
    assert "judge cost now $0.0000 (4 verdicts unchanged, not re-judged)" in table.stdout
    per = data["verdicts_cost_usd"] / 4
    assert data["judge_cost_usd"] > 0 and data["cost_per_episode_usd"] == pytest.approx(per, abs=1e-6)
    assert f"${per:.4f} per episode" in table.stdout


def test_bad_input_is_one_line(runs: dict[str, list[Path]], tmp_path: Path) -> None:
    empty = tmp_path / "nothing-labelled"
    empty.mkdir()
    out = _cli("judge-eval", str(empty))
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert f"{empty}: no labelled attempts" in out.stderr
    out = _cli("judge-eval", str(tmp_path / "absent"))
    assert out.returncode == 2 and "absent: no such file or directory" in out.stderr
    out = _cli("judge-eval", str(runs["root"][0]), "--rules-only", "--all-stages")
    assert out.returncode == 2 and "--rules-only and --all-stages do not go together" in out.stderr
    out = _cli("judge-eval", str(runs["root"][0]), "--stages", "rulez")
    assert out.returncode == 2 and "unknown judge stage 'rulez'" in out.stderr

    d = runs["random"][0]
    (d / "label.json").write_text(json.dumps({"label": "pass", "at": "2026-01-01T00:00:00Z"}))
    out = _cli("judge-eval", str(runs["root"][0]), "--rules-only")
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert f"{d / 'label.json'}: field 'label'" in out.stderr and "'pass'" in out.stderr
    with pytest.raises(LabelError, match="label.json: not JSON"):
        (d / "label.json").write_text("{nope")
        read_label(d)
    with pytest.raises(LabelError, match="field 'at': Field required"):
        (d / "label.json").write_text('{"label": "success"}')
        read_label(d)
    clear_label(d)
    with pytest.raises(ValueError, match="choose success or failure"):
        write_label(d, "maybe")


def test_a_label_round_trips_and_lives_beside_the_verdict(runs: dict[str, list[Path]]) -> None:
    d = runs["oracle"][0]
    at = datetime(2026, 11, 24, 22, 0, tzinfo=UTC)
    made = write_label(d, "failure", "  saved\n the wrong   price ", by="ana", at=at)
    assert made.reason == "saved the wrong price"  # one line
    back = read_label(d)
    assert back == made and back.guilens_version and back.schema_version == 1  # type: ignore[union-attr]
    verdict = json.loads((d / "verdict.json").read_text())
    assert "label" not in verdict
    assert not list(d.glob(".*.tmp"))
    assert clear_label(d) and read_label(d) is None and not clear_label(d)


def test_undecided_verdicts_are_counted_apart_not_as_failures(tmp_path: Path) -> None:
    """With no model key, the rules decide the note episodes and nothing can decide `judgeonly` (its milestones
    have no checks): it is undecided, left out of the matrix and listed."""
    from tests.judge_helpers import make_run, note_failure, note_success, record

    run = make_run(tmp_path)
    ok, bad = note_success(run), note_failure(run, attempt=2)
    unsure = record(run, "judgeonly", [["Shoes"], ["Red shoes"]], [{"type": "tap", "x": 10, "y": 10}])
    write_label(ok, "success")
    write_label(bad, "failure")
    write_label(unsure, "failure", "never reached the cart")
    out = _cli("judge-eval", str(run), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert (data["labelled"], data["decided"], data["undecided"]) == (3, 2, 1)
    o = data["overall"]
    assert (o["tp"], o["fp"], o["fn"], o["tn"], o["accuracy"], o["kappa"]) == (1, 0, 0, 1, 1.0, 1.0)
    (e,) = [e for e in data["episodes"] if e["decision"] == "undecided"]
    assert Path(e["path"]) == unsure and e["agrees"] is None and e["decided_by"] is None
    table = _cli("judge-eval", str(run))
    assert "1 undecided (left out of the scores, not counted as failures)" in table.stdout
    assert "judgeonly/attempt-1  labelled failure" in table.stdout
    assert "with people" not in table.stdout  # no disagreement: the undecided one is none
