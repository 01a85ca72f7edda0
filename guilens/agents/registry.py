"""`--agent SPEC` to an agent: a built-in name or any importable `package.module:Class`.

Built-ins are imported lazily (the claude agent pulls in the Anthropic SDK).
Constructors get the settings and whichever of the run's keywords (`model`,
`seed`, `channel`, `control`, ...) they declare, so a plug-in agent takes only
what it needs. Every way a spec can be wrong is a `AgentSpecError` that names
the spec and says what to do; a missing API key surfaces here, before the run.

A plug-in's `step` is read through `agents.base.as_agent_step`: it may return
a dict of `AgentStep`'s fields or a bare action dict, and anything else stops
its attempt with one line naming the class and what `step` should return.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import inspect
from typing import Any

from guilens.cli import UserError
from guilens.config import Settings

BUILTIN_AGENTS: dict[str, str] = {
    "oracle": "guilens.agents.oracle:OracleAgent",
    "claude": "guilens.agents.claude:ClaudeAgent",
    "openai": "guilens.agents.openai_agent:OpenAIAgent",
    "human": "guilens.agents.human:HumanAgent",
    "random": "guilens.agents.random_agent:RandomAgent",
}
CHOICES = ", ".join(BUILTIN_AGENTS) + " or package.module:Class"


class AgentSpecError(UserError):
    """An `--agent` that cannot be loaded: unknown name, import failure, not an agent."""


def resolve_agent_class(spec: str) -> type[Any] | Any:
    """The class (or factory) a spec names, without making an agent."""
    spec = spec.strip()
    if not spec:
        raise AgentSpecError(f"empty --agent; choose {CHOICES}")
    target = BUILTIN_AGENTS.get(spec, spec)
    if ":" not in target:
        raise AgentSpecError(f"unknown agent {spec!r}: choose {CHOICES}")
    module_name, _, attr = target.partition(":")
    if not module_name or not attr or not all(p.isidentifier() for p in module_name.split(".")):
        raise AgentSpecError(f"--agent {spec!r} is not package.module:Class")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        if spec in BUILTIN_AGENTS:
            raise AgentSpecError(f"the built-in {spec} agent is not available in this install ({err})") from None
        raise AgentSpecError(f"--agent {spec!r}: cannot import {module_name!r}: {err}") from None
    except Exception as err:  # the plug-in's own import-time error
        raise AgentSpecError(f"--agent {spec!r}: importing {module_name!r} failed: {type(err).__name__}: {err}") from None
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            own = [c for n in dir(module) if not n.startswith("_")
                   and inspect.isclass(c := getattr(module, n)) and c.__module__ == module.__name__]
            agents = [c.__name__ for c in own if callable(getattr(c, "step", None)) and callable(getattr(c, "reset", None))]
            hint = f" (agents there: {', '.join(sorted(agents))})" if agents else ""
            raise AgentSpecError(f"--agent {spec!r}: module {module_name!r} has no {attr!r}{hint}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise AgentSpecError(f"--agent {spec!r}: {attr!r} is a {type(obj).__name__}, not a class")
    return obj


def _accepted(factory: Any, kw: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    """Whether the factory takes the settings first, and which keywords it declares."""
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        return True, kw
    params = list(sig.parameters.values())
    var_kw = any(p.kind is p.VAR_KEYWORD for p in params)
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    takes_settings = bool(positional) and (
        positional[0].name == "settings" or any(p.kind is p.VAR_POSITIONAL for p in params)
    )
    names = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    chosen = {k: v for k, v in kw.items() if var_kw or k in names}
    chosen.pop("settings", None)
    return takes_settings, chosen


def load_agent(spec: str, settings: Settings, **kw: Any) -> Any:
    """Make the agent `spec` names. `kw` are offered (model, seed, channel, control, ...);
    `None` values are dropped so agents keep their own defaults."""
    factory = resolve_agent_class(spec)
    offered = {k: v for k, v in kw.items() if v is not None}
    takes_settings, chosen = _accepted(factory, offered)
    try:
        agent = factory(settings, **chosen) if takes_settings else factory(**chosen)
    except UserError:
        raise
    except Exception as err:
        from guilens.config import ConfigError

        if isinstance(err, ConfigError):  # MissingAPIKey and friends: already a clear message
            raise
        raise AgentSpecError(f"--agent {spec!r}: could not create the agent: {type(err).__name__}: {err}") from err
    missing = [m for m in ("reset", "step") if not callable(getattr(agent, m, None))]
    if missing:
        raise AgentSpecError(
            f"--agent {spec!r}: {type(agent).__name__} is not an agent: it has no {' or '.join(m + '()' for m in missing)} "
            "(see guilens.agents.base.Agent)"
        )
    if not getattr(agent, "name", None):
        with contextlib.suppress(AttributeError):
            agent.name = spec
    if not hasattr(agent, "model"):
        with contextlib.suppress(AttributeError):
            agent.model = kw.get("model")
    if spec.strip() not in BUILTIN_AGENTS:
        agent = _checked(agent, spec.strip())
    return agent


class _CheckedAgent:
    """A plug-in whose instances cannot take a wrapped `step` (`__slots__`): the check goes around it."""

    def __init__(self, agent: Any, who: str) -> None:
        self._agent = agent
        self._who = who

    def step(self, inp: Any) -> Any:
        from guilens.agents.base import as_agent_step

        return as_agent_step(self._agent.step(inp), self._who)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._agent, name)


def _checked(agent: Any, spec: str) -> Any:
    """`agent` with its `step`'s return read by `as_agent_step` (the plug-in's class stays its own)."""
    from guilens.agents.base import as_agent_step

    step = agent.step
    who = spec if ":" in spec else type(agent).__qualname__

    @functools.wraps(step)
    def checked(inp: Any) -> Any:
        return as_agent_step(step(inp), who)

    try:
        agent.step = checked
    except (AttributeError, TypeError):
        return _CheckedAgent(agent, who)
    return agent
