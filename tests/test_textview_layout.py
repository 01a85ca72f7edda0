"""The text view's layout, without Textual: real sim screens and a real-Android-style Settings dump.

Every visible label must be on the grid (whole, or cut with "…" after at least
12 characters), carry the number the agent's element list gives it, and show
its marks; the last action's target is highlighted; a viewport crops and
enlarges; labels never overlap. The coverage test plays the built-in
scenarios' reference solutions on the sim and measures, over every screen
they pass through, how many labels a terminal capture of the view holds.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from guilens.actions import parse_command
from guilens.device.sim import SimDevice
from guilens.device.uitree import UINode, UITreeError, actionable_elements, find_nodes, parse_ui_xml
from guilens.screens.widgets.textlabels import MIN_CUT, Mark, count_shown, visible_labels
from guilens.screens.widgets.textlayout import TextLayout, layout_screen

FIXTURES = Path(__file__).parent / "fixtures" / "ui"
ANDROID = (FIXTURES / "android_settings.xml").read_text(encoding="utf-8")
APPS = ("shop", "search", "calculator", "notes", "messages", "contacts", "calendar", "clock", "expense", "maps",
        "settings")
BOX = (48, 55)


def sim_screen(*commands: str) -> tuple[str, tuple[int, int], UINode]:
    dev = SimDevice()
    for c in commands:
        dev.act(parse_command(c, dev.size))
    obs = dev.observe()
    assert obs.ui_xml and obs.ui is not None
    return obs.ui_xml, obs.size, obs.ui


def placed_text(layout: TextLayout, text: str) -> tuple[int, Any]:
    """The label index and placement of the (first) label reading `text`."""
    for i, lab in enumerate(layout.labels):
        if lab.text == text:
            assert i in layout.placed, f"{text!r} found no room"
            return i, layout.placed[i]
    raise AssertionError(f"no label {text!r}; labels: {[lab.text for lab in layout.labels]}")


def assert_sound(layout: TextLayout) -> None:
    """Spans stay in the box, never overlap, and two labels keep a blank cell between them."""
    for row, spans in enumerate(layout.lines):
        spans = sorted(spans, key=lambda s: s.col)
        for a, b in zip(spans, spans[1:], strict=False):
            gap = 0 if a.item == b.item and a.item >= 0 else 1
            assert a.col + a.width + gap <= b.col, f"row {row}: {a} runs into {b}"
        for s in spans:
            assert s.col >= 0 and s.col + s.width <= layout.cols, f"row {row}: {s} leaves the box"


# -- the sim -----------------------------------------------------------------------------------


def test_shop_every_label_is_readable_and_numbered_like_the_agents_list() -> None:
    _, size, root = sim_screen("open shop")
    layout = layout_screen(root, size, *BOX)
    assert_sound(layout)
    labels = visible_labels(root, (0, 0, *size))
    assert "Electronics" in labels and "Cart" in labels and "$159.95" in labels
    text = "\n".join(layout.text())
    assert count_shown(labels, text) == len(labels)
    elements = actionable_elements(root)
    numbered = [lab for lab in layout.labels if lab.number]
    assert len(numbered) >= 12
    for lab in numbered:
        assert elements[int(lab.number)] is (lab.owner or lab.node)
    # a product name inside a tappable card carries the card's number; the price does not repeat it
    _, name = placed_text(layout, "ASICS Gel-Nimbus 25 Men's Running Shoes")
    card = next(lab for lab in layout.labels if lab.text.startswith("ASICS Gel-Nimbus"))
    assert card.owner is not None and card.owner.short_id == "pick" and card.number == str(elements.index(card.owner))
    price = next(lab for lab in layout.labels if lab.text == "$159.95")
    assert price.owner is card.owner and price.number == ""
    assert name.readable and name.lines[0].startswith("ASICS Gel-Nimbus")


def test_marks_checkbox_field_focus_and_cursor() -> None:
    xml, size, root = sim_screen("open shop")
    layout = layout_screen(xml, size, *BOX)
    shoes = find_nodes(root, "Shoes")[0]
    n = actionable_elements(root).index(shoes)
    text = "\n".join(layout.text())
    assert f"{n}☐Shoes" in text
    search = next(lab for lab in layout.labels if lab.text == "Search products")
    assert search.glyph == "✎" and search.flags & Mark.EDITABLE and not search.flags & Mark.FOCUSED

    # a switch, off then on
    _, _, settings = sim_screen("open settings")
    dark = find_nodes(settings, "id:dark_mode_switch")[0]
    k = actionable_elements(settings).index(dark)
    assert f"{k}☐OFF" in "\n".join(layout_screen(settings, size, *BOX).text())
    xml2, _, _ = sim_screen("open settings", f"tap {dark.center[0]} {dark.center[1]}")
    assert f"{k}☑ON" in "\n".join(layout_screen(xml2, size, *BOX).text())

    box = find_nodes(root, "id:search_box")[0]
    xml3, _, _ = sim_screen("open shop", f"tap {box.center[0]} {box.center[1]}")
    focused = layout_screen(xml3, size, *BOX)
    field = next(lab for lab in focused.labels if lab.node.short_id == "search_box")
    assert field.flags & Mark.FOCUSED and field.flags & Mark.EDITABLE
    assert field.cursor == "▏" and "✎" + field.text + "▏" in "\n".join(focused.text())


def test_the_last_tap_highlights_its_element_and_a_bare_point_gets_a_mark() -> None:
    xml, size, root = sim_screen("open shop")
    el = find_nodes(root, "Electronics")[0]
    layout = layout_screen(xml, size, *BOX, action={"type": "tap", "x": el.center[0] + 20, "y": el.center[1]})
    i, _ = placed_text(layout, "Electronics")
    assert layout.labels[i].flags & Mark.TARGET
    spans = [s for row in layout.lines for s in row if s.item == i]
    assert {s.text for s in spans} == {layout.labels[i].number, "☐", "Electronics"}
    assert all(s.flags & Mark.TARGET for s in spans)
    others = [lab for j, lab in enumerate(layout.labels) if j != i and lab.flags & Mark.TARGET]
    assert others == []
    assert not any("◉" in line for line in layout.text())

    # a card: every label inside the tapped element lights up
    card = find_nodes(root, "$164.95")[0].parent
    assert card is not None
    cx, cy = card.center
    lit = {lab.text for lab in layout_screen(xml, size, *BOX, action={"type": "long_press", "x": cx, "y": cy}).labels
           if lab.flags & Mark.TARGET}
    assert lit == {"ASICS Gel-Kayano 30 Men's Running Shoes", "$164.95"}

    # a tap where nothing is drawn: a mark at the tapped cell
    def drawn(x: int, y: int) -> bool:
        return any((n.text or n.content_desc or n.clickable) and n.bounds[0] <= x < n.bounds[2]
                   and n.bounds[1] <= y < n.bounds[3] for n in root.iter())

    x, y = 540, next(y for y in range(900, 2000, 20) if not drawn(540, y))  # between the rows of the shop
    bare = layout_screen(xml, size, *BOX, action={"type": "tap", "x": x, "y": y})
    col, row = int(x * BOX[0] / size[0]), int(y * BOX[1] / size[1])
    assert bare.lines[row] and any(s.text == "◉" and s.col == col and s.flags & Mark.POINT for s in bare.lines[row])


def test_an_element_action_highlights_by_bounds_and_a_swipe_is_drawn() -> None:
    xml, size, root = sim_screen("open settings")
    row = find_nodes(root, "id:bluetooth")[0]
    layout = layout_screen(xml, size, *BOX, action={"type": "element", "bounds": list(row.bounds)})
    lit = {lab.text for lab in layout.labels if lab.flags & Mark.TARGET}
    assert lit == {"Bluetooth", "Off", "OFF"}
    swipe = layout_screen(xml, size, *BOX, action={"type": "swipe", "x1": 540, "y1": 2200, "x2": 540, "y2": 1000})
    marks = [s.text for row in swipe.lines for s in row if s.flags & Mark.POINT]
    assert "↑" in marks or "◉" in marks


def test_a_viewport_crops_and_enlarges() -> None:
    xml, size, root = sim_screen("open shop")
    vp = (0, 428, 540, 900)  # the categories, left half
    layout = layout_screen(xml, size, *BOX, viewport=vp)
    assert layout.viewport == vp
    texts = {lab.text for lab in layout.labels}
    assert {"Shoes", "Electronics", "Clothing", "Bags", "Categories"} <= texts
    assert "Cart" not in texts and "$159.95" not in texts and "Home" not in texts
    assert_sound(layout)
    shoes = find_nodes(root, "Shoes")[0]
    _, placed = placed_text(layout, "Shoes")
    assert placed.col == int((shoes.bounds[0] - vp[0]) * BOX[0] / (vp[2] - vp[0]))
    top = int((shoes.bounds[1] - vp[1]) * BOX[1] / (vp[3] - vp[1]))
    bottom = int((shoes.bounds[3] - vp[1]) * BOX[1] / (vp[3] - vp[1]))
    assert top <= placed.row <= bottom
    # a click maps back to the viewport's pixels, and a drawn label to its element's centre
    assert layout.device_at(0, 0) == (int(0.5 * 540 / BOX[0]), int(428 + 0.5 * 472 / BOX[1]))
    assert layout.tap_at(placed.col + 3, placed.row) == shoes.center
    with pytest.raises(ValueError, match="no area"):
        layout_screen(xml, size, *BOX, viewport=(2000, 0, 2100, 100))


def test_collisions_move_labels_within_their_element_and_cut_only_when_they_must() -> None:
    def tv(text: str, b: tuple[int, int, int, int], **attrs: str) -> str:
        extra = " ".join(f'{k}="{v}"' for k, v in attrs.items())
        return (f'<node text="{text}" class="android.widget.TextView" package="p" content-desc="" '
                f'bounds="[{b[0]},{b[1]}][{b[2]},{b[3]}]" {extra} />')

    long = "An unusually long headline that cannot fit on one row of the pane"
    xml = ("<hierarchy>" + "".join([
        tv("Title one", (0, 100, 1080, 300)),
        tv("Title two", (0, 100, 1080, 300)),  # same bounds: must move to another own row
        tv("Left", (0, 600, 540, 650)),
        tv("Right side", (100, 600, 540, 650)),  # overlaps Left on its only row: shifts right
        tv(long, (0, 1000, 1080, 1050)),
        tv("Neighbour", (540, 1000, 1080, 1050)),
    ]) + "</hierarchy>")
    layout = layout_screen(xml, (1080, 2400), 30, 40)
    assert_sound(layout)
    (_, one), (_, two) = placed_text(layout, "Title one"), placed_text(layout, "Title two")
    assert one.whole and two.whole and one.row != two.row
    assert {one.row, two.row} <= set(range(int(100 * 40 / 2400), int(300 * 40 / 2400) + 1))
    (_, left), (_, right) = placed_text(layout, "Left"), placed_text(layout, "Right side")
    assert left.whole and right.whole
    _, head = placed_text(layout, long)
    assert not head.whole and head.readable and head.lines[0].endswith("…")
    assert len(head.lines[0]) - 1 >= MIN_CUT
    assert count_shown([long, "Neighbour"], "\n".join(layout.text())) == 2


def test_a_narrow_box_still_shows_long_labels_cut_at_twelve() -> None:
    xml, size, root = sim_screen("open shop")
    layout = layout_screen(xml, size, 26, 55)
    assert_sound(layout)
    for i, lab in enumerate(layout.labels):
        if lab.counts and len(lab.text) > MIN_CUT and i in layout.placed and not layout.placed[i].whole:
            assert len(layout.placed[i].lines[0].removesuffix("…")) >= MIN_CUT, lab.text
    assert count_shown(visible_labels(root, (0, 0, *size)), "\n".join(layout.text())) >= 0.9 * len(
        visible_labels(root, (0, 0, *size)))


# -- a real phone's dump -------------------------------------------------------------------------


def test_android_settings_dump() -> None:
    root = parse_ui_xml(ANDROID)
    layout = layout_screen(root, (1080, 2400), *BOX, action={"type": "tap", "x": 540, "y": 1417})
    assert_sound(layout)
    text = "\n".join(layout.text())
    labels = visible_labels(root, (0, 0, 1080, 2400))
    assert count_shown(labels, text) == len(labels)
    # content-desc only: an icon's name, drawn as such; a container repeating its children is not drawn
    nav = next(lab for lab in layout.labels if lab.text == "Navigate up")
    assert nav.flags & Mark.DESC and nav.number == "0"
    assert "Internet, AndroidWifi" not in labels and "Internet" in labels and "AndroidWifi" in labels
    # nodes with no text at all (frames, icons without a description) draw nothing
    assert all(lab.text or lab.flags & Mark.SYNTHETIC for lab in layout.labels)
    # title and summary sit in the row's clickable container: one number, on the title
    elements = actionable_elements(root)
    title = next(lab for lab in layout.labels if lab.text == "Internet")
    summary = next(lab for lab in layout.labels if lab.text == "AndroidWifi")
    assert title.owner is not None and title.owner is summary.owner
    assert title.number == str(elements.index(title.owner)) and summary.number == ""
    # the Switch (no text, checked) is its own element: a ticked box with its number
    switch = next(n for n in root.iter() if n.cls == "android.widget.Switch")
    sw = next(lab for lab in layout.labels if lab.node is switch)
    assert sw.glyph == "☑" and sw.number == str(elements.index(switch)) and sw.flags & Mark.CHECKED
    assert f"{sw.number}☑" in text
    # the focused EditText: a field mark and a cursor
    assert "✎hotspot▏" in text
    # a disabled row: no number (not in the agent's list), drawn dim
    calls = next(lab for lab in layout.labels if lab.text == "Calls & SMS")
    assert calls.number == "" and calls.flags & Mark.DISABLED
    # the tap on the Airplane mode row lights its title and its switch
    assert {lab.text for lab in layout.labels if lab.flags & Mark.TARGET} == {"Airplane mode", ""}
    # wide characters are counted in cells
    vpn = next(s for row in layout.lines for s in row if "小米" in s.text)
    assert vpn.width == len(vpn.text) + sum(1 for ch in vpn.text if ord(ch) > 0x2E80)
    # a long summary wraps within its row, the first line cut readably
    _, hot = placed_text(layout, "Wi‑Fi hotspot, USB tethering, Bluetooth tethering, Ethernet tethering")
    assert hot.readable and len(hot.lines) >= 2


def test_the_layout_runs_without_textual() -> None:
    code = ("import sys; import guilens.screens.widgets.textlayout; "
            "print('textual' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_bad_input_is_one_clear_error() -> None:
    with pytest.raises(UITreeError, match="no <hierarchy>"):
        layout_screen("not xml at all", (1080, 2400), *BOX)
    with pytest.raises(ValueError, match="screen size 0x0"):
        layout_screen(ANDROID, (0, 0), *BOX)
    empty = layout_screen(ANDROID, (1080, 2400), 0, 0)
    assert empty.lines == [] and empty.text() == []


def test_count_shown_uses_each_occurrence_once_and_needs_twelve_for_a_cut() -> None:
    assert count_shown(["Running Shoes", "Shoes"], "Running Shoes") == 1
    assert count_shown(["Running Shoes", "Shoes"], "Running Shoes   Shoes") == 2
    assert count_shown(["Wi-Fi hotspot, USB tethering"], "Wi-Fi hotspo…") == 1  # 12 characters, then …
    assert count_shown(["Wi-Fi hotspot, USB tethering"], "Wi-Fi hotsp…") == 0  # 11
    assert count_shown(["Wi-Fi hotspot, USB tethering"], "Wi-Fi hotspot, USB") == 0  # no … : not a cut


# -- coverage over many sim screens ----------------------------------------------------------------


class _Recording:
    """A device that keeps every screen it is asked for (the reference player observes each step)."""

    def __init__(self, dev: SimDevice) -> None:
        self.dev = dev
        self.seen: list[tuple[str, tuple[int, int]]] = []

    def observe(self) -> Any:
        obs = self.dev.observe()
        if obs.ui_xml:
            self.seen.append((obs.ui_xml, obs.size))
        return obs

    def __getattr__(self, name: str) -> Any:
        return getattr(self.dev, name)


def many_sim_screens() -> dict[str, tuple[int, int]]:
    """Every app's first screen, and every screen the built-in scenarios' references pass through."""
    from guilens.scenarios.loader import load_builtin
    from guilens.scenarios.reference import run_reference

    screens: dict[str, tuple[int, int]] = {}
    for app in APPS:
        xml, size, _ = sim_screen(f"open {app}")
        screens.setdefault(xml, size)
    for scenario in load_builtin():
        for task in scenario.tasks:
            rec = _Recording(SimDevice(setup=scenario.setup_for(task)))
            run_reference(task, rec, "L0")  # type: ignore[arg-type]
            for xml, size in rec.seen:
                screens.setdefault(xml, size)
    return screens


def test_coverage_over_many_sim_screens(capsys: pytest.CaptureFixture[str]) -> None:
    screens = many_sim_screens()
    assert len(screens) >= 100
    apps = {parse_ui_xml(x).children[0].package for x in screens}
    assert len(apps) >= 12, apps  # the eleven apps and the launcher
    total = shown = readable = 0
    for xml, size in screens.items():
        layout = layout_screen(xml, size, *BOX)
        assert_sound(layout)
        labels = [lab.text for lab in layout.labels if lab.counts]
        total += len(labels)
        shown += count_shown(labels, "\n".join(layout.text()))
        readable += sum(1 for i, lab in enumerate(layout.labels) if lab.counts and i in layout.placed
                        and layout.placed[i].readable)
    with capsys.disabled():
        print(f"\ntext view coverage at {BOX[0]}x{BOX[1]}: {shown}/{total} labels = {shown / total:.1%} "
              f"over {len(screens)} sim screens (placed readably: {readable / total:.1%})")
    assert shown / total >= 0.90
    assert readable / total >= 0.90


def test_head_cuts_by_cells() -> None:
    from guilens.screens.widgets.textlayout import head

    assert head("Settings", 4) == "Sett"
    assert head("ab小米cd", 3) == "ab" and head("ab小米cd", 4) == "ab小"
    assert head("👨‍👩‍👧 family", 3) == "👨‍👩‍👧 "  # a joined emoji is one two-cell picture
    assert head("anything", 0) == ""
