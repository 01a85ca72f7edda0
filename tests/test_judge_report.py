"""`guilens judge` and `guilens report` on hand-recorded runs: tables, JSON, the HTML file, the schema."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import pytest

from guilens.judge.html import bar_chart, histogram, line_chart
from guilens.judge.pipeline import judge_path
from guilens.judge.report import load_report
from tests.judge_helpers import make_run, note_failure, note_success, record


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    env["GUILENS_CONFIG_FILE"] = "/nonexistent/guilens.toml"
    return subprocess.run([sys.executable, "-m", "guilens", *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=120)


@pytest.fixture
def run(tmp_path: Path) -> Path:
    run = make_run(tmp_path)
    note_failure(run, attempt=1)
    note_success(run, attempt=2)
    record(run, "price", [["Shop"], ["ASICS Gel", "89.99"], ["ASICS Gel"]],
           [{"type": "ask_user", "question": "Which brand?"}, {"type": "answer", "text": "It costs 89.99"}],
           final_answer="It costs 89.99", final_state={}, asks={0: ("Which brand?", "ASICS")})
    (run / "run.json").write_text(json.dumps({"run_id": "run-1", "agent": "test", "k": 2}))
    return run


def test_judge_then_report_json_carries_every_metric(run: Path) -> None:
    out = cli("judge", str(run))
    assert out.returncode == 0, out.stderr
    assert "note/attempt-1  failure" in out.stdout and "by rules" in out.stdout
    assert "3 episodes: 1 failure, 2 success" in out.stdout
    again = cli("judge", str(run))
    assert "(3 unchanged, not re-judged)" in again.stdout and again.stdout.count("cached") == 3

    rep = cli("report", str(run), "--json")
    assert rep.returncode == 0, rep.stderr
    data = json.loads(rep.stdout)
    m = data["metrics"]
    assert data["run"]["agent"] == "test" and m["attempts"] == 2 and m["episodes"] == 3
    assert m["sr"]["value"] == 0.5 and m["pass_at_k"]["2"]["value"] == 1.0
    assert m["frr"]["value"] == 1.0  # the one task that failed first recovered at attempt 2 (w2 = 1)
    assert m["mtpr"]["value"] == 0.0
    assert (m["irr"]["value"], m["irr"]["n"]) == (0.0, 1)  # counted by the rules with no key: 0 of its items
    assert m["cas"]["value"] == pytest.approx((0 + 1 / 1.5) / 2)
    assert m["user_turns_total"] == 1
    ep = {(e["task"], e["attempt"]): e for e in data["episodes"]}
    assert ep[("note", 1)]["outcome_source"] == "judge:rules" and ep[("note", 1)]["success"] is False
    assert ep[("note", 2)]["milestones"] == [{"id": "editor", "reached": True, "agent_steps": 1},
                                             {"id": "saved", "reached": True, "agent_steps": 3}]
    stages = {s["stage"]: s for s in json.loads((run / "note/attempt-1/verdict.json").read_text())["stages"]}
    assert stages["irr"]["status"] == "done" and stages["irr"]["details"]["method"] == "rules"
    mode = stages["failure_mode"]  # not a timeout, not a partial IRR: only a model could classify it
    assert mode["status"] == "skipped" and "ANTHROPIC_API_KEY" in mode["reason"]


def test_report_tables_in_the_terminal(run: Path) -> None:
    judge_path(run, ["rules"])
    out = cli("report", str(run))
    assert out.returncode == 0, out.stderr
    for label in ("SR (pass@1)", "pass@2", "FRR", "IRR", "MTPR", "ATP", "MSR", "Step ratio", "Agent s/step",
                  "Judge $/step", "CAS", "APR", "PPR", "User turns", "SR by difficulty", "SR by apps", "SR by memory"):
        assert label in out.stdout, label


def test_without_verdicts_the_report_uses_the_recorded_status(run: Path) -> None:
    rep = load_report(run)
    assert {r.outcome_source for r in rep.rows} == {"status:success", "status:failure"}
    m = rep.metrics()
    assert m["sr"]["value"] == 0.5 and m["judge_cost_per_step_usd"]["value"] is None


def test_html_report_is_one_file_with_plots_and_embedded_screens(run: Path, tmp_path: Path) -> None:
    judge_path(run, ["rules"])
    html_file = tmp_path / "out" / "report.html"
    out = cli("report", str(run), "--html", str(html_file))
    assert out.returncode == 0, out.stderr
    text = html_file.read_text()
    assert "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in text

    class Links(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.hrefs: list[str] = []
            self.srcs: list[str] = []

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            d = dict(attrs)
            if tag == "a" and d.get("href"):
                self.hrefs.append(d["href"] or "")
            if d.get("src"):
                self.srcs.append(d["src"] or "")

    p = Links()
    p.feed(text)
    assert all(s.startswith("data:image/webp;base64,") for s in p.srcs)  # nothing loaded from elsewhere
    assert len(p.srcs) == 2 * (3 + 1) + (2 + 1)  # every step's screen and every final screen, embedded
    files = [h for h in p.hrefs if not h.startswith("#")]
    assert len(files) == 3 and all(not h.startswith("/") for h in files)
    for h in files:
        assert (html_file.parent / unquote(h)).exists(), h
    svgs = text.count("<svg")
    assert svgs == 10  # the nine plots and the failure modes
    for chunk in text.split("<svg")[1:]:
        ET.fromstring("<svg" + chunk.split("</svg>")[0] + "</svg>")  # each plot is well-formed SVG


def test_plots_handle_empty_and_na_data() -> None:
    for svg in (bar_chart("x", []), bar_chart("x", [("a", None, 0), ("b", 0.5, 2)]), line_chart("p", []),
                line_chart("p", [(1, 0.2), (2, None), (3, 0.9)]), histogram("h", []), histogram("h", [0.0, 1.0, 1.0])):
        ET.fromstring(svg)
    assert ">n/a<" in bar_chart("x", [("a", None, 0)])
    assert ">2<" in histogram("h", [0.0, 1.0, 1.0])  # 1.0 falls in the last bin


def test_schema_verdict_and_user_errors(tmp_path: Path) -> None:
    out = cli("schema", "verdict")
    assert out.returncode == 0
    schema = json.loads(out.stdout)
    assert schema["title"] == "Verdict" and "decided_by" in schema["properties"]
    label = json.loads(cli("schema", "label").stdout)  # what judge-eval reads, beside the verdict
    assert label["title"] == "Label" and label["properties"]["label"]["enum"] == ["success", "failure"]
    missing = cli("judge", str(tmp_path / "nope"))
    assert missing.returncode == 2 and "no such file" in missing.stderr and "Traceback" not in missing.stderr
    empty = cli("report", str(tmp_path))
    assert empty.returncode == 2 and "no episodes here" in empty.stderr
    note_success(make_run(tmp_path))
    bad = cli("judge", str(tmp_path), "--stages", "rules,vibes")
    assert bad.returncode == 2 and "unknown judge stage 'vibes'" in bad.stderr


def test_judge_json_and_rules_only(tmp_path: Path) -> None:
    ep = note_success(make_run(tmp_path))
    out = cli("judge", str(ep), "--rules-only", "--json")
    assert out.returncode == 0, out.stderr
    (v,) = json.loads(out.stdout)
    # --rules-only: every stage that asks no model; a success has no failure mode to classify
    assert v["decision"] == "success" and v["stages_requested"] == ["rules", "irr", "failure_mode"]
    assert [s["stage"] for s in v["stages"]] == ["rules", "irr"]
