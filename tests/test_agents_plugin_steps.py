"""What a plug-in agent's `step` may return: an `AgentStep`, a dict of its fields, or a bare action dict;
anything else ends the attempt with one line naming the agent and what `step` should return."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from guilens.agents.base import AgentContext, AgentProtocolError, AgentStep, StepInput, as_agent_step
from guilens.agents.registry import load_agent
from guilens.config import Settings
from guilens.episode import Memory, Usage

FINISH = {"type": "finish", "status": "success"}


class FieldsAgent:
    """Returns AgentStep's fields as a dict, memory and usage as dicts too."""

    name = "fields"

    def reset(self, context: AgentContext) -> None:
        self.n = 0

    def step(self, inp: StepInput) -> Any:
        return {"action": FINISH, "thought": "Nothing to do.", "description": "Finish",
                "memory": {"stm": ["looked"]}, "usage": {"input_tokens": 10, "output_tokens": 2}}


class BareActionAgent:
    def reset(self, context: AgentContext) -> None:
        pass

    def step(self, inp: StepInput) -> Any:
        return FINISH


class TypoAgent:
    def reset(self, context: AgentContext) -> None:
        pass

    def step(self, inp: StepInput) -> Any:
        return {"action": FINISH, "thougth": "oops"}


class TextAgent:
    def reset(self, context: AgentContext) -> None:
        pass

    def step(self, inp: StepInput) -> Any:
        return "finish"


class SlotsAgent:
    """Instances take no new attributes: the check wraps the agent instead of its method."""

    __slots__ = ()
    name = "slots"
    model = None

    def reset(self, context: AgentContext) -> None:
        pass

    def step(self, inp: StepInput) -> Any:
        return {"action": FINISH}


def test_an_agent_step_and_the_dicts_plug_in_authors_write_are_read() -> None:
    step = AgentStep(action=FINISH, thought="t")
    assert as_agent_step(step, "x") is step
    made = as_agent_step({"action": FINISH, "thought": "t", "memory": {"stm": ["a"]}, "usage": {"input_tokens": 3}},
                         "x")
    assert made.action == FINISH and made.thought == "t"
    assert made.memory == Memory(stm=["a"]) and made.usage == Usage(input_tokens=3)
    assert as_agent_step(FINISH, "x").action == FINISH  # the bare action
    assert as_agent_step({"action": FINISH, "memory": None}, "x").memory == Memory()


@pytest.mark.parametrize(
    ("returned", "said"),
    [
        (None, "it returned None"),
        ("finish", "it returned str"),
        ({"act": "finish"}, "it returned a dict without 'action' or 'type' (keys: act)"),
        ({"action": FINISH, "thougth": "x"}, "it returned a dict with 'thougth' (AgentStep's fields: action, thought"),
        ({"action": FINISH, "memory": {"stm": "not a list"}}, "it returned memory.stm: Input should be a valid list"),
        ({"action": FINISH, "thought": 3}, "it returned thought as int, not text"),
    ],
)
def test_anything_else_is_one_line_naming_the_agent_and_what_to_return(returned: Any, said: str) -> None:
    with pytest.raises(AgentProtocolError) as err:
        as_agent_step(returned, "mypkg.agents:Mine")
    text = str(err.value)
    assert "\n" not in text and said in text
    assert text.startswith("mypkg.agents:Mine.step must return guilens.agents.base.AgentStep or a dict of its fields")


@pytest.mark.parametrize("cls", ["FieldsAgent", "BareActionAgent", "SlotsAgent"])
def test_a_plug_ins_step_is_read_through_the_check(cls: str) -> None:
    agent = load_agent(f"{__name__}:{cls}", Settings())
    agent.reset(None)
    step = agent.step(None)
    assert isinstance(step, AgentStep) and step.action == FINISH
    assert agent.name  # a wrapped agent still answers for its attributes


def test_built_in_agents_are_not_wrapped() -> None:
    from guilens.agents.oracle import OracleAgent

    agent = load_agent("oracle", Settings())
    assert type(agent) is OracleAgent and "step" not in vars(agent)


@pytest.mark.parametrize(("cls", "status", "error"), [
    ("FieldsAgent", "success", None),
    ("TypoAgent", "error", "AgentProtocolError: test_agents_plugin_steps:TypoAgent.step must return "
                           "guilens.agents.base.AgentStep or a dict of its fields; it returned a dict with 'thougth'"),
    ("TextAgent", "error", "AgentProtocolError: test_agents_plugin_steps:TextAgent.step must return "
                           "guilens.agents.base.AgentStep or a dict of its fields; it returned str"),
])
def test_a_run_with_a_plug_in_records_its_steps_or_says_what_it_should_return(
        tmp_path: Path, cls: str, status: str, error: str | None) -> None:
    from guilens.episode import EpisodeReader
    from guilens.run.engine import Runner
    from guilens.run.plan import plan_run

    plan = plan_run("demo", agent=f"test_agents_plugin_steps:{cls}", devices=["sim"], out=tmp_path,
                    settings=Settings(run_dir=tmp_path, cache_dir=tmp_path / "cache"))
    Runner(plan).run()
    reader = EpisodeReader(next(tmp_path.rglob("episode.json")).parent)
    assert reader.episode.status in ((status,) if status == "error" else ("success", "failure"))
    if error is None:
        assert reader.steps[0].thought == "Nothing to do." and reader.steps[0].memory.stm == ["looked"]
        assert reader.steps[0].usage.input_tokens == 10
    else:
        assert reader.episode.error is not None and reader.episode.error.startswith(error)
        assert "AttributeError" not in reader.episode.error
