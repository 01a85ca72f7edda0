"""One judge call: send, read the JSON the prompt asked for, repair once or twice, account.

Models sometimes wrap their JSON in prose or fences, or answer outside the
allowed values ("Failure" from a triage that may only say Success or
Uncertain). The reply is read leniently (the first JSON value in the text) and
checked strictly by the stage's own parser. A reply that does not pass is
answered in the same conversation with what was wrong, so the repaired request
differs from the first (a cached bad reply is not simply served again); after
`retries` repairs the call gives up and the stage records itself undecided.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from guilens.episode import Usage
from guilens.episode_model import Retry
from guilens.llm.errors import clip

T = TypeVar("T")
DEFAULT_RETRIES = 2


class Malformed(ValueError):
    """A reply that is not the JSON the prompt asked for; the message says what is wrong with it."""


class JudgeModel(Protocol):
    """What the stages need of a model client (`guilens.llm.LLMClient` meets it)."""

    model: str

    def create(self, *, system: str, messages: list[dict[str, Any]], max_tokens: int = ...,
               temperature: float | None = ...) -> Any: ...


@dataclass
class Tally:
    """What a stage spent. Thread-safe: step descriptions add to one tally from several threads."""

    usage: Usage = field(default_factory=Usage)
    calls: int = 0
    cached: int = 0
    repairs: list[dict[str, Any]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, resp: Any) -> None:
        with self._lock:
            self.calls += 1
            if getattr(resp, "cached", False):
                self.cached += 1
            else:
                self.usage = self.usage + resp.usage

    def add_failed(self, err: BaseException) -> None:
        """A call that raised: it counts as made, and its failed tries (`LLMError.retries`) are kept."""
        retries = list(getattr(err, "retries", None) or [])
        with self._lock:
            self.calls += 1
            if retries:
                self.usage = self.usage + Usage(retries=retries)

    def note_repair(self, entry: dict[str, Any]) -> None:
        """A reply sent back to the model: in `details.repairs` with the reply, and in `usage.retries`
        (as the agent's repairs are) so every retry and repair of a stage is counted in one place."""
        with self._lock:
            self.repairs.append(entry)
            cause = f"{entry['call']}: {entry['problem']}" if entry.get("call") else str(entry["problem"])
            self.usage = self.usage + Usage(retries=[Retry(kind="repair", cause=clip(cause), role="judge")])


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S | re.I)


def extract_json(text: str) -> Any:
    """The first JSON object or list in a reply (fenced or bare, with or without prose around it)."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    decoder = json.JSONDecoder()
    for cand in candidates:
        s = cand.strip()
        try:
            return json.loads(s)
        except ValueError:
            pass
        for i, ch in enumerate(s):
            if ch in "{[":
                try:
                    value, _ = decoder.raw_decode(s, i)
                except ValueError:
                    continue
                if isinstance(value, dict | list):
                    return value
    raise Malformed("the reply holds no JSON object or list")


def ask_json(
    client: JudgeModel,
    *,
    system: str,
    content: list[dict[str, Any]],
    parse: Callable[[Any], T],
    tally: Tally,
    shape: str,
    max_tokens: int = 1024,
    retries: int = DEFAULT_RETRIES,
    label: str = "",
) -> T | None:
    """Ask and parse; None when the reply is still malformed after `retries` repairs.

    `shape` names the expected JSON in the repair message ("a JSON object with
    'decision' and 'reason'"). `LLMError`s (no key, API down) propagate: the
    stage decides what a failed call means for it.
    """
    messages: list[dict[str, Any]] = [{"role": "user", "content": content}]
    for attempt in range(retries + 1):
        resp = client.create(system=system, messages=messages, max_tokens=max_tokens, temperature=0.0)
        tally.add(resp)
        reply = resp.text or ""
        try:
            return parse(extract_json(reply))
        except Malformed as err:
            problem = str(err)
        except (TypeError, ValueError, KeyError) as err:
            problem = f"unexpected content: {err}"
        tally.note_repair({"call": label, "attempt": attempt + 1, "problem": problem, "reply": reply[:600]})
        messages = [
            *messages,
            {"role": "assistant", "content": reply.strip() or "(no reply)"},
            {"role": "user", "content": f"That reply cannot be used: {problem}. Reply again with only {shape}, "
                                        "and nothing else."},
        ]
    return None


# --- small validators the parsers share ---------------------------------------------------------


def need_dict(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise Malformed(f"expected a JSON object, got a {type(data).__name__}")
    # The paper's IRR prompt spells keys `total.information.units`; accept dots for underscores.
    return {str(k).replace(".", "_").strip(): v for k, v in data.items()}


def need_int(data: dict[str, Any], key: str, allowed: tuple[int, ...] | None = None,
             lo: int | None = None, hi: int | None = None) -> int:
    if key not in data:
        raise Malformed(f"'{key}' is missing")
    v = data[key]
    if isinstance(v, bool):
        raise Malformed(f"'{key}' must be a whole number, not {v!r}")
    if isinstance(v, str) and re.fullmatch(r"\s*-?\d+\s*", v):
        v = int(v)
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if not isinstance(v, int):
        raise Malformed(f"'{key}' must be a whole number, not {v!r}")
    if allowed is not None and v not in allowed:
        raise Malformed(f"'{key}' must be one of {', '.join(map(str, allowed))}, not {v}")
    if lo is not None and v < lo:
        raise Malformed(f"'{key}' must be at least {lo}" + (f" and at most {hi}" if hi is not None else "") + f", not {v}")
    if hi is not None and v > hi:
        raise Malformed(f"'{key}' must be at most {hi}" + (f" and at least {lo}" if lo is not None else "") + f", not {v}")
    return v


def need_str(data: dict[str, Any], key: str, *, required: bool = True) -> str:
    v = data.get(key)
    if v is None:
        if required:
            raise Malformed(f"'{key}' is missing")
        return ""
    if not isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    return v
