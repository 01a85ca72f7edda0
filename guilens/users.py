"""Who answers an agent's `ask_user`: the oracle, an LLM, or the person at the keyboard.

All three follow ScenDroid's simulator semantics: the user holds the precise
(L0) intent and a profile as hidden knowledge and answers only what was asked,
briefly. The oracle does it by slot and keyword matching, deterministically,
for demos and tests; the llm user is told the intent and profile; the human is
asked through the run's question channel, with the oracle's answer offered as
the suggestion. Every exchange is recorded with who answered it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from guilens.episode import Usage
from guilens.episode_model import LLMCall

if TYPE_CHECKING:
    from guilens.config import Settings
    from guilens.control import QuestionChannel, RunControl

USER_KINDS = ("oracle", "llm", "human")
FALLBACK = "Please proceed as you think best."
"""What every simulated user says to a question the intent does not answer."""

_STOP = frozenset(
    ["a", "an", "and", "are", "as", "at", "be", "by", "can", "could", "did", "do", "does", "for", "from", "have", "how", "i", "if", "in", "is", "it", "its", "me", "my", "of", "on", "or", "please", "should", "so", "that", "the", "this", "to", "was", "what", "when", "where", "which", "who", "whom", "why", "will", "with", "would", "you", "your", "want", "like", "tell", "know", "need"]
)


@dataclass
class UserContext:
    """What a simulated user knows about the task at hand; never shown to the agent."""

    task_id: str
    intent: str
    """The L0 instruction, filled: the oracle intent."""
    instruction: str
    """What the agent was told (at the run's level)."""
    level: str = "L0"
    knowledge: Any = None
    """`guilens.scenarios.model.UserKnowledge` (slots, profile, preferences, facts)."""
    values: dict[str, str] = field(default_factory=dict)
    """Values flowing from earlier tasks of a sequence (fill `{templates}` in slots)."""
    history: list[tuple[str, str]] = field(default_factory=list)
    """Earlier questions and answers of this attempt."""
    step: int = 0


@dataclass
class UserReply:
    text: str
    answered_by: str
    suggested: str | None = None
    usage: Usage = field(default_factory=Usage)
    llm_calls: list[LLMCall] = field(default_factory=list)
    """The llm user's model calls, as sent and received; the runner keeps them on the step's `ask`."""


class SimUser(Protocol):
    name: str

    def answer(self, question: str, ctx: UserContext) -> UserReply: ...


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.casefold()) if len(w) > 2 and w not in _STOP}


def _fill(text: str, values: dict[str, str]) -> str:
    if not values or "{" not in text:
        return text
    return re.sub(r"\{([a-z_][a-z0-9_]*)\}", lambda m: str(values.get(m[1], m[0])), text)


class OracleUser:
    """Answers from the task's user knowledge: the slot a question asks for, else a matching
    fact or preference, else the fallback. Deterministic and brief: a slot answer is its value."""

    name = "oracle"

    def answer(self, question: str, ctx: UserContext) -> UserReply:
        return UserReply(text=self.reply_text(question, ctx), answered_by=self.name)

    def reply_text(self, question: str, ctx: UserContext) -> str:
        kn = ctx.knowledge
        if kn is None:
            return FALLBACK
        value = kn.answer(question)
        if value is not None:
            return _fill(str(value), ctx.values)
        asked = _words(question)
        best, best_score = None, 0
        for line in [*kn.facts, *kn.preferences]:
            score = len(asked & _words(line))
            if score > best_score:
                best, best_score = line, score
        if best is not None:
            return _fill(best, ctx.values)
        return FALLBACK


SIMULATOR_PROMPT = """You are simulating a human user who is giving instructions to an AI agent on a phone.
The AI agent is trying to complete a task based on an unclear instruction, but you know the original clear instruction.
When the agent asks you a question for clarification, you should:
1. Answer ONLY what was asked - be concise and direct.
2. Base your answer on the original clear instruction and on what you know about yourself below.
3. Do not volunteer extra information unless asked.
4. Answer as a natural human would - friendly but brief.
5. If the question asks for multiple pieces of information, provide all of them.
6. If the question is irrelevant, or the instruction and your knowledge do not answer it, say exactly: "{fallback}"
Keep your response SHORT (1-2 sentences maximum).
Example: Agent asks: "What is the contact's name?" -> You answer: "John Doe". Agent asks: "What is the contact's name and phone number?" -> "The name is John Doe and the phone number is +1234567890."
"""


class LLMUser:
    """ScenDroid's user simulator on any provider (`--user-model openai:MODEL` or `anthropic:MODEL`):
    told the L0 intent and the profile.

    The client is made here so a missing API key or a bad model spec fails before the run starts.
    """

    name = "llm"

    def __init__(self, settings: Settings, *, model: str | None = None, client: Any = None,
                 base_url: str | None = None) -> None:
        if client is None:
            from guilens.llm import make_client

            client = make_client(model or settings.user_model or settings.model, role="user", settings=settings,
                                 base_url=base_url or settings.user_base_url,
                                 option="--user-model" if (model or settings.user_model) else "the model setting",
                                 base_url_option="--user-base-url")
        self.client = client

    def system_prompt(self, ctx: UserContext) -> str:
        kn = ctx.knowledge
        parts = [SIMULATOR_PROMPT.format(fallback=FALLBACK), f"The original clear instruction: {ctx.intent}"]
        if ctx.instruction != ctx.intent:
            parts.append(f"The unclear instruction the agent was given: {ctx.instruction}")
        if kn is not None:
            if kn.profile:
                parts.append(f"About you: {_fill(kn.profile, ctx.values)}")
            if kn.slots:
                slots = "; ".join(f"{k.replace('_', ' ')}: {_fill(s.value, ctx.values)}" for k, s in kn.slots.items())
                parts.append(f"Details you have in mind: {slots}")
            if kn.preferences:
                parts.append("Your preferences: " + "; ".join(kn.preferences))
            if kn.facts:
                parts.append("Other things you know: " + "; ".join(_fill(f, ctx.values) for f in kn.facts))
        return "\n\n".join(parts)

    def answer(self, question: str, ctx: UserContext) -> UserReply:
        messages: list[dict[str, Any]] = []
        for q, a in ctx.history:
            messages += [{"role": "user", "content": f"The agent asks: {q}"}, {"role": "assistant", "content": a}]
        messages.append({"role": "user", "content": f"The agent asks: {question}"})
        resp = self.client.create(system=self.system_prompt(ctx), messages=messages, max_tokens=200)
        text = " ".join(resp.text.split()) or FALLBACK
        call = getattr(resp, "call", None)
        return UserReply(text=text, answered_by=self.name, usage=resp.usage, llm_calls=[call] if call else [])


class HumanUser:
    """The person answers through the question channel; the oracle's answer is the suggestion.

    An empty answer accepts the suggestion, so a person can confirm with Enter.
    """

    name = "human"

    def __init__(
        self,
        channel: QuestionChannel,
        control: RunControl | None = None,
        *,
        suggester: SimUser | None = None,
        timeout: float | None = None,
    ) -> None:
        self.channel = channel
        self.control = control
        self.suggester = suggester if suggester is not None else OracleUser()
        self.timeout = timeout

    def answer(self, question: str, ctx: UserContext) -> UserReply:
        hint = self.suggester.answer(question, ctx)
        text = self.channel.ask(
            "question",
            question,
            suggestion=hint.text,
            context={"task": ctx.task_id, "step": ctx.step, "instruction": ctx.instruction, "intent": ctx.intent},
            control=self.control,
            timeout=self.timeout,
        ).strip()
        return UserReply(text=text or hint.text, answered_by=self.name, suggested=hint.text, usage=hint.usage)


def make_user(
    kind: str,
    settings: Settings,
    *,
    channel: QuestionChannel | None = None,
    control: RunControl | None = None,
    model: str | None = None,
) -> SimUser:
    """The user for `--user KIND`; the llm user raises `MissingAPIKey` here, before the run."""
    if kind == "oracle":
        return OracleUser()
    if kind == "llm":
        return LLMUser(settings, model=model)
    if kind == "human":
        if channel is None:
            raise ValueError("the human user needs a question channel")
        return HumanUser(channel, control)
    raise ValueError(f"unknown user {kind!r}: choose {', '.join(USER_KINDS)}")
