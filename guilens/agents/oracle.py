"""The oracle agent: plays the task's reference solution, asking the user where the level leaves a slot out.

Where the run does not let it ask (`--ask off`, ScenDroid's Passive mode, or a question budget
spent), it fills the slot from what it knows, the task's L0 intent, and says so in its thought:
the oracle is the yardstick of what a task takes, not a model of what an agent could guess.

It drives demos and tests, and is the yardstick a real agent is compared with:
deterministic, within the golden steps, and keeping its memory the way a
Chain-of-Memory agent would, so the memory panel has something true to show.
STM is a FIFO of action results (what the previous action did, from the device's
own report); LTM holds app-tagged facts from the reference's `remember` steps,
replaced within an app and appended across apps (CoM, Algorithm 1).

When the reference cannot go on (an element it names is not on screen, because
the phone is not where the expert expected), the oracle gives up with
`finish failure` and says why in its thought, rather than tapping blindly.

After a person took the controls and handed them back, the oracle finds its
place again before going on (`_Resync`):
- the person's steps that are the reference's next steps (same app opened, same
  element tapped, same text typed, the same question asked) count as played, so
  it does not do them twice;
- if the person then went elsewhere, the app they took over in is where the plan
  goes on: the oracle reopens it once (an app resumes where it was left);
- if the reference's next element is still not on screen, the oracle has lost its
  place and finishes with `failure`, saying so, rather than tapping blindly.

An anomaly over the screen (an ad, a permission dialog, the low-battery warning, an
app's crash notice: AndroidLens's interruptions) is cleared as a careful person would
before the plan goes on (`_clear`, rules in `guilens.agents.recovery`): the ad's small
close button, Deny, Close, Close app. A golden path that handles it itself (its next
step taps that very control) is played as written; a recovery step of the golden path
whose anomaly already came and went is stepped over. After a crash the app starts
afresh, so the plan goes back to the step that brought the app to the front and plays
on from there, typing into cleared fields.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from guilens.actions import Answer, Finish, OpenApp, Type
from guilens.agents.base import AgentContext, AgentStep, StepInput
from guilens.episode import LTMEntry, Memory

if TYPE_CHECKING:
    from guilens.config import Settings
    from guilens.device.base import Observation
    from guilens.episode import Episode


@dataclass
class _Resync:
    """Finding the plan's place again after a take-over."""

    app: str | None
    """The app the person took over in, when they then left the plan (where the plan goes on); None if
    they only did the plan's own steps (the plan fits as it is)."""
    followed: int = 0
    """Reference steps the person did for the oracle."""
    reopened: bool = False


class OracleAgent:
    name = "oracle"
    model: str | None = None

    def __init__(self, settings: Settings | None = None, *, stm_size: int | None = None) -> None:
        self.stm_size = stm_size or (settings.stm_size if settings is not None else 4)
        self.context: AgentContext | None = None
        self.player: Any = None
        self.stm: deque[str] = deque(maxlen=self.stm_size)
        self.ltm: list[LTMEntry] = []
        self._last = ""
        self._own: int | None = None
        """The index of the oracle's own last step (a person's steps come after it)."""
        self._resync: _Resync | None = None
        self._reopen: str | None = None
        """After a crash: the app to reopen before the reference goes on (`guilens.agents.recovery`)."""
        self._played: list[tuple[int, str, bool]] = []
        """Reference steps played: (index, the app in front before it, whether it opened an app)."""
        self._replay_until: int | None = None
        """After a crash, the reference position it threw the plan back from: text typed again before
        it replaces what a field kept (an app may keep its input through a crash, as Calculator does)."""
        self.gave_up: str | None = None

    def reset(self, context: AgentContext) -> None:
        from guilens.scenarios.reference import ReferencePlayer

        self.context = context
        task = context.task
        values = dict(context.values)
        self.player = ReferencePlayer(task, context.level, values)
        self.stm = deque(maxlen=self.stm_size)
        self.ltm = [e.model_copy() for e in context.ltm]
        self._last = ""
        self._own = None
        self._resync = None
        self._reopen = None
        self._played = []
        self._replay_until = None
        self.gave_up = None

    def _memory(self) -> Memory:
        lessons = list(self.context.lessons) if self.context is not None else []
        return Memory(stm=list(self.stm), ltm=[e.model_copy() for e in self.ltm], lessons=lessons)

    def _remember(self, app: str, content: str, step: int) -> None:
        entry = LTMEntry(app=app, content=content, step=step)
        if self.ltm and self.ltm[-1].app == app:
            self.ltm[-1] = entry
        else:
            self.ltm.append(entry)

    def step(self, inp: StepInput) -> AgentStep:
        assert self.player is not None, "reset() first"
        out = self._step(inp)
        self._own = inp.index
        return out

    def _step(self, inp: StepInput) -> AgentStep:
        from guilens.scenarios.reference import ReferenceError

        since = -1 if self._own is None else self._own
        people = [h for h in inp.history if h.get("index", -1) > since and h.get("by") == "human"]
        result = self._caught_up(inp, people) if people else self._noted(inp)
        if self._resync is not None:
            move = self._resynchronise(inp.observation, result)
            if move is not None:
                return move
        move = self._clear(inp.observation, result)
        if move is not None:
            return move
        assumed: list[str] = []
        try:
            ra = self.player.next_step(inp.observation)
            while ra is not None and ra.action.type == "ask_user" and not self._may_ask(inp):
                for spec in ra.remember:
                    self._remember(spec.app, spec.content, inp.index)
                assumed.append(self._assume(ra))
                ra = self.player.next_step(inp.observation)
        except ReferenceError as err:
            return self._give_up(f"The screen is not what the reference expects, so I stop: {err}", str(err),
                                 "give up: the reference cannot go on from this screen", result)
        if ra is not None and assumed:
            why = "my question budget is spent" if self.context is None or self.context.ask else "asking is off in this run"
            ra.thought = f"I may not ask the user ({why}), so I go on with what I know: {'; '.join(assumed)}. " + (
                ra.thought or ra.description)
        if ra is None:
            self._last = "finish"
            return AgentStep(action=Finish(status="success"), thought="The reference is played out.",
                             description="finish", action_result=result, memory=self._memory())
        for spec in ra.remember:
            self._remember(spec.app, spec.content, inp.index)
        if self._replay_until is not None:
            if ra.index >= self._replay_until:
                self._replay_until = None
            elif isinstance(ra.action, Type) and not ra.action.clear:
                ra.action = ra.action.model_copy(update={"clear": True})
                ra.description += " (field cleared first: typed again after the crash)"
        self._last = ra.description
        self._played.append((ra.index, inp.observation.app or "", isinstance(ra.action, OpenApp)))
        return AgentStep(
            action=ra.action,
            thought=ra.thought or ra.description,
            description=ra.description,
            action_result=result,
            memory=self._memory(),
        )

    def _clear(self, obs: Observation, result: str) -> AgentStep | None:
        """An anomaly on screen (`guilens.agents.recovery`): the step that clears it, or None when there
        is none or the reference's next step handles it. After closing a crash notice, the plan goes
        back to the step that brought the app to the front, reopening first the app that handed over."""
        from guilens.agents.recovery import (
            after_crash,
            interruption,
            rewind,
            skip_to_crash_recovery,
            skip_unneeded_recovery,
        )
        from guilens.scenarios.reference import ReferenceError

        found = interruption(obs.ui)
        if found is None and self._reopen is None:
            try:
                self.player.peek(obs)
            except ReferenceError:  # a recovery step of the golden path, for an anomaly cleared already?
                while skip_unneeded_recovery(self.player):
                    pass
            return None
        if found is not None and found.kind == "crash":
            skip_to_crash_recovery(self.player)  # the golden path expected this crash later: its own recovery
        if found is None:  # the crash cleared: the app it threw out of opens again
            assert self._reopen is not None  # (returned above otherwise)
            app, self._reopen = self._reopen, None
            self._last = f"open {app}"
            return AgentStep(action=OpenApp(app=app), thought=f"Back to {app}, to do again what the crash lost.",
                             description=f"reopen {app} after the crash", action_result=result,
                             memory=self._memory())
        try:
            ra = self.player.peek(obs)
        except ReferenceError:
            ra = None
        if ra is not None and found.covers(ra.action):
            return None  # the golden path itself taps the interruption's control
        ending = self.player.done or (ra is not None and isinstance(ra.action, Finish | Answer))
        if found.kind == "crash" and not ending:  # about to end: what the app did is saved, nothing is left in it
            crashed = found.app or "the app"
            where = after_crash(self._played, crashed)
            if where is None:
                return self._give_up(f"{crashed} crashed before I played anything; I cannot tell where to start "
                                     "again, so I stop.", f"{crashed} crashed before the plan began",
                                     "give up: crashed before the plan began", result)
            index, self._reopen = where
            self._replay_until = max(self._replay_until or 0, self.player.position)
            rewind(self.player, index)
            self._played = [p for p in self._played if p[0] < index]
        self._last = f"clear the {found.kind}: tap {found.label!r}"
        return AgentStep(action=found.action(), thought=found.why(), description=self._last,
                         action_result=result, memory=self._memory())

    def _may_ask(self, inp: StepInput) -> bool:
        """Whether the run lets the oracle ask now: Active mode, and questions left in the budget."""
        return (self.context is None or self.context.ask) and inp.questions_left != 0

    def _assume(self, ra: Any) -> str:
        """In place of asking (Passive mode, or the budget spent): the slot the question was for, filled
        from what the oracle knows, the task's L0 intent. Returns what it assumed, for its thought."""
        assert self.context is not None, "reset() first"
        slot = getattr(ra, "slot", None)
        value = {**self.context.task.user.values, **self.context.values}.get(slot) if slot else None
        self.player.answered(value or "")
        return f"{slot} = {value}" if slot else f"no answer to {ra.action.question!r}"

    def _give_up(self, thought: str, why: str, description: str, result: str) -> AgentStep:
        self.gave_up = why
        self._last = "finish failure"
        return AgentStep(action=Finish(status="failure"), thought=thought, description=description,
                         action_result=result, memory=self._memory())

    # -- what came of the last step ------------------------------------------------------------
    def _noted(self, inp: StepInput) -> str:
        """The STM entry for the oracle's own previous action (its result comes with this step)."""
        if inp.index == 0 or not self._last:
            return ""
        if inp.last_error:
            result = f"{self._last}: rejected ({inp.last_error})"
        elif inp.user_answer is not None:
            result = f"{self._last}: the user said {inp.user_answer!r}"
            self.player.answered(inp.user_answer)
        else:
            result = f"{self._last}: {inp.last_result or 'done'}"
        self.stm.append(result)
        return result

    def _caught_up(self, inp: StepInput, people: list[dict[str, Any]]) -> str:
        """A person had the controls since the oracle's last step: note what they did, count the
        reference steps they did as played, and start finding the plan's place again."""
        result = ""
        own = next((h for h in inp.history if h.get("index") == self._own), None)
        if own is not None and self._last:
            if own.get("error"):
                result = f"{self._last}: rejected ({own['error']})"
            elif own.get("question") is not None:
                result = f"{self._last}: the user said {own.get('answer')!r}"
                self.player.answered(own.get("answer") or "")
            else:
                result = f"{self._last}: {own.get('result') or 'done'}"
            self.stm.append(result)
        followed, left_at = 0, None
        for h in people:
            outcome = f"rejected ({h['error']})" if h.get("error") else (
                f"the user said {h.get('answer')!r}" if h.get("question") is not None else h.get("result") or "done")
            result = f"a person took over: {h.get('description') or 'an action'}: {outcome}"
            self.stm.append(result)
            if h.get("error") or left_at is not None:
                continue  # a rejected action changed nothing; after leaving the plan, nothing more counts
            if self._follow(h):
                followed += 1
            else:
                left_at = h
        self._resync = _Resync(app=(left_at.get("app") or None) if left_at is not None else None, followed=followed)
        return result

    def _follow(self, h: dict[str, Any]) -> bool:
        """If the person's step is the reference's next one, count it as played (its facts remembered)."""
        from guilens.scenarios.reference import ReferenceError

        try:
            ra = self.player.peek(None)
        except ReferenceError:
            return False
        if ra is None or not _same_step(ra, h):
            return False
        ra = self.player.next_step(None)
        for spec in ra.remember:
            self._remember(spec.app, spec.content, int(h.get("index", 0)))
        if h.get("question") is not None:
            self.player.answered(h.get("answer") or "")
        return True

    # -- finding the place again ----------------------------------------------------------------
    def _resynchronise(self, obs: Observation, result: str) -> AgentStep | None:
        """After a take-over: a step that gets back to the plan, a clear give-up, or None to go on."""
        from guilens.scenarios.checks import app_matches
        from guilens.scenarios.reference import ReferenceError

        rs = self._resync
        assert rs is not None
        problem = None
        try:
            ra = self.player.peek(obs)
        except ReferenceError as err:
            ra, problem = None, str(err)
        if problem is None and (ra is None or isinstance(ra.action, OpenApp)):
            self._resync = None  # played out, or the next step opens its app anyway
            return None
        reopen = rs.app if rs.app is not None and not app_matches(rs.app, obs.app) else None
        away = reopen is not None
        done = f" (the person did {rs.followed} of my steps)" if rs.followed else ""
        if reopen is not None and not rs.reopened:
            rs.reopened = True
            self._last = f"open {rs.app}"
            return AgentStep(
                action=OpenApp(app=reopen),
                thought=f"After the take-over the phone shows {obs.app or 'another screen'}, but my plan goes on "
                        f"in {rs.app}, where the person took over{done}: I reopen it to get back to my place.",
                description=f"re-sync: reopen {rs.app}",
                action_result=result,
                memory=self._memory(),
            )
        if problem is not None or away:
            where = f" in {rs.app}" if rs.app else ""
            why = problem or f"the phone shows {obs.app}, not {rs.app}"
            return self._give_up(
                f"I lost my place after the take-over{done}: the reference's next step{where} cannot be played "
                f"here ({why}){', even after reopening ' + str(rs.app) if rs.reopened else ''}. "
                f"I stop rather than tap blindly.",
                f"lost its place after a take-over: {why}",
                "give up: lost my place after the take-over",
                result,
            )
        self._resync = None
        return None

    def lessons(self, episode: Episode, steps: list[Any]) -> list[str]:
        """What went wrong, for the next attempt's record (the oracle itself plays the same way)."""
        if self.gave_up:
            return [f"attempt {episode.attempt}: the reference could not go on: {self.gave_up}"]
        if episode.status == "timeout":
            return [f"attempt {episode.attempt}: ran out of steps ({episode.budget}); stay on the reference path"]
        return []


def _same_step(ra: Any, h: dict[str, Any]) -> bool:
    """Whether a person's recorded step did what the reference's next action would."""
    from guilens.scenarios.checks import app_matches

    act = h.get("action") or {}
    a = ra.action
    if act.get("type") != a.type:
        return False
    match a.type:
        case "open_app":
            other = str(act.get("app", ""))
            return app_matches(a.app, other) or app_matches(other, a.app)
        case "type":
            return act.get("text") == a.text
        case "key":
            return act.get("key") == a.key
        case "tap" | "long_press":
            return ra.target is not None and _names(ra.target, h.get("target") or {})
        case "ask_user":
            return h.get("question") is not None
        case "wait":
            return True
    return False  # a swipe: where it went cannot be told from the record


def _names(selector: str, target: dict[str, Any]) -> bool:
    """Whether the element a person's step resolved to is the one a reference selector names."""
    sel = selector.strip().casefold()
    kind, _, value = sel.partition(":")
    if kind == "id" and value:
        rid = str(target.get("resource_id") or "").casefold()
        return bool(rid) and value in (rid, rid.rpartition("/")[2])
    said = [str(target.get(k) or "").strip().casefold() for k in ("selector", "label")]
    return sel in said
