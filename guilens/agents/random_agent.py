"""Seeded random actions on the screen's actionable elements.

For negative tests and smoke runs: it exercises every part of the runner (element
targets, typing, swipes, keys, app switches) and almost never completes a task,
which is what a judge or a metric should then say. The same seed, task and
device give the same episode.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from guilens.actions import Finish, KeyPress, LongPress, OpenApp, Swipe, Tap, Type
from guilens.agents.base import AgentContext, AgentStep, StepInput
from guilens.device.uitree import actionable_elements

if TYPE_CHECKING:
    from guilens.config import Settings

WORDS = ("hello", "test", "milk", "42", "Monday", "search", "note", "asdf")


class RandomAgent:
    name = "random"
    model: str | None = None

    def __init__(self, settings: Settings | None = None, *, seed: int | None = None, give_up: float = 0.01) -> None:
        self.seed = 0 if seed is None else seed
        self.give_up = give_up
        """Chance per step of finishing with `failure` (so not every run is a timeout)."""
        self.rng = random.Random(self.seed)
        self.apps: list[str] = []

    def reset(self, context: AgentContext) -> None:
        # One stream per task and attempt, so pass@k attempts differ but reruns repeat.
        self.rng = random.Random(f"{self.seed}:{getattr(context.task, 'id', '')}:{context.attempt}")
        self.apps = list(context.apps)

    def step(self, inp: StepInput) -> AgentStep:
        rng = self.rng
        obs = inp.observation
        w, h = obs.size
        elements = actionable_elements(obs.ui) if obs.ui is not None else []
        roll = rng.random()
        if roll < self.give_up:
            return AgentStep(action=Finish(status="failure"), thought="I give up.")
        if elements and roll < 0.72:
            n = rng.randrange(len(elements))
            el = elements[n]
            if el.editable and rng.random() < 0.5:
                action: object = Type(text=rng.choice(WORDS))
            elif el.long_clickable and rng.random() < 0.2:
                action = LongPress(element=n)
            else:
                action = Tap(element=n)
            return AgentStep(action=action, thought=f"Try element {n} ({el.label()[:40]!r}).")
        if roll < 0.82:
            x = rng.randrange(w // 5, 4 * w // 5)
            y1, y2 = (int(h * 0.7), int(h * 0.3)) if rng.random() < 0.6 else (int(h * 0.3), int(h * 0.7))
            return AgentStep(action=Swipe(x1=x, y1=y1, x2=x, y2=y2), thought="Scroll somewhere.")
        if roll < 0.9:
            return AgentStep(action=KeyPress(key="back"), thought="Go back.")
        if roll < 0.94:
            return AgentStep(action=KeyPress(key="home"), thought="Go home.")
        if self.apps:
            return AgentStep(action=OpenApp(app=rng.choice(self.apps)), thought="Open some app.")
        return AgentStep(action=Tap(x=rng.randrange(w), y=rng.randrange(h)), thought="Tap anywhere.")
