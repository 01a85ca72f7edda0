"""The phone's text in a terminal without graphics: `guilens demo` in tmux at 200x60 (the view starts
as pixels and text side by side), read back with `tmux capture-pane -p`.

When the agent asks its second question the phone shows the product page; the question's modal is put
aside (Esc) so nothing covers the phone, the pane is captured, then the question is answered and the run
ends. At least 90% of the UI tree's visible text labels of that screen must be in the phone pane's part of
the capture (a label cut with "…" counts when at least 12 of its characters show).
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from test_tui_demo_tmux import TMUX, demo_in_tmux

from guilens.device.uitree import parse_ui_xml
from guilens.screens.widgets.textlabels import count_shown, visible_labels

pytestmark = [pytest.mark.slow, pytest.mark.skipif(TMUX is None, reason="needs tmux")]

ASK_STEP = 6
"""The 0-based index of the step asking the second question (its files are `ui/0006.xml`; people read "step 7")."""


def phone_pane(text: str) -> str:
    """The part of a capture inside the phone pane's border (the first pane from the left)."""
    lines = text.splitlines()
    top = next(i for i, line in enumerate(lines) if "─ phone" in line)
    right = lines[top].index("╮")
    out = []
    for line in lines[top + 1:]:
        if line.startswith("╰"):
            break
        out.append(line[1:right])
    return "\n".join(out)


def all_texts(xml: str) -> list[str]:
    """Every text and content-desc of the nodes on the screen (a stricter count than the view's own)."""
    root = parse_ui_xml(xml)
    out = []
    for node in root.iter():
        x1, y1, x2, y2 = node.bounds
        if x2 <= x1 or y2 <= y1 or y2 <= 0 or y1 >= 2400:
            continue
        out += [t for t in (node.text, node.content_desc) if t.strip()]
    return out


def test_the_phones_text_is_in_the_tmux_capture(tmp_path: Path) -> None:
    with demo_in_tmux(tmp_path, "text", 200, 60) as (p, out):
        p.wait(r"The agent asks · step 1\b", timeout=60)  # steps are numbered from 1 where people read them
        p.keys("Enter")
        p.wait(rf"The agent asks · step {ASK_STEP + 1}\b", timeout=60)
        p.keys("Escape")  # answer later: the modal goes, the question stays
        time.sleep(1.5)
        capture = p.text()
        p.keys("a")
        p.wait(rf"The agent asks · step {ASK_STEP + 1}\b", timeout=30)
        p.keys("Enter")
        p.wait(r"finished: success", timeout=60)
        p.keys("q")
    ep = next(out.glob("*/*/attempt-1"))
    assert json.loads((ep / "episode.json").read_text())["status"] == "success"
    xml = (ep / "ui" / f"{ASK_STEP:04d}.xml").read_text()
    pane = phone_pane(capture)
    assert re.search(r"\$398\.00", pane), f"the product page is not on the phone:\n{pane}"
    labels = visible_labels(parse_ui_xml(xml), (0, 0, 1080, 2400))
    shown = count_shown(labels, pane)
    strict = all_texts(xml)
    strict_shown = count_shown(strict, pane)
    print(f"text view in tmux 200x60: {shown}/{len(labels)} visible labels ({shown / len(labels):.0%}); "
          f"every text and content-desc: {strict_shown}/{len(strict)} ({strict_shown / len(strict):.0%})")
    assert len(labels) >= 15
    assert shown / len(labels) >= 0.9, f"{shown}/{len(labels)} labels in:\n{pane}"
    assert strict_shown / len(strict) >= 0.9, f"{strict_shown}/{len(strict)} of every text in:\n{pane}"
