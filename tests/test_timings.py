"""Time booked by who spent it: the agent, a person acting, the user answering, the device.

The runner tests time real runs on the simulated phone with sleeps of known
length in the agent and in the person's or user's reply (answered from a timer
thread, as a person at the keyboard would), and check each second lands in its
bucket, per step and summed in the episode. The report tests read a crafted
episode whose figures are worked out by hand.
"""

from __future__ import annotations

import json
import re
import threading
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from guilens.control import QuestionChannel, RunControl
from guilens.describe import step_times
from guilens.episode import Episode, EpisodeReader, Recorder, Step, StepTimings, Timings
from guilens.judge.html import render_html
from guilens.judge.report import load_report
from guilens.judge.report_text import print_report
from guilens.screens.widgets.render import render_step
from tests.judge_helpers import T0, make_run, screen, ui_xml
from tests.runner_helpers import SMALL, run, write_scenarios

SLOW = "tests.runner_helpers:SlowOracle"  # the oracle, sleeping 0.3 s before each decision
EPS = 0.002  # per-step figures are rounded to 0.1 ms; sums of rounded figures drift by that much
LATE = 2.0  # how late a sleep or a timer may end on a loaded 2-core machine


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    return write_scenarios(tmp_path)


def person_replies(channel: QuestionChannel, kind: str, replies: list[str], after: float) -> list[float]:
    """Answer each `kind` request with the next reply, `after` seconds later, from another thread."""
    left = iter(replies)
    waited: list[float] = []

    def on_change(req: Any, event: str) -> None:
        if event == "opened" and req.kind == kind:
            text = next(left)
            waited.append(after)
            threading.Timer(after, channel.answer, (req.id, text)).start()

    channel.on_change(on_change)
    return waited


def steps_and_episode(result: Any, task: str) -> tuple[list[Step], Episode]:
    reader = EpisodeReader(result.run_dir / task / "attempt-1")
    return reader.steps, reader.episode


def test_an_agent_step_books_the_agents_time_and_the_devices(files: tuple[Path, Path], tmp_path: Path) -> None:
    result = run(f"{files[0]}:budget", tmp_path / "runs", agent=SLOW, screen=SMALL)
    steps, ep = steps_and_episode(result, "budget")
    assert ep.status == "success" and [s.by for s in steps] == ["agent"] * 3
    times = [s.timings for s in steps if s.timings is not None]
    assert len(times) == 3
    for s, t in zip(steps, times, strict=True):
        assert 0.3 <= t.agent_s < 0.3 + LATE, t  # the agent's sleep, and only that
        assert t.person_s == 0 and t.user_s == 0
        wall = (s.ended_at - s.started_at).total_seconds()
        assert wall >= t.agent_s + t.device_s - EPS  # the buckets are parts of the step, not more
    assert times[0].device_s > 0 and times[1].device_s > 0  # opening the app, tapping the note
    tm = ep.timings
    assert tm.agent_s == pytest.approx(sum(t.agent_s for t in times), abs=EPS)
    assert tm.person_s == 0 and tm.user_s == 0
    assert tm.device_s >= sum(t.device_s for t in times) - EPS  # and the set-up before the first step


def test_a_take_over_books_the_persons_time_not_the_agents(files: tuple[Path, Path], tmp_path: Path) -> None:
    control, channel = RunControl(), QuestionChannel()
    person_replies(channel, "action", ['tap "Budget"'], after=0.5)

    class TakeOverAtStep2:
        def on_step(self, episode: Episode, step: Step) -> None:
            control.take_over(step.index == 0)  # a person decides the second step, then hands back

    result = run(f"{files[0]}:budget", tmp_path / "runs", agent="oracle", control=control, channel=channel,
                 observers=[TakeOverAtStep2()], screen=SMALL)
    steps, ep = steps_and_episode(result, "budget")
    assert [s.by for s in steps] == ["agent", "human", "agent"] and ep.status == "success"
    person = steps[1].timings
    assert person is not None and 0.5 <= person.person_s < 0.5 + LATE and person.agent_s == 0 and person.user_s == 0
    for s in (steps[0], steps[2]):
        assert s.timings is not None and s.timings.person_s == 0 and s.timings.agent_s < 0.5
    assert step_times(steps[1])[0].startswith("person 0.")  # the trace's header: the person's time, first
    tm = ep.timings
    assert tm.person_s == pytest.approx(person.person_s, abs=EPS)
    assert tm.user_s == 0  # schema 1 put a take-over's time here
    assert tm.agent_s < 0.5 and ep.human_steps == 1


def test_the_human_agent_books_a_persons_time(files: tuple[Path, Path], tmp_path: Path) -> None:
    channel = QuestionChannel()
    person_replies(channel, "action", ["open notes", 'tap "Budget"', "answer 42 dollars"], after=0.3)
    result = run(f"{files[0]}:budget", tmp_path / "runs", agent="human", channel=channel, screen=SMALL)
    steps, ep = steps_and_episode(result, "budget")
    assert ep.status == "success" and [s.by for s in steps] == ["human"] * 3
    for s in steps:
        assert s.timings is not None and 0.3 <= s.timings.person_s < 0.3 + LATE and s.timings.agent_s == 0
    assert ep.timings.agent_s == 0 and ep.timings.person_s >= 0.9 and ep.timings.user_s == 0


def test_an_answer_by_a_person_books_the_users_time(files: tuple[Path, Path], tmp_path: Path) -> None:
    channel = QuestionChannel()
    person_replies(channel, "question", ["milk"], after=0.6)
    result = run(f"{files[0]}:grocery", tmp_path / "runs", agent="oracle", user="human", channel=channel,
                 level="L1", screen=SMALL)
    steps, ep = steps_and_episode(result, "grocery")
    assert ep.status == "success" and ep.user_turns == 1
    (ask,) = [s for s in steps if s.ask is not None]
    t = ask.timings
    assert t is not None and ask.ask is not None and ask.ask.answered_by == "human"
    assert 0.6 <= t.user_s < 0.6 + LATE and t.agent_s < 0.3 and t.person_s == 0
    assert ep.timings.user_s == pytest.approx(t.user_s, abs=EPS) and ep.timings.person_s == 0
    # the trace's step header holds the agent's time; the answer's time is on the answer's line
    header, *rest = render_step(ask).plain.splitlines()
    assert "agent 0.0" in header and "answered" not in header
    answer_line = next(line for line in rest if line.lstrip().startswith("← milk"))
    took = re.search(r"human answered in (\d+\.\d+)s", answer_line)
    assert took is not None and float(took[1]) >= 0.6, answer_line


# -- the report -------------------------------------------------------------------------------


def crafted_takeover(run_dir: Path) -> Path:
    """The issue's take-over episode: 10 steps, 8 of them a person's (101 s), 2 the agent's (0.02 s,
    $0.02), one question the user took 5 s to answer, 1.2 s of device, 107.5 s on the wall clock."""
    d = run_dir / "note" / "attempt-1"
    ep = Episode(task="note", scenario="judgepack", run_id=run_dir.name, agent="claude", device="sim",
                 timings=Timings(started_at=T0))
    rec = Recorder(d, ep)
    for i in range(10):
        by = "agent" if i in (0, 5) else "human"
        t = StepTimings(agent_s=0.01, user_s=5.0 if i == 5 else 0.0, device_s=0.12) if by == "agent" else \
            StepTimings(person_s=101 / 8, device_s=0.12)
        ask = {"question": "Which title?", "answer": "Shoes", "answered_by": "oracle"} if i == 5 else None
        action = {"type": "ask_user", "question": "Which title?"} if i == 5 else {"type": "tap", "x": 10, "y": 10}
        rec.record_step(Step.model_validate({
            "index": i, "started_at": T0 + timedelta(seconds=i), "ended_at": T0 + timedelta(seconds=i + 1),
            "action": action, "by": by, "timings": t, "ask": ask,
            "usage": {"input_tokens": 900, "cost_usd": 0.01} if by == "agent" else {},
        }), screen(["Notes"], i), ui_xml(["Notes"]))
    rec.finish("success", final_screen=screen(["Shoes", "ASICS 89.99"], 99), final_state={})
    data = json.loads((d / "episode.json").read_text())
    data["timings"].update(duration_s=107.5, agent_s=0.02, person_s=101.0, user_s=5.0, device_s=1.2)
    (d / "episode.json").write_text(json.dumps(data))
    return d


def test_the_report_splits_time_by_who_spent_it(tmp_path: Path) -> None:
    run_dir = make_run(tmp_path)
    crafted_takeover(run_dir)
    report = load_report(run_dir)
    m = report.metrics()
    assert m["agent_time_per_step_s"]["value"] == pytest.approx(0.01)  # 0.02 s over the agent's 2 steps
    assert m["person_time_per_step_s"]["value"] == pytest.approx(101 / 8)  # 101 s over the person's 8
    assert m["user_time_per_answer_s"]["value"] == pytest.approx(5.0)  # one answer, 5 s
    assert m["device_time_per_step_s"]["value"] == pytest.approx(0.12)
    assert m["time_per_step_s"]["value"] == pytest.approx(10.75)  # the wall clock, as MemGUI's Time/Step
    assert m["cost_per_step_usd"]["value"] == pytest.approx(0.01)  # $0.02 over the agent's 2 steps
    row = report.to_json()["episodes"][0]
    assert (row["human_steps"], row["agent_s"], row["person_s"], row["user_s"]) == (8, 0.02, 101.0, 5.0)

    console = Console(width=250, record=True, color_system=None)
    print_report(report, console)
    text = console.export_text()
    metric = {line.split("│")[1].strip(): line.split("│")[2].strip() for line in text.splitlines()
              if line.count("│") >= 4}
    assert metric["Agent s/step"] == "0.01 s" and metric["Person s/step"] == "12.62 s"
    assert metric["User s/answer"] == "5.00 s" and metric["Wall s/step"] == "10.75 s"
    assert "agent s/step" in text and "person s/step" in text and "user s/answer" in text  # episode columns
    assert "12.62s" in text  # the episode's own person s/step

    html = render_html(report, tmp_path / "report.html")
    assert "<td>Agent s/step</td><td class=num>0.01 s</td>" in html
    assert "<td>Person s/step</td><td class=num>12.62 s</td>" in html
    assert "<th>person s/step</th>" in html and "<td class=num>12.62 s</td>" in html


def test_a_run_without_people_shows_no_person_or_user_rows(tmp_path: Path) -> None:
    run_dir = make_run(tmp_path)
    d = crafted_takeover(run_dir)
    data = json.loads((d / "episode.json").read_text())
    data.update(human_steps=0, user_turns=0)
    data["timings"].update(person_s=0.0, user_s=0.0)
    (d / "episode.json").write_text(json.dumps(data))
    report = load_report(run_dir)
    m = report.metrics()
    assert m["agent_time_per_step_s"]["value"] == pytest.approx(0.002)  # now all 10 steps are the agent's
    assert m["person_time_per_step_s"]["value"] is None and m["user_time_per_answer_s"]["value"] is None
    console = Console(width=250, record=True, color_system=None)
    print_report(report, console)
    text = console.export_text()
    assert "Agent s/step" in text and "Person s/step" not in text and "User s/answer" not in text
    assert "person s/step" not in text and "user s/answer" not in text


def test_schema_1_episodes_still_read_and_their_mixed_user_time_is_left_out(tmp_path: Path) -> None:
    """Before the split, a take-over's acting time sat in `user_s` and steps had no timings."""
    run_dir = make_run(tmp_path)
    d = crafted_takeover(run_dir)
    data = json.loads((d / "episode.json").read_text())
    data["schema_version"] = 1
    del data["timings"]["person_s"]
    data["timings"]["user_s"] = 106.0
    (d / "episode.json").write_text(json.dumps(data))
    lines = [json.loads(x) for x in (d / "steps.jsonl").read_text().splitlines()]
    for line in lines:
        del line["timings"]
    (d / "steps.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    reader = EpisodeReader(d)
    assert reader.steps[0].timings is None and step_times(reader.steps[0]) == ["1.0s"]  # the wall time, bare
    m = load_report(run_dir).metrics()
    assert m["agent_time_per_step_s"]["value"] == pytest.approx(0.01)
    assert m["person_time_per_step_s"]["value"] is None and m["user_time_per_answer_s"]["value"] is None
