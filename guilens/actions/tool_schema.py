"""The action union as a tool argument: one flat JSON object for models with tool calling.

Models fill one object with a `type` and its fields far more reliably than they
pick a branch of a `oneOf` (which is what `ACTION_ADAPTER.json_schema()` is), so
a tool's `action` argument is this flat schema, built from the union's own
constants (types, keys, directions) so it offers exactly what the devices
perform. The claude agent's act tool and the native format's share it; it lives
here, importing nothing from the agents, so either can use it without a cycle.
"""

from __future__ import annotations

import copy
from typing import Any

from guilens.actions.model import ACTION_TYPES, DIRECTIONS, KEYS

ACTION_HELP = (
    "One action, as a JSON object with `type` and its fields. Coordinates are pixels of the screenshot you "
    "are shown (origin top left), not of any other size.\n"
    '- tap: {"type": "tap", "x": 350, "y": 780} or {"type": "tap", "element": 12} (number from the element list)\n'
    '- long_press: like tap, plus optional "duration_ms" (default 800)\n'
    '- swipe: {"type": "swipe", "x1": 350, "y1": 1100, "x2": 350, "y2": 500} moves a finger from (x1,y1) to '
    "(x2,y2). Optional duration_ms (default 300)\n"
    '- scroll: {"type": "scroll", "direction": "down"} shows what is below (the finger moves up); up, left and '
    'right likewise. With "element": 12 (or x and y) it scrolls the list under that element instead of the '
    "screen's main list\n"
    '- type: {"type": "type", "text": "hello"} types into the focused field; add "clear": true to replace what '
    "the field holds instead of adding to it\n"
    '- key: {"type": "key", "key": "back"} (back, home, enter, delete, menu, recent); delete removes the '
    "character before the cursor\n"
    '- open_app: {"type": "open_app", "app": "Notes"}\n'
    '- wait: {"type": "wait", "seconds": 2}\n'
    '- ask_user: {"type": "ask_user", "question": "Which time should the alarm ring?"}\n'
    '- answer: {"type": "answer", "text": "42.50"} gives the final answer; ends the task\n'
    '- finish: {"type": "finish", "status": "success"} (or "failure"); ends the task'
)

ACTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": ACTION_HELP,
    "properties": {
        "type": {"type": "string", "enum": list(ACTION_TYPES)},
        "x": {"type": "integer"},
        "y": {"type": "integer"},
        "element": {"type": "integer", "description": "Number in the element list."},
        "x1": {"type": "integer"},
        "y1": {"type": "integer"},
        "x2": {"type": "integer"},
        "y2": {"type": "integer"},
        "duration_ms": {"type": "integer"},
        "direction": {"type": "string", "enum": list(DIRECTIONS),
                      "description": "Scroll: where the content comes into view from; down shows what is below."},
        "text": {"type": "string"},
        "clear": {"type": "boolean", "description": "Type: empty the field first."},
        "key": {"type": "string", "enum": list(KEYS)},
        "app": {"type": "string"},
        "seconds": {"type": "number"},
        "question": {"type": "string"},
        "status": {"type": "string", "enum": ["success", "failure"]},
    },
    "required": ["type"],
}
"""The `action` argument of an act tool: every action of `guilens.actions`, in one flat object."""


def action_schema(*, ask: bool = True) -> dict[str, Any]:
    """The `action` argument (a copy); `ask=False` leaves `ask_user` out of the types, the fields and
    the help (ScenDroid's Passive mode, `--ask off`), so the model is not offered what it may not do."""
    schema = copy.deepcopy(ACTION_SCHEMA)
    if ask:
        return schema
    schema["properties"]["type"]["enum"] = [t for t in ACTION_TYPES if t != "ask_user"]
    schema["properties"].pop("question", None)
    schema["description"] = "\n".join(ln for ln in ACTION_HELP.splitlines() if not ln.startswith("- ask_user"))
    return schema
