"""Schema 3 of the action contract: `guilens schema action` shows the new fields, and episodes
recorded with schema 2 (before scroll, type.clear and the delete key) still read."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from guilens.actions import ACTION_ADAPTER, KeyPress, Scroll, Swipe, Tap, Type, action_from_dict, to_command
from guilens.episode import SCHEMA_VERSION, Episode, EpisodeError, EpisodeReader


def test_guilens_schema_action_shows_the_new_fields() -> None:
    out = subprocess.run([sys.executable, "-m", "guilens", "schema", "action"], capture_output=True, text=True,
                         check=True).stdout
    schema = json.loads(out)
    defs = schema["$defs"]
    assert set(schema["discriminator"]["mapping"]) >= {"scroll", "type", "key"}
    assert defs["Scroll"]["properties"]["direction"]["enum"] == ["up", "down", "left", "right"]
    assert "down shows what is below" in defs["Scroll"]["properties"]["direction"]["description"]
    assert {"x", "y", "element", "target"} <= set(defs["Scroll"]["properties"])
    assert defs["Type"]["properties"]["clear"] == {
        "default": False, "description": "Empty the focused field before typing.", "title": "Clear", "type": "boolean"}
    assert "delete" in defs["KeyPress"]["properties"]["key"]["enum"]
    assert ACTION_ADAPTER.json_schema() == schema


# A schema-2 attempt as guilens wrote it before this version, by hand: every action kind it had.
SCHEMA2_EPISODE = {
    "schema_version": 2, "run_id": "r1", "task": "shop_search", "scenario": "memory", "instruction": "Find shoes",
    "level": "L0", "attempt": 1, "attempts": 1, "agent": "oracle", "device": "sim", "screen_size": [1080, 2400],
    "budget": 10, "status": "success", "finish_status": "success", "steps": 5,
    "timings": {"started_at": "2026-01-05T10:00:00", "ended_at": "2026-01-05T10:00:09", "duration_s": 9.0,
                "agent_s": 0.5, "device_s": 1.0, "user_s": 0.0, "person_s": 0.0},
}
SCHEMA2_ACTIONS = [
    {"type": "open_app", "app": "shop"},
    {"type": "tap", "x": 540, "y": 338, "element": None, "target": "id:search_box"},
    {"type": "type", "text": "running shoes"},
    {"type": "key", "key": "enter"},
    {"type": "swipe", "x1": 540, "y1": 1200, "x2": 540, "y2": 480, "duration_ms": 400},
    {"type": "finish", "status": "success"},
]


def _write_schema2(d: Path) -> None:
    d.mkdir(parents=True)
    (d / "episode.json").write_text(json.dumps(SCHEMA2_EPISODE), encoding="utf-8")
    lines = []
    for i, action in enumerate(SCHEMA2_ACTIONS):
        lines.append(json.dumps({
            "index": i, "started_at": f"2026-01-05T10:00:0{i}", "ended_at": f"2026-01-05T10:00:0{i + 1}",
            "screen": f"screens/{i:04d}.png", "app": "com.guilens.shop", "thought": "", "action": action,
            "action_description": "", "action_result": "", "memory": {"stm": [], "ltm": [], "lessons": []},
            "milestones": [], "usage": {"input_tokens": 0, "output_tokens": 0, "cost_usd": 0.0}, "by": "agent",
            "error": None, "timings": {"agent_s": 0.1, "person_s": 0.0, "user_s": 0.0, "device_s": 0.2},
        }))
    (d / "steps.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_a_schema_2_episode_still_reads(tmp_path: Path) -> None:
    _write_schema2(tmp_path / "attempt-1")
    reader = EpisodeReader(tmp_path / "attempt-1")
    assert reader.episode.schema_version == 2 and reader.episode.status == "success"
    assert len(reader.steps) == len(SCHEMA2_ACTIONS)
    actions = [action_from_dict(s.action) for s in reader.steps]  # type: ignore[arg-type]
    assert actions[2] == Type(text="running shoes") and actions[2].clear is False
    assert actions[3] == KeyPress(key="enter")
    assert isinstance(actions[4], Swipe) and isinstance(actions[1], Tap)
    assert [to_command(a) for a in actions] == [
        "open shop", "tap 540 338", "type running shoes", "enter", "swipe 540 1200 540 480", "finish success"]


def test_schema_3_is_what_guilens_writes_and_its_actions_read(tmp_path: Path) -> None:
    assert SCHEMA_VERSION == 3
    assert Episode.model_validate({"task": "t", "timings": {"started_at": "2026-01-05T10:00:00"}}).schema_version == 3
    d = tmp_path / "attempt-1"
    _write_schema2(d)
    data = json.loads((d / "episode.json").read_text())
    (d / "episode.json").write_text(json.dumps({**data, "schema_version": 3}))
    new = [Type(text="Drip Coffee Maker", clear=True), KeyPress(key="delete"), Scroll(direction="down", element=4)]
    lines = (d / "steps.jsonl").read_text().splitlines()
    rewritten = []
    for i, line in enumerate(lines):
        step = json.loads(line)
        if i < len(new):
            step["action"] = new[i].model_dump(mode="json")
        rewritten.append(json.dumps(step))
    (d / "steps.jsonl").write_text("\n".join(rewritten) + "\n")
    steps = EpisodeReader(d).steps
    assert [action_from_dict(s.action) for s in steps[:3]] == new  # type: ignore[arg-type]
    (d / "episode.json").write_text(json.dumps({**data, "schema_version": 4}))
    with pytest.raises(EpisodeError, match="schema_version 4 is newer than this guilens reads"):
        EpisodeReader(d)
