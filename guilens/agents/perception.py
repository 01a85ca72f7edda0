"""Chain-of-Memory's perception call: ScreenInfo, and the action result and LTM for text formats.

CoM's Algorithm 1 runs, before each decision, Compare (what did the previous
action do: the new STM entry), ExtractRelevantInfo (ScreenInfo: "the Agent
identifies the current task goal by referencing the given instruction and
short-term memory ... It then provides a detailed description exclusively for
task-relevant information") and Evaluate (is what was read worth keeping: the
LTM entry). The paper's numbers come from an annotator model doing these steps,
and from a fine-tuned model doing them itself (CoM*).

guilens does them as the paper orders them, in one extra call per step to the
agent's own model:
- with `--screen-info`: every step, for any format and memory strategy; the
  description is added to the decision's text ("ScreenInfo as input", which
  the paper's ablation found hurts zero-shot models: an option, off by default);
- with `--memory com` and a text format (UI-TARS, Qwen, Odyssey), whose
  replies have no place for memory: every step, for the action result and the
  LTM entry (and ScreenInfo when asked). The native act tool carries those in
  its own fields (CoM*), so it needs the call only for ScreenInfo.

The call sees the screenshot and the text of the UI tree (small text a
downscaled screenshot blurs is legible there), and answers in JSON as text, so
it works on servers without tool calling.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from guilens.actions import ActionError
from guilens.agents.formats.base import json_object, one_line, unfence

if TYPE_CHECKING:
    from guilens.device.uitree import UINode

MAX_UI_LINES = 150

SYSTEM = """You keep the memory of an agent that operates an Android phone for a user (Chain-of-Memory).
You are given the user's task, the agent's short-term memory (what its last actions did, oldest first),
its previous action, the current screenshot and the text of the screen's UI tree.

Work in this order:
1. Find the current subgoal of the task from the task and the short-term memory.
$steps
Reply with one JSON object and nothing else:
$shape"""

_RESULT = ("{n}. action_result: compare what the previous action was meant to do with this screen, and say in one "
           "sentence what it did, with any task-relevant information now visible. Empty when there was no previous "
           "action.\n")
_INFO = ("{n}. screen_info: describe, in full, only the information on this screen that the task needs (names, "
         "prices, numbers, addresses, results, the state of fields); leave out everything unrelated to the task.\n")
_LTM = ("{n}. keep / memory: decide whether this screen shows information the task will need later, after the "
        "agent has left this screen; if so set keep to true and write it in memory, complete (everything worth "
        "keeping from the current app, not only what is new).\n")


@dataclass
class Perception:
    """What the call said."""

    screen_info: str = ""
    action_result: str = ""
    keep: bool = False
    memory: str = ""


def screen_text(root: UINode | None, limit: int = MAX_UI_LINES) -> str:
    """The UI tree as text lines: each node with a text or a description, in reading order."""
    if root is None:
        return "(no UI tree)"
    lines: list[str] = []
    for node in root.iter():
        label = (node.text or node.content_desc or "").replace("\n", " ").strip()
        if not label:
            continue
        kind = node.cls.rpartition(".")[2] or "View"
        lines.append(f"{kind} \"{label[:120]}\"")
        if len(lines) >= limit:
            lines.append("...")
            break
    return "\n".join(lines) or "(no text on screen)"


def request(*, instruction: str, stm: Sequence[str], previous: str | None, ui_text: str,
            image: dict[str, Any], screen_info: bool, memory: bool) -> tuple[str, list[dict[str, Any]]]:
    """The call's system prompt and messages, asking for ScreenInfo and/or the memory fields."""
    steps, shape = "", {}
    n = 2
    if memory:
        steps += _RESULT.format(n=n)
        shape["action_result"] = "..."
        n += 1
    if screen_info:
        steps += _INFO.format(n=n)
        shape["screen_info"] = "..."
        n += 1
    if memory:
        steps += _LTM.format(n=n)
        shape |= {"keep": "true or false", "memory": "..."}
    system = SYSTEM.replace("$steps", steps).replace("$shape", json.dumps(shape))
    lines = [f"# Task\n{instruction or '(no instruction given)'}", "", "# Short-term memory"]
    lines += [f"{i}. {s}" for i, s in enumerate(stm, 1)] or ["(empty)"]
    lines += ["", "# Previous action", previous or "None: this is the first step.", "", "# UI tree text", ui_text]
    return system, [{"role": "user", "content": [{"type": "text", "text": "\n".join(lines)}, image]}]


def read(text: str, *, screen_info: bool, memory: bool) -> Perception:
    """The reply as a `Perception`; `ActionError` (sent back to the model) when it is not the JSON asked for."""
    body = unfence(text or "")
    try:
        data = json_object(body)
    except json.JSONDecodeError as err:
        raise ActionError(f"the JSON is invalid ({err.msg} at column {err.colno}); reply with the JSON object "
                          "asked for") from None
    if data is None:
        raise ActionError(f"no JSON object in the reply {one_line(body, 80)!r}; reply with the JSON object asked for")
    if screen_info and not isinstance(data.get("screen_info"), str):
        raise ActionError("the reply has no screen_info text")
    keep = data.get("keep")
    return Perception(
        screen_info=str(data.get("screen_info") or "").strip(),
        action_result=str(data.get("action_result") or "").strip() if memory else "",
        keep=bool(memory and (keep is True or str(keep).lower() == "true") and str(data.get("memory") or "").strip()),
        memory=str(data.get("memory") or "").strip() if memory else "",
    )
