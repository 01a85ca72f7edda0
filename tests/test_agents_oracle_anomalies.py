"""The oracle clears anomalies as a careful person would and goes on where it was (after a crash it
walks the app's screens again); each step line records the anomaly it saw appear or resolved; a
run's `--anomalies RATE` is drawn on the device, reproducibly, recorded in run.json, refused on adb."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.runner_helpers import SMALL, read_steps, run

NOTE_TASK = """\
id: interrupted
tasks:
  - id: note
    apps: [notes]
    instruction: {{L0: "Create a note Groceries saying Milk, eggs."}}
    difficulty: 1
    golden_steps: 7
    max_steps: 16
    setup:
      anomalies:
        - {{kind: {kind}, app: notes, at: {at}, screen: notes/edit}}
    milestones:
      - id: saved
        text: "One note Groceries says Milk, eggs"
        check: {{state: notes.notes, where: {{title: Groceries}}, op: count, value: 1}}
      - id: body
        text: "It says Milk, eggs"
        check: {{state: notes.notes, where: {{title: Groceries}}, field: body, op: contains, value: "Milk, eggs"}}
    reference:
      - open: notes
      - tap: New note
      - type: Groceries
      - enter
      - type: "Milk, eggs"
      - tap: {{id: save}}
      - finish
"""


def _run_note(tmp_path: Path, kind: str, at: int = 4, **kw: object) -> list[dict]:
    path = tmp_path / f"{kind}.yaml"
    path.write_text(NOTE_TASK.format(kind=kind, at=at))
    result = run(path, tmp_path / "runs", screen=SMALL, **kw)
    assert result.tasks["note"].status == "success", kind
    return read_steps(result.run_dir / "note" / "attempt-1")


@pytest.mark.parametrize(("kind", "control", "how"), [
    ("ad", "×", "closed"), ("permission", "Deny", "deny"), ("battery", "Close", "dismissed"),
])
def test_the_oracle_clears_a_pop_up_and_goes_on(tmp_path: Path, kind: str, control: str, how: str) -> None:
    steps = _run_note(tmp_path, kind)
    clear = next(s for s in steps if s["anomalies"])
    assert clear["target"]["label"] == control and clear["action_description"] == f"clear the {kind}: tap {control!r}"
    assert [(a["kind"], a["event"], a["source"]) for a in clear["anomalies"]] == [
        (kind, "appeared", "setup"), (kind, "resolved", "setup")]
    assert clear["anomalies"][1]["how"] == how
    assert len(steps) == 8  # the 7 of the reference and one to clear it
    assert sum(bool(s["anomalies"]) for s in steps) == 1


def test_after_a_crash_mid_form_the_oracle_starts_the_app_again_and_redoes_the_input(tmp_path: Path) -> None:
    steps = _run_note(tmp_path, "crash", at=5)  # after the title and the Enter, before the body and the save
    said = [s["action_description"] for s in steps]
    i = said.index("clear the crash: tap 'Close app'")
    assert said[i + 1:i + 4] == ["open notes", "tap 'New note'", "type 'Groceries' (field cleared first: typed again "
                                                                  "after the crash)"]
    assert steps[i]["anomalies"][1]["how"] == "closed_app" and steps[i]["app"].endswith("launcher")
    assert said[-1] == "finish"  # and one note only: the milestone counts exactly one


def test_a_crash_in_an_app_another_app_opened_reopens_that_other_app(tmp_path: Path) -> None:
    path = tmp_path / "handover.yaml"
    path.write_text("""\
id: handover
tasks:
  - id: text-alice
    apps: [contacts, messages]
    instruction: {L0: "Text Alice Chen: Running late."}
    difficulty: 1
    golden_steps: 7
    max_steps: 14
    setup:
      anomalies:
        - {kind: crash, app: messages, at: 4}
    milestones:
      - id: sent
        text: "Alice got it"
        check: {state: messages.threads, where: {number: "+1 415 555 0101"}, field: messages.text,
                op: contains, value: Running late}
    reference:
      - open: contacts
      - tap: Alice Chen
      - tap: Message
      - tap: {id: message}
      - type: Running late.
      - tap: {id: send}
      - finish
""")
    result = run(path, tmp_path / "runs", screen=SMALL)
    assert result.tasks["text-alice"].status == "success"
    said = [s["action_description"] for s in read_steps(result.run_dir / "text-alice" / "attempt-1")]
    i = said.index("clear the crash: tap 'Close app'")
    assert said[i + 1] == "reopen com.guilens.contacts after the crash"  # it resumes on Alice's page
    assert said[i + 2] == "tap 'Message'"


def test_a_golden_path_that_handles_the_anomaly_is_played_as_written(tmp_path: Path) -> None:
    result = run("anomalies:packing-note-after-ad", tmp_path / "runs", screen=SMALL)
    steps = read_steps(result.run_dir / "packing-note-after-ad" / "attempt-1")
    assert result.tasks["packing-note-after-ad"].status == "success"
    assert steps[1]["action_description"] == "tap 'id:ad_close'"  # the reference's step, not the oracle's own
    assert steps[1]["anomalies"][0]["kind"] == "ad"


def test_a_runs_rate_is_drawn_reproducibly_recorded_and_survived(tmp_path: Path) -> None:
    import json

    def once(out: str) -> tuple[list[list[dict]], dict]:
        result = run("anomalies:text-mom-permission-and-battery", tmp_path / out, screen=SMALL,
                     options={"anomalies": 0.4}, seed=5)
        assert result.tasks["text-mom-permission-and-battery"].status == "success"
        steps = read_steps(result.run_dir / "text-mom-permission-and-battery" / "attempt-1")
        return [s["anomalies"] for s in steps], json.loads((result.run_dir / "run.json").read_text())

    first, record = once("a")
    again, _ = once("b")
    assert first == again  # the same seed, task and attempt: the same anomalies at the same steps
    drawn = [a for step in first for a in step if a["source"] == "rate"]
    assert drawn and {a["event"] for a in drawn} == {"appeared", "resolved"}
    assert record["anomalies"] == 0.4


def test_anomalies_are_refused_on_a_real_phone(tmp_path: Path) -> None:
    from guilens.run.plan import PlanError, plan_run

    with pytest.raises(PlanError, match=r"--anomalies 0\.1: .*cannot draw over a real app on adb:XYZ"):
        plan_run("demo", devices=["adb:XYZ"], out=tmp_path, options={"anomalies": 0.1}, check_agent=False)
    with pytest.raises(PlanError, match=r"--anomalies 2"):
        plan_run("demo", out=tmp_path, options={"anomalies": 2}, check_agent=False)


def test_a_golden_recovery_step_whose_anomaly_never_came_is_stepped_over(tmp_path: Path) -> None:
    """The anomaly a golden path clears came earlier (a run's draw moved it) or not at all: its Deny
    is not on screen, and the oracle goes on rather than giving up."""
    path = tmp_path / "skip.yaml"
    path.write_text(NOTE_TASK.format(kind="permission", at=99).replace(
        "      - open: notes\n", "      - open: notes\n      - tap: Deny\n").replace("golden_steps: 7", "golden_steps: 8"))
    result = run(path, tmp_path / "runs", screen=SMALL)
    assert result.tasks["note"].status == "success"
    said = [s["action_description"] for s in read_steps(result.run_dir / "note" / "attempt-1")]
    assert "tap 'Deny'" not in said and said[:2] == ["open notes", "tap 'New note'"]
