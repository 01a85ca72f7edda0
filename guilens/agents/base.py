"""The agent protocol: what the runner asks of any agent, built in or plugged in.

`reset` starts an attempt, `step` turns one observation into one action, and
the optional `lessons` reflects on a finished attempt so the next one (pass@k)
can do better. An agent never touches the device or the user directly: it
emits an action, and the runner performs it, asks the user, and tells the
agent what came of it in the next `StepInput`.

What `step` returns: an `AgentStep`. A plug-in may also return a plain dict,
which is what a quick agent written against JSON-speaking models tends to
have at hand: either `AgentStep`'s fields (`{"action": ..., "thought": ...,
"memory": {"stm": [...]}}`, `action` required, `memory` and `usage` as dicts
or models) or the bare action (`{"type": "tap", "x": 540, "y": 1200}`).
`guilens.agents.registry` reads a plug-in's return through `as_agent_step`, so
anything else, or a dict with a key `AgentStep` does not have, ends the
attempt with one line naming the agent and what it should return, not an
`AttributeError` from deep in the runner.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pydantic import ValidationError

from guilens.episode import LTMEntry, Memory, Usage
from guilens.episode_model import LLMCall

if TYPE_CHECKING:
    from guilens.device.base import Observation
    from guilens.episode import Episode


@dataclass
class EarlierTask:
    """One earlier task of a day, as ScenDroid's context pack gives it to an agent (`--context augmented`):
    the completed task's record and a summary of its trajectory."""

    task: str
    instruction: str
    outcome: str
    """The attempt's status as recorded (`success`, `failure`, `timeout`, `blocked`, ...)."""
    answer: str | None = None
    values: dict[str, str] = field(default_factory=dict)
    """The values the task handed on to later tasks of the day."""
    actions: list[str] = field(default_factory=list)
    """The trajectory summarised: one line per step (its description, the question asked and answered)."""
    clock: str | None = None
    """When in the day the task ran (its first step's clock), if it ran."""


@dataclass
class AgentContext:
    """What an agent knows when an attempt starts."""

    task: Any
    """The `guilens.scenarios.model.Task` being attempted."""
    instruction: str
    """The instruction at the run's level (L0, L1 or L2): all the agent is told of the task."""
    level: str = "L0"
    screen_size: tuple[int, int] = (1080, 2400)
    attempt: int = 1
    attempts: int = 1
    budget: int = 30
    lessons: list[str] = field(default_factory=list)
    """Lessons from earlier attempts at this task (pass@k)."""
    ltm: list[LTMEntry] = field(default_factory=list)
    """Long-term memory carried from earlier attempts and tasks."""
    apps: list[str] = field(default_factory=list)
    """Apps installed on the device."""
    seed: int | None = None
    values: dict[str, str] = field(default_factory=dict)
    """Values earlier tasks of a sequence produced (`{name}` templates in the task's reference)."""
    ask: bool = True
    """Whether `ask_user` is offered (ScenDroid's Active mode); off (`--ask off`, Passive), an agent
    leaves it out of what it tells its model, and the runner refuses one emitted anyway."""
    max_questions: int | None = None
    """The attempt's clarification budget (`--max-questions`); None: no budget."""
    earlier_tasks: list[EarlierTask] = field(default_factory=list)
    """The day's earlier tasks (`--context augmented`); empty in episodic mode and outside a day."""


@dataclass
class StepInput:
    """What the agent gets at each step besides the screen."""

    index: int
    observation: Observation
    budget_left: int
    last_result: str = ""
    """What the device said the previous action did."""
    last_error: str | None = None
    """Why the previous action was rejected, if it was (invalid action, unknown element)."""
    user_answer: str | None = None
    """The user's answer, when the previous action was `ask_user`."""
    history: list[dict[str, Any]] = field(default_factory=list)
    """Earlier steps of this attempt: action, description, question and answer."""
    questions_left: int | None = None
    """Questions the agent may still ask in this attempt (`--max-questions`); None: no budget."""


@dataclass
class AgentStep:
    """One decision. `action` may be an action model, our JSON dict, or any format `parse_action` reads."""

    action: Any
    thought: str = ""
    description: str = ""
    action_result: str = ""
    """CoM: what the previous action did, in the agent's words (the new STM entry)."""
    memory: Memory = field(default_factory=Memory)
    usage: Usage = field(default_factory=Usage)
    error: str | None = None
    """Set when the agent could not produce an action (malformed model output after retries)."""
    llm_calls: list[LLMCall] = field(default_factory=list)
    """The model calls behind this step as sent and received (`LLMResponse.call`), repairs included;
    the runner records them on the step."""


class AgentProtocolError(TypeError):
    """An agent's `step` returned something that is not an `AgentStep` (nor a dict `as_agent_step` reads)."""


STEP_FIELDS = tuple(f.name for f in fields(AgentStep))


def as_agent_step(result: Any, who: str) -> AgentStep:
    """`result` of `who`'s `step` as an `AgentStep` (see the module docstring for the dicts accepted);
    `AgentProtocolError` with one line naming `who` and what is expected, for anything else."""
    if isinstance(result, AgentStep):
        return result

    def wrong(what: str) -> AgentProtocolError:
        # What is expected first: a line cut short (the headless summary) still says it.
        return AgentProtocolError(f"{who}.step must return guilens.agents.base.AgentStep or a dict of its "
                                  f"fields; it returned {what}")

    if not isinstance(result, dict):
        return_type = "None" if result is None else type(result).__name__
        raise wrong(return_type)
    if "action" not in result:
        if "type" in result:
            return AgentStep(action=result)  # the bare action
        raise wrong(f"a dict without 'action' or 'type' (keys: {', '.join(map(str, result)) or 'none'})")
    unknown = [str(k) for k in result if k not in STEP_FIELDS]
    if unknown:
        raise wrong(f"a dict with {', '.join(map(repr, unknown))} (AgentStep's fields: {', '.join(STEP_FIELDS)})")
    values = dict(result)
    for name, model in (("memory", Memory), ("usage", Usage)):
        if values.get(name) is None:
            values.pop(name, None)
        elif not isinstance(values[name], model):
            try:
                values[name] = model.model_validate(values[name])
            except ValidationError as err:
                first = err.errors()[0]
                where = ".".join(str(p) for p in (name, *first["loc"]))
                raise wrong(f"{where}: {first['msg']}") from None
    for name in ("thought", "description", "action_result"):
        if values.get(name) is None:
            values.pop(name, None)
        elif not isinstance(values[name], str):
            raise wrong(f"{name} as {type(values[name]).__name__}, not text")
    return AgentStep(**values)


@runtime_checkable
class Agent(Protocol):
    name: str
    model: str | None

    def reset(self, context: AgentContext) -> None: ...

    def step(self, inp: StepInput) -> AgentStep: ...


def lessons_of(agent: Agent, episode: Episode, steps: list[Any]) -> list[str]:
    """Ask an agent for lessons after a failed attempt, if it knows how."""
    fn = getattr(agent, "lessons", None)
    if fn is None:
        return []
    return list(fn(episode, steps) or [])
