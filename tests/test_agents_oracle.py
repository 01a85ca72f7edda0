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


# --- after a take-over: finding its place again ----------------------------------------------------

HANDOVER_YAML = """\
id: handover
setup:
  apps:
    notes:
      notes:
        - {title: Budget, body: "Lunch money: 42 dollars a week"}
    contacts:
      contacts:
        - {name: Budget, phone: "+1 415 555 0100"}
tasks:
  - id: budget
    apps: [notes]
    instruction: {L0: "Open the note Budget in Notes and answer with the weekly lunch money."}
    difficulty: 1
    golden_steps: 3
    max_steps: 8
    answer: {numbers: [42]}
    milestones:
      - {id: opened, text: "The Budget note is open", check: {screen_text: "Lunch money"}}
    reference:
      - open: notes
      - tap: Budget
      - remember: {app: notes, content: "Lunch money is 42 dollars a week"}
      - answer: "42 dollars"
"""


def _handover(tmp_path: Path, commands: list[str]):
    """Run `handover:budget` with the oracle; a person takes over after its first step, types
    `commands` (one action each) and hands back."""
    from guilens.control import QuestionChannel, RunControl
    from tests.runner_helpers import Events

    path = tmp_path / "handover.yaml"
    path.write_text(HANDOVER_YAML)
    control, channel = RunControl(), QuestionChannel()
    typed = iter(commands)
    channel.on_change(lambda req, event: event == "opened" and req.kind == "action" and channel.answer(req.id, next(typed)))
    ev = Events()
    original = ev.__getattr__("on_step")

    def on_step(episode, step):
        original(episode, step)
        if step.index == 0:
            control.take_over(True)
        elif step.index == len(commands):
            control.take_over(False)

    ev.on_step = on_step  # type: ignore[method-assign]
    result = run(path, tmp_path / "runs", observers=[ev], control=control, channel=channel)
    return result.tasks["budget"].attempts[0], read_steps(result.run_dir / "budget" / "attempt-1")


def test_after_a_take_over_elsewhere_the_oracle_reopens_its_app(tmp_path: Path):
    # The person opens Contacts, where a contact is also called Budget: going on with `tap Budget`
    # there would tap the wrong thing. The oracle reopens Notes, where the person took over, instead.
    ep, steps = _handover(tmp_path, ["open contacts"])
    assert [s["by"] for s in steps] == ["agent", "human", "agent", "agent", "agent"]
    assert steps[1]["app"] == "com.guilens.notes" and steps[2]["app"] == "com.guilens.contacts"
    assert steps[2]["action"] == {"type": "open_app", "app": "com.guilens.notes"}
    assert "my plan goes on in com.guilens.notes" in steps[2]["thought"]
    assert steps[2]["memory"]["stm"][-1] == "a person took over: open contacts: opened Contacts"
    assert steps[3]["app"] == "com.guilens.notes" and steps[3]["target"]["selector"] == "Budget"
    assert steps[3]["device_result"] == "opened note 'Budget'"
    assert steps[4]["action"] == {"type": "answer", "text": "42 dollars"}
    assert [(e["app"], e["content"]) for e in steps[4]["memory"]["ltm"]] == [("notes", "Lunch money is 42 dollars a week")]
    assert ep.status == "success" and ep.human_steps == 1


def test_when_the_plan_no_longer_fits_the_oracle_says_it_lost_its_place(tmp_path: Path):
    # The person opens a new note in Notes itself: the reference's `tap Budget` is not on that screen,
    # and reopening Notes would not help (it is in front). The oracle stops and says why.
    ep, steps = _handover(tmp_path, ['tap "New note"'])
    assert [s["by"] for s in steps] == ["agent", "human", "agent"]
    last = steps[-1]
    assert last["action"] == {"type": "finish", "status": "failure"}
    assert last["thought"].startswith("I lost my place after the take-over")
    assert "no element 'Budget' on screen" in last["thought"] and "rather than tap blindly" in last["thought"]
    assert last["action_description"] == "give up: lost my place after the take-over"
    assert ep.status == "failure" and ep.finish_status == "failure"


def test_a_person_who_goes_back_to_the_plan_is_followed(tmp_path: Path):
    # The person wanders into Contacts and comes back to Notes themselves: the phone is where the
    # plan left it, so the oracle simply goes on (no reopening, no giving up).
    ep, steps = _handover(tmp_path, ["open contacts", "open notes"])
    assert [s["by"] for s in steps] == ["agent", "human", "human", "agent", "agent"]
    assert steps[3]["target"]["selector"] == "Budget" and steps[3]["device_result"] == "opened note 'Budget'"
    assert ep.status == "success"
