"""What the claude agent says to the model: prompts (the `.md` files here), tool schemas, and
the text renderings of the element list and of a failed attempt.

Kept apart from the agent's control flow so a researcher can read and change
what the model is told in one place.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from guilens.actions.tool_schema import ACTION_SCHEMA
from guilens.agents.base import AgentContext, EarlierTask
from guilens.device.uitree import UINode

ACT_TOOL: dict[str, Any] = {
    "name": "act",
    "description": "Report what your previous action did, then perform exactly one action on the phone. "
    "Call it once per turn.",
    "input_schema": {
        "type": "object",
        "properties": {
            "action_result": {
                "type": "string",
                "description": "What your previous action did, judged from this screenshot, with any "
                "task-relevant information now visible. Empty on the first step.",
            },
            "thought": {
                "type": "string",
                "description": "Where you are in the task, what is left, and why this action is next.",
            },
            "action": ACTION_SCHEMA,
            "description": {
                "type": "string",
                "description": "One line: what the action does and to which element.",
            },
            "ltm_update": {
                "type": "object",
                "description": "Optional: facts to keep in long-term memory, read in the current app. "
                "Replaces your latest entry if it is for the same app; otherwise starts a new entry.",
                "properties": {"app": {"type": "string"}, "content": {"type": "string"}},
                "required": ["content"],
            },
        },
        "required": ["action_result", "thought", "action", "description"],
    },
}

LESSONS_TOOL: dict[str, Any] = {
    "name": "record_lessons",
    "description": "Record the lessons for the next attempt.",
    "input_schema": {
        "type": "object",
        "properties": {
            "lessons": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 5},
        },
        "required": ["lessons"],
    },
}


_MEMORY_PARTS: dict[str, dict[str, str]] = {
    "com": {
        "inputs": '- your short-term memory: what your last few actions did, oldest first, in your own words;\n- your long-term memory: facts you chose to keep, each tagged with the app you read it in;\n',
        "result_field": '- `action_result`: what your previous action did, judged by comparing what you expected with this screenshot. Mention information the task needs that is now visible. Leave it empty on the first step. This becomes your newest short-term memory entry; only the last few are kept.\n',
        "ltm_field": '- `ltm_update` (optional): `{"app": ..., "content": ...}` when the screen shows information you will need later (a price, a name, a number, an address, a result). An update replaces your latest entry when it is for the same app as that entry, and starts a new entry when the app differs, so write everything worth keeping from the current app each time. Never drop a fact you still need.\n',
        "advice": '- Remember facts in long-term memory before leaving the screen that shows them: after you leave, you cannot see that screen.\n',
    },
    "actions": {"inputs": "- your earlier actions in this task, oldest first;\n"},
    "action-thought": {"inputs": "- your earlier actions in this task, each with the thought that chose it, oldest first;\n"},
    "multiturn": {"inputs": "- this conversation: your earlier replies, and the screenshots of the last few steps;\n"},
    "none": {},
}
"""What the act prompt (claude_system.md) says of memory, per memory strategy (guilens.agents.memory):
Chain-of-Memory asks the model to write its action results and long-term memory; the others do not."""


_ASK_PARTS = {
    "questions": "- the questions you asked the user and their answers;\n",
    "ask_advice": "- Use `ask_user` only when the task leaves out information that only the user knows (a name, a "
                  "time, a choice). Ask one short, specific question. Do not ask about what you can find on the "
                  "phone.\n",
}
"""What the act prompt says of asking the user; left out with `--ask off` (ScenDroid's Passive mode)."""


def act_system_prompt(memory: str = "com", *, ask: bool = True) -> str:
    """The act tool's system prompt for a memory strategy (`com`: the claude agent's, as it always was);
    `ask=False` says nothing of asking the user."""
    from string import Template

    parts = {"inputs": "", "result_field": "", "ltm_field": "", "advice": "", **_MEMORY_PARTS.get(memory, {}),
             **(_ASK_PARTS if ask else dict.fromkeys(_ASK_PARTS, ""))}
    return Template(load_prompt("claude_system")).substitute(parts)


def act_tool_for(memory: str, tool: dict[str, Any]) -> dict[str, Any]:
    """`tool` (the act tool, Anthropic envelope) for a memory strategy: without `action_result` and
    `ltm_update` unless the strategy is Chain-of-Memory, so an ablation does not ask for memory it drops."""
    if memory == "com":
        return tool
    import copy

    out = copy.deepcopy(tool)
    schema = out["input_schema"]
    for name in ("action_result", "ltm_update"):
        schema["properties"].pop(name, None)
    schema["required"] = [r for r in schema.get("required", []) if r in schema["properties"]]
    return out


def act_tool_without_ask(tool: dict[str, Any]) -> dict[str, Any]:
    """`tool` (the act tool, Anthropic envelope) without `ask_user` in its action (`--ask off`)."""
    import copy

    from guilens.actions.tool_schema import action_schema

    out = copy.deepcopy(tool)
    out["input_schema"]["properties"]["action"] = action_schema(ask=False)
    return out


CONTEXT_HEADER = ("You are working in a multi-task scenario where tasks may be related. Pay attention to "
                  "information from previous tasks, as it may help with the current task.")
"""ScenDroid's context prompt header (4.5), verbatim: it opens the context pack (`--context augmented`)."""


def context_pack(tasks: list[EarlierTask]) -> str:
    """ScenDroid's context pack as prompt text: the header, then each earlier task of the day with its
    outcome, answer and values (the completed task history) and the actions it took (the trajectory)."""
    lines = [CONTEXT_HEADER, "", "# Previous tasks of this scenario, in order"]
    for n, t in enumerate(tasks, 1):
        when = f" (at {t.clock})" if t.clock else ""
        lines += ["", f"## Task {n}{when}: {t.instruction or t.task}", f"Outcome: {t.outcome}."]
        if t.answer:
            lines.append(f"Answer given: {t.answer}")
        if t.values:
            lines.append("Values it produced: " + "; ".join(f"{k} = {v}" for k, v in t.values.items()))
        if t.actions:
            lines.append("Actions taken:")
            lines += [f"{i}. {a}" for i, a in enumerate(t.actions, 1)]
    return "\n".join(lines)


def question_budget(left: int | None, total: int | None) -> str:
    """The clarification budget as the agent is told it each step (`--max-questions`); empty when none."""
    if left is None or total is None:
        return ""
    if left <= 0:
        return f"Questions to the user: your budget of {total} is spent; ask_user will be refused."
    return f"Questions to the user left: {left} of {total}."


def load_prompt(name: str) -> str:
    return (
        resources.files("guilens.agents")
        .joinpath("prompts", f"{name}.md")
        .read_text(encoding="utf-8")
        .strip()
    )


def element_line(number: int, node: UINode, scale: tuple[float, float]) -> str:
    """`[3] Button "Save" (353,784)`: class, label, state flags, centre in screenshot pixels."""
    kind = node.cls.rpartition(".")[2] or "View"
    label = node.label().replace("\n", " ").strip()
    flags = [
        name
        for name, on in (
            ("editable", node.editable),
            ("checked", node.checked),
            ("selected", node.selected),
            ("focused", node.focused),
            ("scrollable", node.scrollable),
        )
        if on
    ]
    cx, cy = node.center
    x, y = max(0, round((cx + 0.5) / scale[0] - 0.5)), max(0, round((cy + 0.5) / scale[1] - 0.5))
    text = f'[{number}] {kind} "{label[:80]}"' if label else f"[{number}] {kind}"
    return f"{text}{' ' + ','.join(flags) if flags else ''} ({x},{y})"


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def attempt_summary(episode: Any, steps: list[Any], context: AgentContext, *, max_steps: int = 80) -> str:
    """The failed attempt as text for the reflection call: outcome, then one line per step.

    Text only (no screenshots): the descriptions and action results already say what
    the agent saw, and the call stays cheap. Long attempts keep their start and end.
    """
    status = _get(episode, "status", "failure")
    lines = [
        f"# Task\n{_get(episode, 'instruction') or context.instruction}",
        "",
        f"# Outcome\nStatus: {status}. Steps taken: {len(steps)} of {_get(episode, 'budget') or context.budget}.",
    ]
    if _get(episode, "finish_status"):
        lines.append(f"The agent claimed: {_get(episode, 'finish_status')}.")
    if _get(episode, "final_answer"):
        lines.append(f"Final answer given: {_get(episode, 'final_answer')}")
    if _get(episode, "error"):
        lines.append(f"Error: {_get(episode, 'error')}")
    hits = _get(episode, "milestones") or []
    total = _get(episode, "milestones_total") or 0
    if total:
        reached = ", ".join(str(_get(m, "text") or _get(m, "id")) for m in hits) or "none"
        lines.append(f"Milestones reached: {len(hits)} of {total} ({reached}).")
    lines += ["", "# Steps"]
    shown = (
        steps
        if len(steps) <= max_steps
        else steps[: max_steps // 4] + [None] + steps[-(max_steps * 3 // 4) :]
    )
    for st in shown:
        if st is None:
            lines.append(f"... {len(steps) - max_steps} steps left out ...")
            continue
        action = _get(st, "action")
        what = (
            _get(st, "action_description")
            or (action.get("type") if isinstance(action, dict) else "")
            or "no action"
        )
        parts = [f"{_get(st, 'index', '?')}. [{_get(st, 'app') or '?'}] {what}"]
        if _get(st, "action_result"):
            parts.append(f"result of the previous action: {_get(st, 'action_result')}")
        ask = _get(st, "ask")
        if ask:
            parts.append(f"asked {_get(ask, 'question')!r}, answer {_get(ask, 'answer')!r}")
        if _get(st, "error"):
            parts.append(f"ERROR: {_get(st, 'error')}")
        if _get(st, "by") == "human":
            parts.append("(done by a person)")
        lines.append(" | ".join(parts))
    memory = _get(steps[-1], "memory") if steps else None
    ltm = _get(memory, "ltm") or []
    if ltm:
        lines += ["", "# Long-term memory at the end"]
        lines += [f"- [{_get(e, 'app')}] {_get(e, 'content')}" for e in ltm]
    if context.lessons:
        lines += ["", "# Lessons the agent already had"] + [f"- {x}" for x in context.lessons]
    return "\n".join(lines)
