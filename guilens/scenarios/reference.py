"""The reference executor: plays a task's reference solution on a device.

`ReferencePlayer` turns reference steps into guilens actions one observation at
a time: it finds the element a step names in the current UI tree (by text, id
or content-desc, never by pixels), fills `{slot}` templates, and asks the user
where the level leaves a slot out. The oracle agent wraps it; `run_reference`
drives it against a device with the milestone tracker, which is how
`guilens scenarios verify` and the tests prove every built-in task solvable
and its checks right.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from guilens.actions import (
    Action,
    Answer,
    AskUser,
    Finish,
    KeyPress,
    LongPress,
    OpenApp,
    Swipe,
    Tap,
    Type,
    Wait,
)
from guilens.device.uitree import UINode, clickable_ancestor, visible_texts
from guilens.scenarios.checks import CheckContext, CheckResult, MilestoneTracker, norm, select, success
from guilens.scenarios.model import TEMPLATE, Task, fill_text
from guilens.scenarios.spec_reference import (
    AnswerStep,
    AskStep,
    BareStep,
    FinishStep,
    KeyStep,
    LongPressStep,
    OpenStep,
    RememberSpec,
    RememberStep,
    Selector,
    SwipeStep,
    TapStep,
    TypeStep,
    WaitStep,
    selector_index,
    selector_text,
    step_runs_at,
)

if TYPE_CHECKING:
    from guilens.device.base import Device, Observation

UserFn = Callable[[str], str | None]


class ReferenceError(RuntimeError):
    """A reference step cannot be played (its element is not on screen, a slot is unknown)."""


@dataclass
class ReferenceAction:
    """One step of the reference, ready to perform."""

    action: Action
    """Resolved to pixels when the observation had a UI tree; `target` keeps the selector."""
    description: str
    thought: str = ""
    target: str | None = None
    remember: list[RememberSpec] = field(default_factory=list)
    """Facts the expert keeps in long-term memory from here on (the oracle's LTM)."""
    slot: str | None = None
    """For an `ask`: the slot the user's answer fills."""
    index: int = 0
    """Position of the step in the task's reference list."""


def find_target(ui: UINode, selector: Selector) -> UINode:
    """The element a reference step means: the `index`-th visible match, lifted to what a tap hits."""
    text = selector_text(selector)
    nodes = [n for n in select(ui, text) if n.area > 0]
    idx = selector_index(selector)
    if len(nodes) <= idx:
        shown = ", ".join(repr(t) for t in visible_texts(ui)[:25])
        have = f"{len(nodes)} match(es)" if nodes else "no match"
        raise ReferenceError(f"no element {text!r}{f' #{idx}' if idx else ''} on screen ({have}; visible: {shown})")
    return clickable_ancestor(nodes[idx])


def extract_slot_value(answer: str, known: str | None) -> str:
    """What to use of a user's answer: the slot's value if the answer contains it, else the answer itself.

    The oracle user answers with the bare value; an LLM or a person may wrap
    it in a sentence ("It's Nike."), which a template must not carry along.
    """
    if known and norm(known) in norm(answer):
        return known
    return answer.strip().rstrip(".!").strip().strip("\"'")


class ReferencePlayer:
    """Plays a task's reference one observation at a time.

    At L0 every slot is known from the task. At L1/L2 a slot is unknown where an
    `ask` step for it runs at that level; the player then emits `ask_user`, and
    the answer (passed back through `answers`, or `answered`) fills `{slot}`
    from then on. `values` are sequence values from earlier tasks.
    """

    def __init__(self, task: Task, level: str = "L0", values: dict[str, str] | None = None) -> None:
        if level not in task.levels:
            raise ReferenceError(f"task {task.id!r} has no {level} instruction")
        self.task = task
        self.level = level
        self.values = dict(values or {})
        asked_here = {
            s.spec.slot for s in task.reference if isinstance(s, AskStep) and s.spec.slot and s.spec.asked_at(level)
        }
        self.known: dict[str, str] = {k: v for k, v in task.user.values.items() if k not in asked_here}
        self.answers: dict[str, str] = {}
        self._pos = 0
        self._pending_slot: str | None = None
        self.done = False

    @property
    def steps_total(self) -> int:
        return sum(1 for s in self.task.reference if step_runs_at(s, self.level))

    @property
    def position(self) -> int:
        """The index (in `task.reference`) of the step played next."""
        return self._pos

    def seek(self, index: int) -> None:
        """Make reference step `index` the next one played: back, when a crash undid what the steps
        since the app opened did; on, past a step that clears an anomaly already cleared
        (`guilens.agents.recovery`)."""
        self._pos = index
        self.done = False

    def answered(self, text: str) -> None:
        """Give the user's answer to the last `ask`."""
        if self._pending_slot:
            slot = self._pending_slot
            self.answers[slot] = extract_slot_value(text, self.task.user.values.get(slot))
            self._pending_slot = None

    def _fill(self, text: str) -> str:
        env = {**self.values, **self.known, **self.answers}
        missing = [n for n in TEMPLATE.findall(text) if n not in env]
        if missing:
            raise ReferenceError(
                f"{{{missing[0]}}} is not known at {self.level} here (ask for it first, or add it to user.slots)"
            )
        return fill_text(text, env)

    def _sel(self, sel: Selector) -> Selector:
        if isinstance(sel, str):
            return self._fill(sel)
        return sel.model_copy(update={k: self._fill(v) for k in ("id", "text", "desc") if (v := getattr(sel, k))})

    def next_step(self, observation: Observation | None, answers: dict[str, str] | None = None) -> ReferenceAction | None:
        """The next action, or None when the reference is played out."""
        for slot, text in (answers or {}).items():
            self.answers[slot] = extract_slot_value(text, self.task.user.values.get(slot))
            if slot == self._pending_slot:
                self._pending_slot = None
        remember: list[RememberSpec] = []
        steps = self.task.reference
        while self._pos < len(steps):
            step, idx = steps[self._pos], self._pos
            self._pos += 1
            if isinstance(step, RememberStep):
                spec = step.remember
                remember.append(RememberSpec(app=spec.app, content=self._fill(spec.content)))
                continue
            if not step_runs_at(step, self.level):
                continue
            try:
                act = self._action(step, observation)
            except ReferenceError as err:
                raise ReferenceError(f"task {self.task.id!r} reference step {idx + 1} ({_show(step)}): {err}") from None
            act.remember = remember
            act.index = idx
            act.thought = getattr(step, "why", "") or act.thought or act.description
            if isinstance(act.action, Finish | Answer):
                self.done = True
            return act
        self.done = True
        return None

    def peek(self, observation: Observation | None = None) -> ReferenceAction | None:
        """The next action as `next_step` would give it, without playing it (raises `ReferenceError` alike).

        The oracle uses it to check, after a person had the controls, that its plan still fits the screen.
        """
        saved = (self._pos, self._pending_slot, self.done)
        try:
            return self.next_step(observation)
        finally:
            self._pos, self._pending_slot, self.done = saved

    def _pointed(self, cls: type[Tap] | type[LongPress], sel: Selector, obs: Observation | None) -> tuple[Action, str]:
        sel = self._sel(sel)
        text = selector_text(sel)
        ui = obs.ui if obs is not None else None
        if ui is None:
            if selector_index(sel):
                raise ReferenceError(f"{text!r} #{selector_index(sel)} needs a UI tree to tell matches apart")
            return cls(target=text), text
        node = find_target(ui, sel)
        x, y = node.center
        return cls(x=x, y=y, target=text), text

    def _action(self, step: Any, obs: Observation | None) -> ReferenceAction:
        match step:
            case OpenStep():
                app = self._fill(step.open)
                return ReferenceAction(OpenApp(app=app), f"open {app}")
            case TapStep():
                a, t = self._pointed(Tap, step.tap, obs)
                return ReferenceAction(a, f"tap {t!r}", target=t)
            case LongPressStep():
                a, t = self._pointed(LongPress, step.long_press, obs)
                return ReferenceAction(a, f"long-press {t!r}", target=t)
            case TypeStep():
                text = self._fill(step.type)
                return ReferenceAction(Type(text=text, clear=step.clear),
                                       f"type {text!r}" + (" (field cleared first)" if step.clear else ""))
            case SwipeStep():
                return ReferenceAction(self._swipe(step, obs), f"swipe {step.spec.direction}")
            case KeyStep():
                return ReferenceAction(KeyPress(key=step.key), f"press {step.key}")
            case BareStep():
                if step.bare == "finish":
                    return ReferenceAction(Finish(status="success"), "finish")
                return ReferenceAction(KeyPress(key=step.bare), f"press {step.bare}")
            case WaitStep():
                return ReferenceAction(Wait(seconds=step.wait), f"wait {step.wait:g}s")
            case AskStep():
                spec = step.spec
                q = self._fill(spec.question)
                self._pending_slot = spec.slot
                return ReferenceAction(AskUser(question=q), f"ask {q!r}", slot=spec.slot)
            case AnswerStep():
                text = self._fill(step.answer)
                return ReferenceAction(Answer(text=text), f"answer {text!r}")
            case FinishStep():
                return ReferenceAction(Finish(status=step.finish), f"finish {step.finish}")
        raise ReferenceError(f"cannot play {step!r}")

    def _swipe(self, step: SwipeStep, obs: Observation | None) -> Swipe:
        spec = step.spec
        w, h = obs.size if obs is not None else (1080, 2400)
        x1, y1, x2, y2 = 0, 0, w, h
        if spec.within is not None:
            if obs is None or obs.ui is None:
                raise ReferenceError("a swipe within an element needs a UI tree")
            x1, y1, x2, y2 = find_target(obs.ui, self._sel(spec.within)).bounds
        cx, cy = (x1 + x2) // 2, (y1 + y2) // 2
        dx = round((x2 - x1) * spec.distance / 2)
        dy = round((y2 - y1) * spec.distance / 2)
        start, end = {
            "up": ((cx, cy + dy), (cx, cy - dy)),
            "down": ((cx, cy - dy), (cx, cy + dy)),
            "left": ((cx + dx, cy), (cx - dx, cy)),
            "right": ((cx - dx, cy), (cx + dx, cy)),
        }[spec.direction]
        clamp_x = lambda v: max(0, min(w - 1, v))  # noqa: E731
        clamp_y = lambda v: max(0, min(h - 1, v))  # noqa: E731
        return Swipe(x1=clamp_x(start[0]), y1=clamp_y(start[1]), x2=clamp_x(end[0]), y2=clamp_y(end[1]), duration_ms=400)


def _show(step: Any) -> str:
    from guilens.scenarios.spec_reference import step_to_data

    data = step_to_data(step)
    return data if isinstance(data, str) else ", ".join(f"{k}: {v}" for k, v in data.items() if k != "why")


# --- running a reference on a device ---------------------------------------------------------


@dataclass
class PlayedStep:
    index: int
    action: Action
    description: str
    result: str
    milestones: list[str] = field(default_factory=list)
    question: str | None = None
    answer: str | None = None


@dataclass
class ReferenceRun:
    """What a reference (or no reference, or another task's) did to a task's checks."""

    task: Task
    level: str
    steps: list[PlayedStep]
    tracker: MilestoneTracker
    success: CheckResult
    answer: str | None = None
    error: str | None = None
    """Why playing stopped early (an element not on screen), if it did."""

    @property
    def ok(self) -> bool:
        """The reference played out, every milestone was reached, and the task succeeded."""
        return self.error is None and self.tracker.all_reached and self.success.ok is True

    @property
    def milestone_steps(self) -> dict[str, int]:
        return dict(self.tracker.reached)

    def summary(self) -> str:
        reached = f"{self.tracker.sub_tasks_done}/{self.tracker.sub_tasks_total} milestones"
        verdict = {True: "success", False: "failure", None: "undecided"}[self.success.ok]
        tail = f"; stopped: {self.error}" if self.error else ""
        return f"{len(self.steps)} steps, {reached}, {verdict} ({self.success.reason}){tail}"


def oracle_user(task: Task) -> UserFn:
    """The oracle user: answers a question with the slot it asks about, from the task's user knowledge."""
    return task.user.answer


def run_reference(
    task: Task,
    device: Device,
    level: str = "L0",
    *,
    values: dict[str, str] | None = None,
    user: UserFn | None = None,
    steps_of: Task | None = None,
    max_steps: int | None = None,
) -> ReferenceRun:
    """Play a reference on a ready device (set up, clock set) and decide `task`'s checks.

    `steps_of` plays another task's reference against this task's checks (the
    mirror test); an empty-reference task plays nothing ("doing nothing" test).
    Milestones are checked after each action; step numbers count from 1.
    """
    values = dict(values or {})
    player_task = steps_of or task
    play_level = level if level in player_task.levels else "L0"
    player = ReferencePlayer(player_task, play_level, values)
    tracker = MilestoneTracker(task, values)
    ask = user or oracle_user(player_task)
    answer: str | None = None
    played: list[PlayedStep] = []
    error: str | None = None
    limit = max_steps or (player.steps_total + 5)
    obs = device.observe()
    while len(played) < limit:
        try:
            ra = player.next_step(obs)
        except ReferenceError as err:
            error = str(err)
            break
        if ra is None:
            break
        step_no = len(played) + 1
        question = reply = None
        if isinstance(ra.action, AskUser):
            question = ra.action.question
            reply = ask(question)
            if reply is None:
                error = f"the user could not answer {question!r}"
                break
            player.answered(reply)
            result = f"user answered {reply!r}"
        elif isinstance(ra.action, Answer):
            answer = ra.action.text
            result = "answered"
        elif isinstance(ra.action, Finish):
            result = f"finished ({ra.action.status})"
        else:
            result = device.act(ra.action)
        obs = device.observe()
        ctx = CheckContext.from_observation(obs, state=device.state(), answer=answer)
        reached = tracker.update(ctx, step_no)
        played.append(PlayedStep(step_no, ra.action, ra.description, result, [m.id for m in reached], question, reply))
        if player.done:
            break
    final = CheckContext.from_observation(obs, state=device.state(), answer=answer)
    if not played:
        tracker.update(final, 0)
    return ReferenceRun(task, level, played, tracker, success(task, tracker, final), answer, error)
