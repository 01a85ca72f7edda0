"""Fixtures for the TUI tests: a scripted run on the real simulated phone, episode directories,
and a host app that mounts one screen or widget.

`ScriptedRunner` follows the runner's contract as the TUI sees it (observer
callbacks in order, the screen reported as soon as it is seen, `RunControl.gate()`
between steps, which lets a person at the controls through, `ask_user` through
the question channel with the simulated user's suggestion, a person's actions
through `action` requests while they have taken over, all asked on behalf of
its device, `annotate`), and writes a real attempt directory with `Recorder`. The steps it plays are fixed, so
tests can assert exactly what the screens show.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from PIL import Image

from guilens.actions import AskUser, Finish, parse_command
from guilens.control import Cancelled, ObserverList, QuestionChannel, RunControl, acting_for
from guilens.episode import (
    Ask,
    Episode,
    LTMEntry,
    Memory,
    MilestoneHit,
    Recorder,
    Step,
    StepTimings,
    Timings,
    Usage,
)
from guilens.run.resolve import parse_person_action, resolve_action
from guilens.screens.widgets.phone import set_cell_size

# The phone views' cell size, pinned so geometry is the same on every machine (no terminal is asked).
set_cell_size((10, 20))


@dataclass
class ScriptStep:
    command: str
    thought: str = ""
    description: str = ""
    result: str = ""
    stm: list[str] = field(default_factory=list)
    ltm: list[tuple[str, str]] = field(default_factory=list)
    milestones: list[str] = field(default_factory=list)
    suggestion: str | None = None


NOTE_SCRIPT = [
    ScriptStep("open notes", "The task is about a note, so I open Notes.", "Open the Notes app", "",
               ["launcher shown"], [], ["open_notes"]),
    ScriptStep('tap "New note"', "I need a new note.", "Tap the New note button", "Notes opened",
               ["launcher shown", "Notes opened"], [("notes", "no notes yet")]),
    ScriptStep("ask What should the note say?", "The instruction does not say what to write.",
               "Ask the user for the note's text", "an empty note editor opened",
               ["launcher shown", "Notes opened", "editor opened"], [("notes", "editor open")],
               suggestion="Buy milk"),
    ScriptStep("type Buy milk", "The user wants 'Buy milk'.", "Type the note", "the user answered: Buy milk",
               ["Notes opened", "editor opened", "user said Buy milk", "typed"], [("notes", "note: Buy milk")],
               ["write_note"]),
    ScriptStep("finish success", "The note is written.", "Finish", "typed Buy milk",
               ["editor opened", "user said Buy milk", "typed", "done"], [("notes", "note: Buy milk")]),
]
MILESTONES = {"open_notes": "Notes is open", "write_note": "The note says Buy milk"}


class FakeTask:
    """The shape of `guilens.scenarios.model.Task` the milestone panel reads."""

    @dataclass
    class _M:
        id: str
        text: str
        kind: str = "fixed"

    @dataclass
    class _G:
        unordered: list[Any]

    def __init__(self) -> None:
        self.milestones = [
            self._M("open_notes", MILESTONES["open_notes"]),
            self._G([self._M("write_note", MILESTONES["write_note"], "flexible"), self._M("save", "Saved", "fixed")]),
        ]


class ScriptedRunner:
    def __init__(
        self,
        observers: list[Any],
        control: RunControl,
        channel: QuestionChannel,
        *,
        out: Path,
        script: list[ScriptStep] | None = None,
        delay: float = 0.0,
        answer_timeout: float | None = None,
    ) -> None:
        self.obs = ObserverList(observers)
        self.control = control
        self.channel = channel
        self.out = Path(out)
        self.script = list(script if script is not None else NOTE_SCRIPT)
        self.delay = delay
        self.answer_timeout = answer_timeout
        self.recorder: Recorder | None = None
        self.dir: Path | None = None

    def annotate(self, label: str, device: str | None = None) -> None:
        rec = self.recorder
        if rec is None or not rec.steps:
            raise RuntimeError("no step to mark yet")
        step = rec.steps[-1]
        step.annotations.append(label)
        rec.update_step(step)

    def run(self) -> list[Episode]:
        with acting_for("sim"):
            return self._run()

    def _run(self) -> list[Episode]:
        from guilens.device.sim import SimDevice

        dev = SimDevice()
        started = datetime.now().astimezone()
        ep = Episode(run_id="test-run", task="note", scenario="demo", instruction="Write a note for me",
                     level="L1", agent="scripted", user="oracle", device="sim", screen_size=dev.size,
                     budget=10, milestones_total=len(MILESTONES), timings=Timings(started_at=started))
        self.dir = self.out / "test-run" / "note" / "attempt-1"
        rec = self.recorder = Recorder(self.dir, ep)
        self.obs.on_attempt_started(ep)
        self.obs.on_state(ep, "running")
        status, i, pos, last_result = "failure", 0, 0, ""
        obs = dev.observe()
        self.obs.on_screen(ep, 0, obs.screenshot, obs.ui_xml)
        try:
            while pos < len(self.script) and i < (ep.budget or 10):
                self.control.gate("sim")
                self.obs.on_step_started(ep, i)
                t0 = datetime.now().astimezone()
                if self.control.is_human("sim"):
                    self.obs.on_state(ep, "human")
                    reply = self.channel.ask("action", f"Step {i}: your action?", control=self.control)
                    action, by, s = parse_person_action(reply, obs.size), "human", ScriptStep(reply)
                else:
                    s = self.script[pos]
                    pos += 1
                    action, by = parse_command(s.command, obs.size), "agent"
                if self.delay:
                    time.sleep(self.delay)
                ask = None
                target = None
                if isinstance(action, AskUser):
                    self.obs.on_question(ep, action.question, s.suggestion)
                    self.obs.on_state(ep, "waiting")
                    answer = self.channel.ask("question", action.question, suggestion=s.suggestion,
                                              control=self.control, timeout=self.answer_timeout)
                    by_whom = "human" if answer != s.suggestion else "oracle"
                    ask = Ask(question=action.question, answer=answer, answered_by=by_whom, suggested=s.suggestion)
                    self.obs.on_answer(ep, action.question, answer, by_whom)
                    self.obs.on_state(ep, "running")
                    result = f"the user answered: {answer}"
                elif isinstance(action, Finish):
                    result = "finished"
                else:
                    action, target = resolve_action(action, obs)
                    result = dev.act(action)
                mem = Memory(stm=s.stm, ltm=[LTMEntry(app=a, content=c, step=i) for a, c in s.ltm])
                step = Step(index=i, started_at=t0, ended_at=datetime.now().astimezone(), app=obs.app,
                            clock=obs.clock, thought=s.thought, action=action.model_dump(), target=target,
                            action_description=s.description or s.command, action_result=s.result or last_result,
                            memory=mem, ask=ask, milestones=s.milestones, by=by, device_result=result,
                            usage=Usage(input_tokens=1200, output_tokens=80, cost_usd=0.0042) if by == "agent" else Usage())
                rec.record_step(step, obs.screenshot, obs.ui_xml)
                self.obs.on_step(ep, step)
                for mid in s.milestones:
                    ep.milestones.append(MilestoneHit(id=mid, step=i, text=MILESTONES.get(mid, "")))
                    self.obs.on_milestone(ep, mid, i)
                last_result = result
                i += 1
                if isinstance(action, Finish):
                    status = action.status
                    break
                if not isinstance(action, AskUser):
                    obs = dev.observe()
                    self.obs.on_screen(ep, i, obs.screenshot, obs.ui_xml)
        except Cancelled:
            status = "aborted"
        done = rec.finish(status, final_screen=obs.screenshot, final_ui=obs.ui_xml)  # type: ignore[arg-type]
        self.obs.on_state(done, "finished")
        self.obs.on_attempt_finished(done)
        self.obs.on_run_finished([done])
        return [done]


def scripted_factory(out: Path, **kwargs: Any) -> Any:
    """A `RunScreen` runner factory playing `NOTE_SCRIPT` (or `script=`) into `out`."""
    made: list[ScriptedRunner] = []

    def factory(observers: list[Any], control: RunControl, channel: QuestionChannel) -> ScriptedRunner:
        runner = ScriptedRunner(observers, control, channel, out=out, **kwargs)
        made.append(runner)
        return runner

    factory.made = made  # type: ignore[attr-defined]
    return factory


def make_episode(out: Path, **kwargs: Any) -> Path:
    """Record the scripted note episode into `out` without any UI; return the attempt directory."""
    control, channel = RunControl(), QuestionChannel()

    def answer(req: Any, event: str) -> None:
        if event == "opened":
            channel.answer(req.id, req.suggestion or "ok")

    channel.on_change(answer)
    runner = ScriptedRunner([], control, channel, out=out, **kwargs)
    runner.run()
    assert runner.dir is not None
    return runner.dir


def solid(size: tuple[int, int] = (1080, 2400), color: tuple[int, int, int] = (30, 120, 200)) -> Image.Image:
    return Image.new("RGB", size, color)


def make_fixed_episode(out: Path) -> Path:
    """The note script recorded with fixed times and costs, for snapshots: every byte the same
    on every run (the sim is deterministic; the clock is not used)."""
    from datetime import timedelta

    from guilens.device.sim import SimDevice

    t0 = datetime(2025, 1, 20, 9, 0, tzinfo=UTC)
    dev = SimDevice()
    ep = Episode(run_id="snap-run", task="note", scenario="demo", instruction="Write a note for me", level="L1",
                 agent="scripted", user="oracle", device="sim", screen_size=dev.size, budget=10,
                 milestones_total=len(MILESTONES), timings=Timings(started_at=t0))
    d = out / "snap-run" / "note" / "attempt-1"
    rec = Recorder(d, ep)
    for i, s in enumerate(NOTE_SCRIPT):
        obs = dev.observe()
        action = parse_command(s.command, obs.size)
        target, ask, result = None, None, ""
        if isinstance(action, AskUser):
            ask = Ask(question=action.question, answer=s.suggestion, answered_by="oracle")
            result = f"the user answered: {s.suggestion}"
        elif not isinstance(action, Finish):
            action, target = resolve_action(action, obs)
            result = dev.act(action)
        rec.record_step(Step(
            index=i, started_at=t0 + timedelta(seconds=2 * i), ended_at=t0 + timedelta(seconds=2 * i + 1),
            app=obs.app, clock=obs.clock, thought=s.thought, action=action.model_dump(exclude_none=True),
            target=target, action_description=s.description, action_result=s.result,
            memory=Memory(stm=s.stm, ltm=[LTMEntry(app=a, content=c, step=i) for a, c in s.ltm]),
            ask=ask, milestones=s.milestones, device_result=result,
            usage=Usage(input_tokens=1200, output_tokens=80, cost_usd=0.0042),
            timings=StepTimings(agent_s=0.8, user_s=0.5 if ask else 0.0, device_s=0.0 if ask else 0.2),
        ), obs.screenshot, obs.ui_xml)
        ep.milestones += [MilestoneHit(id=m, step=i, text=MILESTONES[m]) for m in s.milestones]
    final = dev.observe()
    rec.finish("success", final_screen=final.screenshot, final_ui=final.ui_xml)
    ep.timings.ended_at = t0 + timedelta(seconds=10)
    ep.timings.duration_s = 10.0
    ep.timings.agent_s, ep.timings.user_s, ep.timings.device_s = 4.0, 0.5, 0.9
    ep.pid = None
    rec.write_episode()
    return d
