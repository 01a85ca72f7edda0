"""The action union every agent, device, recorder and screen speaks.

- `model`: the pydantic actions (device pixels, or an element for the runner to
  resolve), their JSON form (`action_from_dict`), the checks they pass, and
  `scale_action` from a screenshot's pixels to the device's;
- `parsers`: the papers' formats (GUI Odyssey / Chain-of-Memory strings, UI-TARS
  calls, Qwen's `mobile_use` JSON), read by `parse_action`;
- `command`: the short form a person types and guilens prints (`tap #3`,
  `type --clear "text"`, `scroll down`);
- `gesture`: the swipe that performs a `Scroll` on a touch screen;
- `tool_schema`: the union as one flat JSON object, for tool-calling models.

Every name is importable from `guilens.actions` itself.
"""

from guilens.actions.command import COMMAND_HELP, parse_command, to_command
from guilens.actions.gesture import content_direction, scroll_distance, scroll_gesture, stroke_of
from guilens.actions.model import (
    ACTION_ADAPTER,
    ACTION_TYPES,
    DIRECTIONS,
    KEYS,
    LOCATED,
    OPPOSITE,
    TERMINAL_TYPES,
    Action,
    ActionError,
    Answer,
    AskUser,
    Direction,
    Finish,
    Key,
    KeyPress,
    LongPress,
    OpenApp,
    Scroll,
    Swipe,
    Tap,
    Type,
    Wait,
    action_from_dict,
    check_on_screen,
    scale_action,
)
from guilens.actions.parsers import (
    FORMAT_SPACE,
    CoordinateSpace,
    parse_action,
    parse_com,
    parse_mobile_use,
    parse_uitars,
)
from guilens.actions.tool_schema import ACTION_HELP, ACTION_SCHEMA

__all__ = [
    "ACTION_ADAPTER", "ACTION_HELP", "ACTION_SCHEMA", "ACTION_TYPES", "COMMAND_HELP", "DIRECTIONS", "FORMAT_SPACE", "KEYS", "LOCATED", "OPPOSITE",
    "TERMINAL_TYPES", "Action", "ActionError", "Answer", "AskUser", "CoordinateSpace", "Direction", "Finish", "Key",
    "KeyPress", "LongPress", "OpenApp", "Scroll", "Swipe", "Tap", "Type", "Wait", "action_from_dict",
    "check_on_screen", "content_direction", "parse_action", "parse_com", "parse_command", "parse_mobile_use",
    "parse_uitars", "scale_action", "scroll_distance", "scroll_gesture", "stroke_of", "to_command",
]
