"""The judge's pieces: images shown to models, prompt files, lenient JSON reading, stage names."""

from __future__ import annotations

import pytest
from PIL import Image

from guilens.judge.calls import Malformed, extract_json, need_dict, need_int
from guilens.judge.images import action_panel, action_type_detail, composite, draw_action, fit
from guilens.judge.pipeline import JudgeError, expand_stages
from guilens.judge.prompts import PROMPT_NAMES, PromptError, load_prompt, parse_prompt


def blank(size: tuple[int, int] = (1080, 2400), colour: tuple[int, int, int] = (250, 250, 250)) -> Image.Image:
    return Image.new("RGB", size, colour)


def is_red(p: tuple[int, ...]) -> bool:
    return p[0] > 200 and p[1] < 60 and p[2] < 60


def is_green(p: tuple[int, ...]) -> bool:
    return p[1] > 150 and p[0] < 60 and p[2] < 80


def test_a_tap_is_drawn_as_memgui_eval_draws_it() -> None:
    img = draw_action(blank(), {"type": "tap", "x": 540, "y": 1200})
    # Red circle of radius 35 around the point, green square of side 200, "C" box at the top-right corner.
    assert is_red(img.getpixel((540 + 35, 1200))) and is_red(img.getpixel((540, 1200 - 35)))
    assert img.getpixel((540, 1200)) == (250, 250, 250)  # the point itself stays visible
    assert is_green(img.getpixel((540 - 100, 1200))) and is_green(img.getpixel((540, 1200 + 100)))
    assert img.getpixel((640 - 3, 1100 + 3)) == (0, 0, 0)  # the label box
    untouched = draw_action(blank(), {"type": "type", "text": "hi"})
    assert untouched.getcolors() == [(1080 * 2400, (250, 250, 250))]


def test_a_swipe_gets_an_arrow_from_its_start() -> None:
    img = draw_action(blank(), {"type": "swipe", "x1": 540, "y1": 1800, "x2": 540, "y2": 600})
    assert is_red(img.getpixel((540, 1200))) and is_green(img.getpixel((440, 1800)))


def test_the_panel_puts_before_left_and_after_right_within_1568() -> None:
    before, after = blank(colour=(250, 250, 250)), blank(colour=(10, 200, 250))
    panel = action_panel(before, after, {"type": "tap", "x": 100, "y": 100})
    assert max(panel.size) == 1568 and panel.width < panel.height
    left = panel.getpixel((panel.width // 4, panel.height // 2))
    right = panel.getpixel((3 * panel.width // 4, panel.height // 2))
    assert left[2] == 250 and left[0] > 200 and right[0] < 40
    kind, detail = action_type_detail({"type": "tap", "x": 100, "y": 100})
    assert kind == "tap" and "[100, 100]" in detail and "red circle" in detail
    assert action_type_detail({"type": "answer", "text": "42"}) == ("answer", 'The answer is "42".')


def test_composites_are_side_by_side_and_fit() -> None:
    c = composite([("Step 1", blank()), ("Step 2", blank()), ("Final", blank())])
    assert max(c.size) == 1568 and c.width > c.height
    small = composite([("Step 0", blank((300, 600)))])
    assert small.size[0] == 300 and small.size[1] > 600  # the label band on top, no upscaling
    assert fit(blank((100, 50))).size == (100, 50) and fit(blank((3000, 1000))).size == (1568, 523)
    with pytest.raises(ValueError):
        composite([])


def test_prompt_files_parse_and_carry_the_papers_wording() -> None:
    for name in PROMPT_NAMES:
        p = load_prompt(name)
        assert p.version >= 1 and p.source and p.ref == f"{name}@{p.version}" and len(p.sha) == 64
    triage = load_prompt("triage")
    assert "You cannot decide \"Failure\" at this stage" in triage.system(total_screens=4)
    assert "last 3 screenshots out of a total of 4 screenshots" in triage.system(total_screens=4)
    assert "Trust Correct Actions" in load_prompt("semantic").system()
    assert "required_steps" in load_prompt("semantic").user(task="t", steps="s", last_step=3, shown="x")
    assert "Noun/entity mismatch" in load_prompt("milestone").system()
    assert "IRR = 7/9 = 77.8%" in load_prompt("irr").system()
    with pytest.raises(PromptError, match="no value for placeholder"):
        triage.user(task="t")


def test_bad_prompt_files_are_named() -> None:
    with pytest.raises(PromptError, match="front matter"):
        parse_prompt("## system\nx\n## user\ny", "p.md")
    with pytest.raises(PromptError, match="no '## user' section"):
        parse_prompt("---\nname: a\nversion: 1\n---\n## system\nx\n", "p.md")
    with pytest.raises(PromptError, match="version 'x'"):
        parse_prompt("---\nname: a\nversion: x\n---\n## system\nx\n## user\ny\n", "p.md")


def test_json_is_read_from_fences_prose_and_bare_text() -> None:
    assert extract_json('{"a": 1}') == {"a": 1}
    assert extract_json('Sure!\n```json\n{"decision": 1}\n```\nDone.') == {"decision": 1}
    assert extract_json('The result: [{"idx": 0, "state": 1, "last_idx": 3}] as asked') == [
        {"idx": 0, "state": 1, "last_idx": 3}]
    assert extract_json('Reason {not json} then {"decision": 0}') == {"decision": 0}
    with pytest.raises(Malformed):
        extract_json("it worked")
    assert need_dict({"total.information.units": 3}) == {"total_information_units": 3}
    assert need_int({"d": "-1"}, "d", allowed=(1, 0, -1)) == -1
    with pytest.raises(Malformed, match="must be one of"):
        need_int({"d": 2}, "d", allowed=(1, 0, -1))
    with pytest.raises(Malformed, match="whole number"):
        need_int({"d": True}, "d")


def test_stage_names_expand_and_errors_name_the_stage() -> None:
    assert expand_stages(["scrutiny"]) == ["triage", "describe", "semantic", "visual"]
    assert expand_stages(["irr,rules", "semantic"]) == ["rules", "semantic", "irr"]
    with pytest.raises(JudgeError, match="'vibes'"):
        expand_stages(["vibes"])
