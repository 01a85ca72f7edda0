"""The simulated users: oracle by slots and keywords, llm through the API, human through the channel."""

from __future__ import annotations

import threading

import pytest

from guilens.config import load_settings
from guilens.control import Cancelled, QuestionChannel, RunControl
from guilens.scenarios.model import UserKnowledge
from guilens.users import FALLBACK, HumanUser, LLMUser, OracleUser, UserContext, make_user
from tests import fakeapi
from tests.fakeapi import text

fake_api = fakeapi.fake_api

KNOWLEDGE = UserKnowledge.model_validate({
    "slots": {
        "contact_name": {"value": "Alice Chen", "keywords": ["who", "recipient", "send"]},
        "alarm_time": {"value": "{wake}", "keywords": ["when", "what time"]},
    },
    "profile": "Sam, who runs in the mornings.",
    "preferences": ["Keep lunch under $15."],
    "facts": ["My phone number is +1 415 555 0199.", "I live in Cupertino."],
})


def ctx(**kw) -> UserContext:
    base = dict(task_id="t", intent="Text Alice Chen that I'm late; set the alarm to 06:30.",
                instruction="Tell my colleague I'm late.", level="L2", knowledge=KNOWLEDGE, values={"wake": "06:30"})
    base.update(kw)
    return UserContext(**base)


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Who should I send the message to?", "Alice Chen"),
        ("What is the contact name?", "Alice Chen"),
        ("What time should the alarm ring?", "06:30"),  # a slot filled from a sequence value
        ("What's your phone number?", "My phone number is +1 415 555 0199."),
        ("Where do you live?", "I live in Cupertino."),
        ("How much can lunch cost?", "Keep lunch under $15."),
        ("Do you like jazz?", FALLBACK),
    ],
)
def test_oracle_user(question, answer):
    reply = OracleUser().answer(question, ctx())
    assert reply.text == answer and reply.answered_by == "oracle"


def test_oracle_user_without_knowledge_says_proceed():
    assert OracleUser().answer("Which one?", ctx(knowledge=None)).text == FALLBACK


def test_human_user_gets_the_oracle_answer_as_suggestion():
    channel, control = QuestionChannel(), RunControl()
    seen = []

    def person(req, event):
        if event == "opened":
            seen.append((req.kind, req.text, req.suggestion, req.context["task"]))
            channel.answer(req.id, "  ")  # Enter: accept the suggestion

    channel.on_change(person)
    reply = HumanUser(channel, control).answer("Who should I send it to?", ctx())
    assert seen == [("question", "Who should I send it to?", "Alice Chen", "t")]
    assert (reply.text, reply.answered_by, reply.suggested) == ("Alice Chen", "human", "Alice Chen")


def test_human_user_wait_ends_on_cancel():
    channel, control = QuestionChannel(), RunControl()
    user = HumanUser(channel, control)
    threading.Timer(0.2, control.cancel).start()
    with pytest.raises(Cancelled):
        user.answer("Who?", ctx())
    assert channel.pending() == []


def test_llm_user_is_told_the_intent_and_profile_and_answers_briefly(fake_api):
    fake_api.push(text("  Alice Chen,\n from work. "))
    user = LLMUser(load_settings(), model="claude-sonnet-4-6")
    reply = user.answer("Who is the colleague?", ctx(history=[("Which app?", "Messages")]))
    assert reply.text == "Alice Chen, from work." and reply.answered_by == "llm"
    assert reply.usage.input_tokens > 0
    (req,) = fake_api.served
    system = req.system_text()
    assert "Text Alice Chen that I'm late; set the alarm to 06:30." in system  # the L0 intent
    assert "Tell my colleague I'm late." in system
    assert "Sam, who runs in the mornings." in system and "alarm time: 06:30" in system
    assert "1-2 sentences" in system and FALLBACK in system
    msgs = req["messages"]
    assert [m["role"] for m in msgs] == ["user", "assistant", "user"]
    assert msgs[-1]["content"] == "The agent asks: Who is the colleague?"
    fake_api.assert_clean()


def test_llm_user_without_a_key_fails_when_made(monkeypatch, tmp_path):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("GUILENS_CONFIG_FILE", str(tmp_path / "none.toml"))
    from guilens.llm import MissingAPIKey

    with pytest.raises(MissingAPIKey):
        make_user("llm", load_settings())
    with pytest.raises(ValueError, match="unknown user 'robot'"):
        make_user("robot", load_settings())
