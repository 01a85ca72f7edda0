"""The week: a sequence over several days, a persona whose rules change, events tasks depend on."""

from __future__ import annotations

import json
from collections import Counter
from datetime import date, datetime
from typing import Any

import pytest

from guilens.agents.base import AgentContext, AgentStep, StepInput
from guilens.agents.oracle import OracleAgent
from guilens.scenarios.checks import CheckContext, evaluate
from guilens.scenarios.errors import ScenarioError
from guilens.scenarios.loader import find_scenario, load_text
from guilens.scenarios.model import Scenario, Task
from tests.runner_helpers import SMALL, read_steps, run

pytest.importorskip("guilens.device.sim.device")

WEEK: Scenario = find_scenario("week")

SEQ = """\
id: days
kind: sequence
start: 2026-11-23
tasks:
  - {id: a, clock: "09:00", apps: [notes], instruction: {L0: x}, difficulty: 1, golden_steps: 1, reference: [finish]}
  - {id: b, day: 2, clock: "08:00", apps: [notes], instruction: {L0: x}, difficulty: 1, golden_steps: 1,
     reference: [finish]}
  - {id: c, day: 2026-11-27, clock: "07:30", apps: [notes], instruction: {L0: x}, difficulty: 1, golden_steps: 1,
     reference: [finish]}
  - {id: d, clock: "2026-11-25 21:00", apps: [notes], instruction: {L0: x}, difficulty: 1, golden_steps: 1,
     reference: [finish]}
"""


# --- days -------------------------------------------------------------------------------------------


def test_a_task_s_day_is_an_index_from_start_or_a_date() -> None:
    s = load_text(SEQ)
    assert [s.when(t) for t in s.tasks] == [datetime(2026, 11, 23, 9, 0), datetime(2026, 11, 25, 8, 0),
                                            datetime(2026, 11, 27, 7, 30), datetime(2026, 11, 25, 21, 0)]
    assert [s.day_of(t) for t in s.tasks] == [date(2026, 11, 23), date(2026, 11, 25), date(2026, 11, 27),
                                              date(2026, 11, 25)]


@pytest.mark.parametrize(("task", "says"), [
    ('{id: e, day: 1, clock: "2026-11-24 08:00", apps: [notes], instruction: {L0: x}, difficulty: 1, golden_steps: 1}',
     "give the day once"),
    ('{id: e, day: -1, clock: "08:00", apps: [notes], instruction: {L0: x}, difficulty: 1, golden_steps: 1}',
     "day index from the sequence's start"),
])
def test_a_bad_day_is_named(task: str, says: str) -> None:
    with pytest.raises(ScenarioError) as err:
        load_text(SEQ + "  - " + task + "\n", "bad.yaml")
    assert any(says in p and "bad.yaml" in p for p in err.value.problems), err.value.problems


def test_a_preference_replaces_only_an_earlier_one() -> None:
    text = SEQ.replace("tasks:", """preferences:
  - {id: new, text: "Gifts under $100.", stated_in: b, replaces: old}
  - {id: old, text: "Gifts under $50.", stated_in: a}
tasks:""")
    with pytest.raises(ScenarioError) as err:
        load_text(text, "prefs.yaml")
    assert any("replaces 'old', which is not a preference declared before it" in p for p in err.value.problems)


def test_the_day_pack_is_unchanged_one_day() -> None:
    day = find_scenario("day")
    assert {day.day_of(t) for t in day.tasks} == {date(2026, 11, 21)}
    assert day.when(day.tasks[0]) == datetime(2026, 11, 21, 8, 0)


# --- the week's shape -----------------------------------------------------------------------------


def test_the_week_has_five_days_forty_tasks_and_many_apps() -> None:
    assert WEEK.kind == "sequence" and len(WEEK.tasks) >= 40
    per_day = Counter(WEEK.day_of(t) for t in WEEK.tasks)
    assert len(per_day) >= 5 and min(per_day.values()) >= 7
    whens = [WEEK.when(t) for t in WEEK.tasks]
    assert whens == sorted(whens), "the week runs forward"
    apps = Counter(a for t in WEEK.tasks for a in t.apps)
    assert len(apps) >= 10
    assert max(apps.values()) <= len(WEEK.tasks) // 4, f"no app dominates the week: {apps}"
    assert sum(len(t.apps) > 1 for t in WEEK.tasks) >= 8
    assert WEEK.levels == ["L0", "L1", "L2"]
    assert all(t.rule_checked and t.reference and t.user.profile for t in WEEK.tasks)


def test_the_week_has_events_of_every_kind_and_tasks_that_need_them() -> None:
    events = WEEK.setup["events"]
    assert {e["kind"] for e in events} == {"message", "invitation", "price"}
    titles = {e["title"] for e in events if e["kind"] == "invitation"}
    needing = [t for t in WEEK.tasks if any(title in t.instruction.L0 for title in titles)]
    assert len(needing) >= 3


def test_values_flow_across_days_and_prerequisites_cross_days() -> None:
    produced_on = {name: WEEK.day_of(t) for t in WEEK.tasks for name in t.outputs}
    report = WEEK.task("fri-expense-report")
    used = report.template_names() & set(produced_on)
    assert {produced_on[n] for n in used} >= {date(2026, 11, 23), date(2026, 11, 26)}  # Monday's total on Friday
    crossing = [(t.id, d) for t in WEEK.tasks for d in t.depends_on if WEEK.day_of(WEEK.task(d)) < WEEK.day_of(t)]
    assert len(crossing) >= 8


def test_the_persona_changes_mid_week() -> None:
    prefs = {p.id: p for p in WEEK.preferences}
    changed = [p for p in prefs.values() if p.replaces]
    assert len(changed) >= 2
    for p in changed:
        old = prefs[p.replaces]  # type: ignore[index]
        before = [t for t in WEEK.tasks if old.id in t.constrained_by]
        after = [t for t in WEEK.tasks if p.id in t.constrained_by]
        assert before and after, p.id
        assert WEEK.day_of(WEEK.task(old.stated_in)) < WEEK.day_of(WEEK.task(p.stated_in)) == date(2026, 11, 25)
        assert all(WEEK.day_of(t) < WEEK.day_of(WEEK.task(p.stated_in)) for t in before)
        assert all(WEEK.day_of(t) > WEEK.day_of(WEEK.task(p.stated_in)) for t in after)


# --- the preference change, decided by milestones on both sides --------------------------------------------


def reached(task_id: str, apps: dict[str, Any], clock: str) -> set[str]:
    """The milestones of a week task whose checks hold on a phone in the given state (each on its own,
    as the rules judge decides them)."""
    from guilens.device.sim.device import SimDevice

    task: Task = WEEK.task(task_id).filled({**WEEK.task(task_id).user.values, **WEEK.expected_values(WEEK.task(task_id))})
    d = SimDevice(setup={"clock": clock, "apps": {**WEEK.setup["apps"], **apps}})
    ctx = CheckContext.from_observation(d.observe(), state=d.state())
    return {m.id for m in task.all_milestones() if m.check is not None and evaluate(m.check, ctx).ok}


def order(pid: str) -> dict[str, Any]:
    return {"products": WEEK.setup["apps"]["shop"]["products"],
            "orders": [{"id": 1, "items": [{"product_id": pid, "color": "Teal"}], "total": 1.0,
                        "placed": "2026-11-24T12:05:00"}]}


def dinner(title: str, day: str, end: str, place: str) -> dict[str, Any]:
    return {"events": [{"title": title, "start": f"{day}T{'19:00' if day.endswith('23') else '18:30'}",
                        "end": f"{day}T{end}", "location": place}]}


def test_gifts_follow_the_budget_in_force_on_their_day() -> None:
    # Tuesday (under $50): the $34.50 pour-over set, not the $79 speaker
    assert "bought" in reached("tue-gift-alice", {"shop": order("w3")}, "2026-11-24T12:10")
    assert "bought" not in reached("tue-gift-alice", {"shop": order("w4")}, "2026-11-24T12:10")
    # Thursday (under $100 since Wednesday): the $79 speaker is right now, the $149 headphones are not
    assert "bought" in reached("thu-gift-bob", {"shop": order("w4")}, "2026-11-26T12:10")
    assert "bought" not in reached("thu-gift-bob", {"shop": order("w5")}, "2026-11-26T12:10")


def test_evening_events_end_by_the_rule_in_force_on_their_day() -> None:
    mon = ("mon-dinner-mom", "Dinner with Mom", "2026-11-23", "Luigi's")
    thu = ("thu-dinner-mom", "Sushi with Mom", "2026-11-26", "Sakura Sushi")
    for (tid, title, day, place), right, wrong in ((mon, "21:00", "20:00"), (thu, "20:00", "21:00")):
        assert "event" in reached(tid, {"calendar": dinner(title, day, right, place)}, f"{day}T16:05"), tid
        assert "event" not in reached(tid, {"calendar": dinner(title, day, wrong, place)}, f"{day}T16:05"), tid


def test_invitations_are_answered_by_the_rule_in_force() -> None:
    def invited(title: str, start: str, end: str, response: str) -> dict[str, Any]:
        return {"events": [{"title": title, "start": start, "end": end, "organizer": "x", "response": response}]}

    tue = ("Board game night", "2026-11-24T19:00", "2026-11-24T20:45")
    thu = ("Quiz night", "2026-11-26T19:00", "2026-11-26T20:30")
    assert "accepted" in reached("tue-board-games", {"calendar": invited(*tue, "accepted")}, "2026-11-24T09:40")
    assert "accepted" not in reached("tue-board-games", {"calendar": invited(*tue, "declined")}, "2026-11-24T09:40")
    assert "declined" in reached("thu-quiz-night", {"calendar": invited(*thu, "declined")}, "2026-11-26T09:40")
    assert "declined" not in reached("thu-quiz-night", {"calendar": invited(*thu, "accepted")}, "2026-11-26T09:40")


# --- the week run: the clock per day, blocked across days, the report by day -----------------------------


class GivesUpOnMonday(OracleAgent):
    """The oracle, except that it gives up on Monday's gym alarm: what is built on it is blocked, on
    Tuesday (move the alarm) and on Friday (turn it off for the weekend)."""

    name = "gives-up-on-monday"

    def reset(self, context: AgentContext) -> None:
        super().reset(context)
        self.give_up = context.task.id == "mon-gym-alarm"

    def step(self, inp: StepInput) -> AgentStep:
        from guilens.actions import Finish

        if self.give_up:
            return AgentStep(action=Finish(status="failure"), thought="Not today.", memory=self._memory())
        return super().step(inp)


@pytest.fixture(scope="module")
def week_run(tmp_path_factory: pytest.TempPathFactory) -> Any:
    out = tmp_path_factory.mktemp("week") / "runs"
    return run("week", out, agent="tests.test_sequence_week:GivesUpOnMonday", screen=SMALL)


def test_a_failure_on_monday_blocks_its_dependents_on_later_days(week_run: Any) -> None:
    status = {t: r.status for t, r in week_run.tasks.items()}
    assert status["mon-gym-alarm"] == "failure"
    blocked = {t for t, s in status.items() if s == "blocked"}
    assert blocked == {"tue-gym-earlier", "fri-weekend-alarms"}
    assert all(s == "success" for t, s in status.items() if t not in blocked | {"mon-gym-alarm"}), status
    for tid, why in (("tue-gym-earlier", "mon-gym-alarm (failure)"), ("fri-weekend-alarms", "tue-gym-earlier (blocked)")):
        ep = json.loads((week_run.run_dir / tid / "attempt-1" / "episode.json").read_text())
        assert ep["error"] == f"prerequisite failed: {why}" and ep["steps"] == 0


def test_each_task_starts_on_its_day_at_its_time(week_run: Any) -> None:
    for tid, when in (("mon-rules", "2026-11-23T08:00"), ("wed-jacket-buy", "2026-11-25T09:00"),
                      ("fri-bob-birthday", "2026-11-27T22:00")):
        assert read_steps(week_run.run_dir / tid / "attempt-1")[0]["clock"].startswith(when), tid


def test_the_report_gives_cas_as_and_each_day(week_run: Any) -> None:
    from io import StringIO

    from rich.console import Console

    from guilens.judge.report import load_report
    from guilens.judge.report_text import print_report

    report = load_report(week_run.run_dir)
    m = report.metrics()
    assert m["tasks"] == len(WEEK.tasks) and m["cas"]["value"] is not None and m["as"]["value"] > 0
    days = m["by_day"]
    assert list(days) == ["2026-11-23", "2026-11-24", "2026-11-25", "2026-11-26", "2026-11-27"]
    mon, wed, fri = days["2026-11-23"], days["2026-11-25"], days["2026-11-27"]
    assert (mon["label"], mon["tasks"], mon["succeeded"], mon["blocked"]) == ("Mon Nov 23", 9, 8, 0)
    assert (days["2026-11-24"]["blocked"], wed["blocked"], fri["blocked"]) == (1, 0, 1)
    assert wed["sr"]["value"] == 1.0 and wed["cas"]["value"] == 1.0  # L0: nothing to ask
    buf = StringIO()
    print_report(report, Console(file=buf, width=200))
    text = buf.getvalue()
    assert "By day" in text and "Fri Nov 27" in text


def test_a_run_of_independent_tasks_has_no_days(tmp_path: Any) -> None:
    from guilens.judge.report import load_report

    result = run("demo", tmp_path / "runs", agent="oracle", screen=SMALL)
    assert "by_day" not in load_report(result.run_dir).metrics()


def test_show_names_a_sequence_task_s_day() -> None:
    import subprocess
    import sys

    res = subprocess.run([sys.executable, "-m", "guilens", "scenarios", "show", "week:thu-quiz-night"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "clock: 09:30   day: Thu 2026-11-26" in res.stdout
