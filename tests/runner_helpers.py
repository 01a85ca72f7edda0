"""Scenarios, agents and observers the runner tests share.

The scenarios run on the real simulated phone (its Notes app); the agents are
real plug-ins loaded through `--agent tests.runner_helpers:Class`, the way a
user's own agent would be.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from guilens.actions import Finish, Tap
from guilens.agents.base import AgentContext, AgentStep, StepInput
from guilens.agents.oracle import OracleAgent

NOTES_YAML = """\
id: rt
title: Runner test pack
description: Small Notes tasks for the runner's tests.
user:
  profile: Robin, who keeps shopping lists in the Notes app.
setup:
  clock: "2026-11-21T09:00:00"
  apps:
    notes:
      notes:
        - {title: Budget, body: "Lunch money: 42 dollars a week"}
tasks:
  - id: grocery
    title: Make a shopping note
    apps: [notes]
    instruction:
      L0: "In Notes, create a note titled Groceries whose text is milk."
      L1: "In Notes, create a note titled Groceries with the item I need."
      L2: "I keep forgetting what to buy; write it down for me."
    difficulty: 1
    golden_steps: 7
    user:
      slots:
        item: {value: milk, keywords: [item, buy, need, what, text, write]}
    milestones:
      - id: editor
        text: "The note editor is open"
        check: {state: screen, op: equals, value: notes/edit}
      - id: saved
        text: "A note titled Groceries says milk"
        check: {state: apps.notes.notes, where: {title: Groceries}, field: body, op: contains, value: milk}
    reference:
      - open: notes
      - tap: New note
      - ask: {question: "What should the note say?", slot: item}
      - type: Groceries
      - tap: {id: body}
      - type: "{item}"
      - tap: Save
      - finish
  - id: budget
    title: Read the lunch budget
    apps: [notes]
    instruction:
      L0: "Open the note Budget in Notes and answer with the weekly lunch money."
      L1: "Tell me how much lunch money I have per week."
      L2: "How much can I spend on lunch?"
    difficulty: 1
    golden_steps: 3
    answer: {numbers: [42]}
    milestones:
      - id: opened
        text: "The Budget note is open"
        check: {screen_text: "Lunch money"}
    reference:
      - open: notes
      - tap: Budget
      - remember: {app: notes, content: "Lunch money is 42 dollars a week"}
      - answer: "42 dollars"
"""

SEQUENCE_YAML = """\
id: rtday
title: Runner test day
kind: sequence
start: 2026-11-23
setup:
  apps:
    notes:
      notes:
        - {title: Budget, body: "Lunch money: 42 dollars a week"}
tasks:
  - id: read
    clock: "08:00"
    apps: [notes]
    instruction: {L0: "Open the note Budget and answer with the weekly lunch money."}
    difficulty: 1
    golden_steps: 3
    answer: {numbers: [42]}
    outputs:
      money: {from_answer: true, expected: "42"}
    milestones:
      - {id: opened, text: "The Budget note is open", check: {screen_text: "Lunch money"}}
    reference:
      - open: notes
      - tap: Budget
      - answer: "42 dollars"
  - id: write
    clock: "12:30"
    apps: [notes]
    depends_on: [read]
    instruction: {L0: "Create a note titled Lunch whose text is {money}."}
    difficulty: 1
    golden_steps: 7
    milestones:
      - id: saved
        text: "A note Lunch holds the money"
        check: {state: apps.notes.notes, where: {title: Lunch}, field: body, op: contains, value: "{money}"}
    reference:
      - open: notes
      - back
      - tap: New note
      - type: Lunch
      - tap: {id: body}
      - type: "{money}"
      - tap: Save
  - id: check
    clock: "18:00"
    apps: [notes]
    depends_on: [write]
    instruction: {L0: "Open the note Lunch and answer with what it says."}
    difficulty: 1
    golden_steps: 3
    answer: {numbers: ["{money}"]}
    milestones:
      - {id: opened, text: "The Lunch note is open", check: {screen_text: "{money}"}}
    reference:
      - open: notes
      - tap: Lunch
      - answer: "{money}"
"""


def write_scenarios(tmp: Path) -> tuple[Path, Path]:
    tasks, seq = tmp / "rt.yaml", tmp / "rtday.yaml"
    tasks.write_text(NOTES_YAML, encoding="utf-8")
    seq.write_text(SEQUENCE_YAML, encoding="utf-8")
    return tasks, seq


class FlakyAgent(OracleAgent):
    """Gives up at once on its first attempt at a task, plays the reference after; learns a lesson."""

    name = "flaky"
    seen_lessons: list[list[str]] = []

    def reset(self, context: AgentContext) -> None:
        super().reset(context)
        FlakyAgent.seen_lessons.append(list(context.lessons))
        self.fail_now = context.attempt == 1

    def step(self, inp: StepInput) -> AgentStep:
        if self.fail_now:
            return AgentStep(action=Finish(status="failure"), thought="Not today.", memory=self._memory())
        return super().step(inp)

    def lessons(self, episode: Any, steps: list[Any]) -> list[str]:
        return [f"attempt {episode.attempt} gave up after {len(steps)} step(s): do not give up"]


class SlowOracle(OracleAgent):
    """The oracle with a pause per step, so a test can act mid-run."""

    name = "slow"

    def __init__(self, settings: Any = None, *, delay: float = 0.3) -> None:
        super().__init__(settings)
        self.delay = delay

    def step(self, inp: StepInput) -> AgentStep:
        time.sleep(self.delay)
        return super().step(inp)


class BadActionAgent(OracleAgent):
    """Emits garbage and an unknown element before playing the reference: error steps the agent is told of."""

    name = "bad"

    def reset(self, context: AgentContext) -> None:
        super().reset(context)
        self.errors_seen: list[str | None] = []
        self.n = 0

    def step(self, inp: StepInput) -> AgentStep:
        self.n += 1
        self.errors_seen.append(inp.last_error)
        if self.n == 1:
            return AgentStep(action="launch the rockets", thought="?")
        if self.n == 2:
            return AgentStep(action=Tap(element=999), thought="that one")
        return super().step(inp)


class Events:
    """An observer that keeps every call, in order, thread-safely."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []
        self.threads: dict[str, set[str]] = {}
        """Per method, the names of the threads it was called on."""
        self._lock = threading.Lock()
        self.step_event = threading.Event()

    def __getattr__(self, name: str) -> Any:
        if not name.startswith("on_"):
            raise AttributeError(name)

        def record(*args: Any) -> None:
            with self._lock:
                self.calls.append((name, args))
                self.threads.setdefault(name, set()).add(threading.current_thread().name)
            if name == "on_step":
                self.step_event.set()

        return record

    def names(self) -> list[str]:
        with self._lock:
            return [n for n, _ in self.calls]

    def of(self, name: str) -> list[tuple[Any, ...]]:
        with self._lock:
            return [a for n, a in self.calls if n == name]


def run(target: str | Path, out: Path, *, observers: list[Any] | None = None, control: Any = None,
        channel: Any = None, screen: tuple[int, int] | None = None, **kw: Any) -> Any:
    """Plan and run on the sim; return the `RunResult`.

    Settings come from the environment when a test set it up (the fake API fixture
    points GUILENS_CONFIG_FILE and the base URL at its own), else the defaults, so
    a developer's own config file never leaks into a test.
    """
    import os

    from guilens.config import Settings, load_settings
    from guilens.run.engine import Runner
    from guilens.run.plan import plan_run

    kw.setdefault("devices", ["sim"])
    settings = load_settings() if "GUILENS_CONFIG_FILE" in os.environ else Settings()
    if screen is not None:  # a smaller phone: the same apps and checks, a quarter of the pixels to draw and save
        settings = settings.model_copy(update={"screen_width": screen[0], "screen_height": screen[1]})
    plan = plan_run(str(target), out=out, settings=settings, **kw)
    return Runner(plan, observers=observers, control=control, channel=channel).run()


SMALL = (540, 1200)


def read_steps(attempt_dir: Path) -> list[dict[str, Any]]:
    import json

    return [json.loads(line) for line in (attempt_dir / "steps.jsonl").read_text().splitlines() if line.strip()]


class QuickRetryClaude:
    """The built-in claude agent with test-sized retry waits (the fake API's faults are instant)."""

    def __new__(cls, settings: Any = None, *, model: str | None = None) -> Any:
        from guilens.agents.claude import ClaudeAgent

        agent = ClaudeAgent(settings, model=model)
        agent.client.policy.base_delay, agent.client.policy.max_delay = 0.01, 0.05
        return agent
