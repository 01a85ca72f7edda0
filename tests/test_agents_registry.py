"""`--agent SPEC`: built-ins by name, plug-ins by `package.module:Class`, clear errors otherwise."""

from __future__ import annotations

import pytest

from guilens.agents.human import HumanAgent
from guilens.agents.oracle import OracleAgent
from guilens.agents.random_agent import RandomAgent
from guilens.agents.registry import AgentSpecError, load_agent, resolve_agent_class
from guilens.cli import UserError
from guilens.config import Settings
from guilens.control import QuestionChannel, RunControl
from guilens.llm import MissingAPIKey


def test_builtins_by_name():
    s = Settings()
    assert isinstance(load_agent("oracle", s), OracleAgent)
    agent = load_agent("random", s, seed=7, model="ignored")
    assert isinstance(agent, RandomAgent) and agent.seed == 7
    human = load_agent("human", s, channel=QuestionChannel(), control=RunControl())
    assert isinstance(human, HumanAgent) and human.name == "human"


def test_claude_without_a_key_fails_at_load(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(MissingAPIKey, match="ANTHROPIC_API_KEY is not set"):
        load_agent("claude", Settings(), model="claude-sonnet-4-6")


def test_plugin_gets_only_the_keywords_it_declares():
    agent = load_agent("tests.runner_helpers:SlowOracle", Settings(), seed=3, model="m", channel=QuestionChannel())
    assert agent.name == "slow" and agent.delay == 0.3


class NoName:
    def __init__(self, **kw):
        self.kw = kw

    def reset(self, context):
        pass

    def step(self, inp):
        raise NotImplementedError


class Broken:
    def __init__(self, settings):
        raise RuntimeError("no GPU here")

    def reset(self, context):
        pass

    def step(self, inp):
        raise NotImplementedError


def test_plugin_without_a_name_is_named_by_its_spec():
    agent = load_agent(f"{__name__}:NoName", Settings(), seed=1, model=None)
    assert agent.name == f"{__name__}:NoName" and agent.kw == {"seed": 1}  # None values are not passed
    assert agent.model is None


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "empty --agent"),
        ("gpt", "unknown agent 'gpt'"),
        ("a b:C", "is not package.module:Class"),
        ("no_such_module_x:Agent", "cannot import 'no_such_module_x'"),
        (f"{__name__}:Missing", "has no 'Missing' (agents there: Broken, NoName)"),
        (f"{__name__}:pytest", "not a class"),
        (f"{__name__}:Broken", "could not create the agent: RuntimeError: no GPU here"),
        ("guilens.config:Settings", "Settings is not an agent: it has no reset() or step()"),
    ],
)
def test_bad_specs(spec, message):
    with pytest.raises(AgentSpecError) as err:
        load_agent(spec, Settings())
    assert message in str(err.value)
    assert isinstance(err.value, UserError)


def test_resolving_does_not_instantiate():
    assert resolve_agent_class("oracle") is OracleAgent
