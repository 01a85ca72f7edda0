"""A recorded scroll is drawn as the finger's stroke that performs it: in the phone view's pixels,
in the text view, and in the judge's marked screens (scroll is not a point, so it used to leave no mark)."""

from __future__ import annotations

import numpy as np
from PIL import Image

from guilens.actions import scroll_gesture, stroke_of
from guilens.judge.images import action_type_detail
from guilens.judge.images import draw_action as judge_draw
from guilens.screens.widgets.halfcell import OverlayColors
from guilens.screens.widgets.halfcell import draw_action as view_draw
from guilens.screens.widgets.textlayout import layout_screen

SIZE = (1080, 2400)
UI = ('<?xml version="1.0"?><hierarchy rotation="0"><node index="0" text="" class="android.widget.FrameLayout" '
      'bounds="[0,0][1080,2400]" clickable="false"/></hierarchy>')


def test_stroke_of_a_scroll_is_its_gesture() -> None:
    down = stroke_of({"type": "scroll", "direction": "down"}, SIZE)
    assert down == scroll_gesture("down", SIZE).model_dump()
    assert down["y2"] < down["y1"]  # the content moves up into view: the finger goes up
    at = stroke_of({"type": "scroll", "direction": "right", "x": 500, "y": 700}, SIZE)
    assert (at["x1"], at["y1"]) == (500, 700) and at["x2"] < at["x1"]
    tap = {"type": "tap", "x": 1, "y": 2}
    assert stroke_of(tap, SIZE) is tap
    assert stroke_of({"type": "scroll", "direction": "sideways"}, SIZE)["type"] == "scroll"


def test_views_and_judge_mark_a_scroll() -> None:
    white = Image.new("RGB", (108, 240), "white")
    marked = view_draw(white, {"type": "scroll", "direction": "up"}, (0.1, 0.1), OverlayColors())
    assert (np.asarray(marked) != 255).any()
    big = judge_draw(Image.new("RGB", SIZE, "white"), {"type": "scroll", "direction": "up", "x": 540, "y": 900})
    assert (np.asarray(big) != 255).any()
    kind, detail = action_type_detail({"type": "scroll", "direction": "up", "x": 540, "y": 900})
    assert kind == "scroll" and "above" in detail and "[540, 900]" in detail
    text = layout_screen(UI, SIZE, 40, 40, action={"type": "scroll", "direction": "down"})
    glyphs = "".join(s.text for row in text.lines for s in row)
    assert "↑" in glyphs  # the finger's way, as for a swipe


def test_export_writes_scroll_clear_and_delete_as_reference_steps() -> None:
    """A person's scroll, cleared retype and delete key export as steps the scenario reader accepts."""
    from datetime import UTC, datetime

    from pydantic import TypeAdapter

    from guilens.episode import Step
    from guilens.export.path import action_step
    from guilens.scenarios.spec_reference import RefStep, _bare_in

    t = datetime(2026, 1, 1, tzinfo=UTC)

    def step(action: dict) -> Step:
        return Step(index=0, started_at=t, ended_at=t, action=action)

    scroll = action_step(step({"type": "scroll", "direction": "down"}), None, SIZE)
    assert isinstance(scroll, dict) and "swipe" in scroll and "up" in str(scroll["swipe"])  # the finger's way
    retype = action_step(step({"type": "type", "text": "Drip", "clear": True}), None, SIZE)
    assert retype == {"type": "Drip", "clear": True}
    assert action_step(step({"type": "key", "key": "delete"}), None, SIZE) == "delete"
    reader = TypeAdapter(RefStep)
    for data in (scroll, retype, "delete", {"key": "delete"}, {"type": "", "clear": True}):
        reader.validate_python(_bare_in(data))
