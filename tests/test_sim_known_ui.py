"""The sim hands each observation the tree its UI XML was written from (`Observation.known_ui`):
that tree must be exactly what parsing the XML gives, since the judge parses the recorded XML."""

from __future__ import annotations

import dataclasses
import pickle
from typing import Any

from guilens.device.sim import SimDevice
from guilens.device.sim.registry import APPS
from guilens.device.uitree import UINode, parse_ui_xml
from guilens.scenarios.loader import load_builtin
from guilens.scenarios.reference import run_reference


def fields(node: UINode) -> tuple[Any, ...]:
    """A node and its subtree as plain values (the parent link left out: it would loop)."""
    return (node.text, node.resource_id, node.cls, node.package, node.content_desc, node.bounds, node.clickable,
            node.long_clickable, node.scrollable, node.focusable, node.focused, node.selected, node.checked,
            node.checkable, node.enabled, node.editable, tuple(fields(c) for c in node.children))


def parents_hold(node: UINode) -> bool:
    return all(c.parent is node and parents_hold(c) for c in node.children)


class Watch:
    """A sim that checks every observation's handed tree against the parse of its XML."""

    def __init__(self, dev: SimDevice) -> None:
        self.dev = dev
        self.checked = 0

    def observe(self) -> Any:
        obs = self.dev.observe()
        assert "ui" in obs.__dict__, "the sim's observation came without its tree"
        handed = obs.ui
        assert handed is not None and obs.ui_xml
        parsed = parse_ui_xml(obs.ui_xml)
        assert fields(handed) == fields(parsed), obs.extra.get("screen")
        assert parents_hold(handed)
        self.checked += 1
        return obs

    def __getattr__(self, name: str) -> Any:
        return getattr(self.dev, name)


def test_the_handed_tree_is_the_parse_of_the_xml_on_every_reference_screen() -> None:
    checked = 0
    for scenario in load_builtin():
        if scenario.id not in ("memory", "hard", "anomalies"):
            continue
        for task in scenario.tasks:
            watch = Watch(SimDevice(setup=scenario.setup_for(task)))
            run_reference(task, watch, "L0")  # type: ignore[arg-type]
            checked += watch.checked
    assert checked >= 300


def test_every_app_and_the_launcher() -> None:
    from guilens.actions import KeyPress, OpenApp

    watch = Watch(SimDevice())
    watch.observe()
    for app in APPS:
        watch.dev.act(OpenApp(app=app))
        watch.observe()
        watch.dev.act(KeyPress(key="home"))
    assert watch.checked == len(APPS) + 1


def test_the_tree_crosses_a_pickle_whole_and_a_tree_never_parsed_does_not() -> None:
    obs = SimDevice().observe()
    assert "ui" in obs.__dict__
    back = pickle.loads(pickle.dumps(obs))
    assert "ui" in back.__dict__  # the far side does not parse the XML again
    assert back.ui is not obs.ui and fields(back.ui) == fields(obs.ui)  # type: ignore[arg-type]
    assert parents_hold(back.ui) and back.ui.parent is None  # type: ignore[arg-type]
    unparsed = dataclasses.replace(obs)  # a copy: its cached tree stays behind
    assert "ui" not in unparsed.__dict__
    again = pickle.loads(pickle.dumps(unparsed))
    assert "ui" not in again.__dict__ and fields(again.ui) == fields(obs.ui)  # type: ignore[arg-type]
