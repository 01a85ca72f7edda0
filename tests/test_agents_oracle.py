"""The oracle agent: plays the reference, keeps CoM memory, gives up cleanly when the screen is wrong."""

from __future__ import annotations

from pathlib import Path

from tests.runner_helpers import read_steps, run

MEMO_YAML = """\
id: memo
tasks:
  - id: two-apps
    apps: [notes, calculator]
    instruction: {L0: "Read the Budget note, then open the calculator."}
    difficulty: 1
    golden_steps: 4
    setup:
      apps:
        notes:
          notes:
            - {title: Budget, body: "Lunch money: 42 dollars a week"}
    milestones:
      - {id: calc, text: "The calculator is open", check: {app: calculator}}
    reference:
      - open: notes
      - remember: {app: notes, content: "Budget note exists"}
      - tap: Budget
      - remember: {app: notes, content: "Lunch money is 42 a week"}
      - open: calculator
      - remember: {app: calculator, content: "Calculator is open"}
      - finish
  - id: missing-note
    apps: [notes]
    instruction: {L0: "Open the note Groceries."}
    difficulty: 1
    golden_steps: 2
    milestones:
      - {id: open, text: "The Groceries note is open", check: {screen_text: "Groceries"}}
    reference:
      - open: notes
      - tap: Groceries
"""


def test_com_memory_and_giving_up(tmp_path: Path):
    path = tmp_path / "memo.yaml"
    path.write_text(MEMO_YAML)
    result = run(path, tmp_path / "runs")
    assert result.tasks["two-apps"].status == "success"
    steps = read_steps(result.run_dir / "two-apps" / "attempt-1")
    # LTM: replaced within an app, appended across apps (CoM Algorithm 1)
    assert [(e["app"], e["content"]) for e in steps[1]["memory"]["ltm"]] == [("notes", "Budget note exists")]
    assert [(e["app"], e["content"]) for e in steps[2]["memory"]["ltm"]] == [("notes", "Lunch money is 42 a week")]
    assert [(e["app"], e["content"]) for e in steps[-1]["memory"]["ltm"]] == [
        ("notes", "Lunch money is 42 a week"), ("calculator", "Calculator is open")]
    # STM: the previous action and what the phone said it did, newest last
    assert steps[2]["memory"]["stm"] == ["open notes: opened Notes", "tap 'Budget': opened note 'Budget'"]
    assert steps[0]["action_result"] == "" and steps[1]["action_result"] == "open notes: opened Notes"

    gave_up = result.tasks["missing-note"].attempts[0]
    assert gave_up.status == "failure" and gave_up.finish_status == "failure" and gave_up.steps == 2
    last = read_steps(result.run_dir / "missing-note" / "attempt-1")[-1]
    assert last["action"] == {"type": "finish", "status": "failure"}
    assert "no element 'Groceries' on screen" in last["thought"]
