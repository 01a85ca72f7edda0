"""What to run, checked before anything runs: `plan_run` and `RunPlan`.

The CLI and the TUI both call `plan_run`, so a bad target, level, device, agent
or missing API key is the same one-line error wherever it comes from, and it
comes before a run directory exists or a phone is touched.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guilens.cli import UserError
from guilens.config import Settings, load_settings

if TYPE_CHECKING:
    from guilens.control import QuestionChannel, RunControl
    from guilens.scenarios.model import Scenario, Task
    from guilens.users import SimUser

LEVELS = ("L0", "L1", "L2")
USERS = ("oracle", "llm", "human")
MAX_ATTEMPTS = 20
_DEVICE = re.compile(r"^(sim|adb|adb:\S+)$")

AgentFactory = Callable[..., Any]
"""Makes an agent; called with keywords `settings`, `model`, `seed`, `channel`, `control`."""


class PlanError(UserError):
    """A run that cannot start as asked; the message names the option or value at fault."""


@dataclass
class RunPlan:
    """A validated run: which tasks, how, where. Make it with `plan_run`."""

    target: str
    scenario: Scenario
    tasks: list[Task]
    """The tasks to run, in order."""
    sequence: bool
    """Run as one persistent day: no reset between tasks, clock per task, values flowing on."""
    prefix: list[Task]
    """Sequence tasks before the first selected one: played by their references (not recorded)
    so a single task of a day starts from the state the day would have reached."""
    agent: str | AgentFactory
    agent_name: str
    devices: list[Any]
    """Device specs (`sim`, `adb:SERIAL`) or already-open devices."""
    user: str
    level: str
    attempts: int = 1
    all_attempts: bool = False
    max_steps: int | None = None
    out: Path = Path("runs")
    model: str | None = None
    seed: int | None = None
    settings: Settings = field(default_factory=Settings)
    command: str = ""
    run_id: str = ""
    intermission: bool = False
    """A baseline session: before each task the person reads it and starts it (or skips it, or ends
    the session), so their time on a task starts when they do."""

    # -- what the runner asks of a plan -------------------------------------------------------
    def budget(self, task: Task) -> int:
        """`--max-steps`, else the task's budget (its `max_steps`, else floor(1.4 x golden + 1)), grown
        under `--anomalies RATE` by 3 x RATE for the steps recovering takes (closing a pop-up is one
        step; after a crash the app's screens are walked again)."""
        if self.max_steps is not None:
            return self.max_steps
        rate = self.settings.anomalies
        return task.budget + math.ceil(task.budget * 3 * rate) if rate > 0 else task.budget

    def make_agent(self, *, channel: QuestionChannel, control: RunControl) -> Any:
        if callable(self.agent) and not isinstance(self.agent, str):
            agent = _call_factory(self.agent, settings=self.settings, model=self.model, seed=self.seed,
                                  channel=channel, control=control)
            if not getattr(agent, "name", None):
                agent.name = self.agent_name
            return agent
        from guilens.agents.registry import load_agent

        return load_agent(self.agent, self.settings, model=self.model, seed=self.seed, channel=channel, control=control)

    def make_user(self, *, channel: QuestionChannel, control: RunControl) -> SimUser:
        from guilens.users import make_user

        return make_user(self.user, self.settings, channel=channel, control=control)

    def task_key(self, task: Task) -> str:
        return task.id

    @property
    def description(self) -> str:
        what = self.scenario.id if len(self.tasks) == len(self.scenario.tasks) else (
            f"{self.scenario.id}:{self.tasks[0].id}" if len(self.tasks) == 1 else self.scenario.id)
        return f"{what} · {self.agent_name} · {self.user} user · {self.level} · k={self.attempts}"


def _call_factory(factory: AgentFactory, **kw: Any) -> Any:
    import inspect

    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return factory(**kw)
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return factory(**kw)
    return factory(**{k: v for k, v in kw.items() if k in params})


def _agent_name(agent: str | AgentFactory) -> str:
    if isinstance(agent, str):
        return agent.rpartition(":")[2] if ":" in agent else agent
    return str(getattr(agent, "name", None) or getattr(agent, "__name__", "agent"))


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-.")[:60] or "run"


def new_run_id(scenario: str, task: str | None, agent: str, when: datetime | None = None) -> str:
    stamp = (when or datetime.now()).strftime("%Y%m%d-%H%M%S")
    parts = [stamp, scenario] + ([task] if task else []) + [agent]
    return _slug("-".join(parts))


def _resolve_target(target: str) -> tuple[Scenario, Task | None]:
    from guilens.scenarios.errors import ScenarioError
    from guilens.scenarios.loader import find_task

    try:
        return find_task(target)
    except ScenarioError as err:
        problems = err.problems
        if len(problems) == 1:
            raise PlanError(problems[0]) from None
        raise PlanError(f"{target}: {len(problems)} problems:\n" + "\n".join(f"  {p}" for p in problems)) from None


def _instantiate(scenario: Scenario, one: Task | None, variants: int | None,
                 seed: int | None) -> tuple[Scenario, list[Task]]:
    """The scenario with its task templates drawn (`guilens.scenarios.params`: `--variants N`
    variants each by `--seed`, one at seed 0 by default) and the tasks to run: those of the
    target, a template's variants standing for it. The plan carries the drawn scenario, so the
    run's `scenario.json` holds every variant's filled task for the judge to read back."""
    from guilens.scenarios.params import ParamError, has_templates, instantiate, tasks_of

    if not has_templates(scenario):
        if variants is not None:
            raise PlanError(f"--variants {variants}: {scenario.id!r} has no task templates (tasks with params:); "
                            "its tasks have fixed values and run once")
        return scenario, [one] if one is not None else list(scenario.tasks)
    try:
        drawn = instantiate(scenario, variants or 1, seed or 0)
    except ParamError as err:
        raise PlanError(str(err)) from None
    if one is None:
        return drawn, list(drawn.tasks)
    return drawn, tasks_of(drawn, one.id) or [one]


def plan_run(
    target: str,
    *,
    agent: str | AgentFactory = "oracle",
    devices: list[Any] | None = None,
    user: str = "oracle",
    level: str = "L0",
    attempts: int = 1,
    all_attempts: bool = False,
    max_steps: int | None = None,
    out: str | Path | None = None,
    model: str | None = None,
    seed: int | None = None,
    settings: Settings | None = None,
    command: str = "",
    check_agent: bool = True,
    options: dict[str, Any] | None = None,
) -> RunPlan:
    """Check every argument and build the plan; raise `PlanError` (a `UserError`) or
    `MissingAPIKey` with a one-line message for anything that would stop the run.

    `target` is a built-in scenario id, `scenario:task`, a scenario file, or
    `file.yaml:task`. `agent` is `oracle`, `claude`, `human`, `random`,
    `package.module:Class`, or a factory (the TUI's own). `check_agent` makes
    one agent and one user now, so a missing key or a broken plug-in fails here.
    `options` are settings given on the command line (`RUN_OPTIONS`: the LLM agents' format,
    memory and endpoint, the llm user's model, the disconnect wait, ScenDroid's modes): they override the settings
    the plan carries, so every agent, user and device wait of the run is made with them.
    """
    settings = settings if settings is not None else load_settings()
    if options:
        settings = with_options(settings, options)
    if level not in LEVELS:
        raise PlanError(f"--level {level!r}: choose L0, L1 or L2")
    if user not in USERS:
        raise PlanError(f"--user {user!r}: choose {', '.join(USERS)}")
    if not 1 <= attempts <= MAX_ATTEMPTS:
        raise PlanError(f"--attempts {attempts}: give 1 to {MAX_ATTEMPTS}")
    if max_steps is not None and max_steps < 1:
        raise PlanError(f"--max-steps {max_steps}: give at least 1")
    specs = list(devices) if devices else [settings.device]
    for d in specs:
        if isinstance(d, str) and not _DEVICE.match(d.strip()):
            raise PlanError(f"--device {d!r}: use sim, adb or adb:SERIAL")
    if isinstance(agent, str) and not agent.strip():
        raise PlanError("--agent is empty: choose oracle, claude, openai, human, random or package.module:Class")

    scenario, one = _resolve_target(target)
    scenario, tasks = _instantiate(scenario, one, settings.variants, seed)
    missing = [t.id for t in tasks if level not in t.levels]
    if missing:
        have = "/".join(scenario.task(missing[0]).levels)
        raise PlanError(
            f"--level {level}: task {missing[0]!r} of {scenario.id!r} has no {level} instruction (it has {have})"
            + (f"; {len(missing) - 1} more tasks lack it too" if len(missing) > 1 else "")
        )
    from guilens.run.workers import is_sim_spec

    real = [d for d in specs if not is_sim_spec(d) and not _is_sim(d)]
    shown = (real[0] if isinstance(real[0], str) else getattr(real[0], "name", "that device")) if real else ""
    if settings.anomalies > 0 and real:
        raise PlanError(f"--anomalies {settings.anomalies:g}: guilens draws anomalies on the simulated phone only; "
                        f"it cannot draw over a real app on {shown} (use --device sim)")
    if scenario.device == "sim" and real:
        raise PlanError(
            f"scenario {scenario.id!r} is for the simulated phone (its checks read the sim's app state); "
            f"run it with --device sim, not {shown}"
        )
    sequence = scenario.kind == "sequence"
    if settings.context == "augmented" and not sequence:
        # Refused rather than ignored: a run.json saying `augmented` for tasks that had no day to
        # carry would claim a mode the run never applied.
        where = "--context augmented" if (options or {}).get("context") else "the context setting (augmented)"
        raise PlanError(f"{where}: {scenario.id!r} is not a sequence, so there are no earlier tasks of a day "
                        "to give the agent; run a sequence (e.g. day) or use --context episodic")
    prefix: list[Task] = []
    if sequence:
        if len(specs) > 1:
            raise PlanError(f"scenario {scenario.id!r} is a sequence (one persistent day): give one --device")
        if one is not None:
            i = [t.id for t in scenario.tasks].index(one.id)
            prefix = list(scenario.tasks[:i])
            blocked = [p.id for p in prefix if not p.reference]
            if blocked:
                raise PlanError(
                    f"{scenario.id}:{one.id} is part of a sequence and earlier task {blocked[0]!r} has no reference "
                    f"to replay the day up to it; run the whole scenario {scenario.id!r}"
                )
    if attempts > 1 and sequence and any(isinstance(d, str) and d.startswith("adb") for d in specs):
        raise PlanError("pass@k in a sequence restores the phone before each retry: that needs --device sim")

    name = _agent_name(agent)
    plan = RunPlan(
        target=target,
        scenario=scenario,
        tasks=tasks,
        sequence=sequence,
        prefix=prefix,
        agent=agent.strip() if isinstance(agent, str) else agent,
        agent_name=name,
        devices=[d.strip() if isinstance(d, str) else d for d in specs],
        user=user,
        level=level,
        attempts=attempts,
        all_attempts=all_attempts,
        max_steps=max_steps,
        out=Path(out) if out is not None else settings.run_dir,
        model=model,
        seed=seed,
        settings=settings,
        command=command,
        run_id=new_run_id(scenario.id, one.id if one is not None else None, name),
    )
    if check_agent:
        from guilens.control import QuestionChannel, RunControl

        channel, control = QuestionChannel(), RunControl()
        made = plan.make_agent(channel=channel, control=control)
        close = getattr(made, "close", None)
        if callable(close):
            close()
        plan.make_user(channel=channel, control=control)
    return plan


RUN_OPTIONS = {"agent_format": "--format", "agent_memory": "--memory", "agent_base_url": "--base-url",
               "max_pixels": "--max-pixels", "history_images": "--history-images", "screen_info": "--screen-info",
               "user_model": "--user-model", "user_base_url": "--user-base-url",
               "disconnect_wait_s": "--disconnect-wait", "ask": "--ask", "max_questions": "--max-questions",
               "context": "--context", "anomalies": "--anomalies", "variants": "--variants"}
"""The settings `guilens run` takes as options, and how each is spelled there."""


def with_options(settings: Settings, options: dict[str, Any]) -> Settings:
    """`settings` with the given options (None: not given); `PlanError` naming the option otherwise."""
    from pydantic import ValidationError

    given = {k: v for k, v in options.items() if v is not None}
    for name in given:
        if name not in RUN_OPTIONS:
            raise PlanError(f"unknown run option {name!r}: one of {', '.join(RUN_OPTIONS)}")
    if given.get("agent_base_url"):
        from guilens.llm.spec import check_base_url

        given["agent_base_url"] = check_base_url(str(given["agent_base_url"]), option="--base-url")
    try:
        return settings.model_validate({**settings.model_dump(), **given})
    except ValidationError as err:
        e = err.errors()[0]
        name = str(e["loc"][0]) if e["loc"] else ""
        raise PlanError(f"{RUN_OPTIONS.get(name, name)} {given.get(name)!r}: {e['msg']}") from None


def _is_sim(device: Any) -> bool:
    return not isinstance(device, str) and getattr(device, "name", "") == "sim"
