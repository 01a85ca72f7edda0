"""Anomalies on the simulated phone: each kind drawn with Android's ids and resolvable, the state's
record of when and how, a setup's screen trigger, and a run's seeded draw (`--anomalies RATE`)."""

from __future__ import annotations

import pytest

from guilens.actions import Wait
from guilens.device.sim.anomalies import KINDS, AnomalySchedule
from tests.sim_helpers import Driver


def test_every_kind_is_drawn_with_androids_ids_and_resolvable() -> None:
    # kind -> (a node to find, its package, the control to tap, what the state then says)
    cases = {
        "ad": ("id:ad_close", "com.guilens.notes", "Close ad", "closed"),
        "permission": ("id:permission_deny_button", "com.android.permissioncontroller", "Deny", "deny"),
        "battery": ("Battery low: 15% remaining", "com.android.systemui", "Close", "dismissed"),
        "crash": ("Notes keeps stopping", "android", "Close app", "closed_app"),
    }
    assert set(cases) == set(KINDS)
    for kind, (node, pkg, control, how) in cases.items():
        d = Driver()
        d.open("notes")
        assert d.dev.inject_anomaly(kind) == f"showed a {kind} anomaly over Notes"
        st = d.state()
        assert st["dialog"] == kind and d.node(node).package == pkg
        assert d.node(control).clickable or d.target(control).clickable
        assert d.dev.observe().extra["anomaly"]["kind"] == kind
        assert not d.has("New note")  # the dump shows the anomaly's window, not the app under it
        d.tap(control)
        a = d.state()["anomalies"][0]
        assert a["kind"] == kind and a["source"] == "injected" and a["shown_step"] == 1
        assert a["resolved"] == how and a["resolved_step"] == 2
        assert d.state()["dialog"] is None and "anomaly" not in d.dev.observe().extra


def test_a_crash_kills_the_app_and_close_app_leaves_the_launcher() -> None:
    d = Driver()
    d.open("notes")
    d.tap("New note")
    d.type("Half a draft")
    d.dev.inject_anomaly("crash")
    assert d.state()["screen"] == "launcher/main"  # the app's process is gone: its window with it
    assert d.tap("Close app") == "closed Notes after it stopped"
    assert d.state()["screen"] == "launcher/main" and d.state()["dialog"] is None
    d.open("notes")
    assert d.state()["screen"] == "notes/main"  # started afresh: the draft is lost
    assert not d.has("Half a draft")


def test_app_info_and_battery_saver_and_back() -> None:
    d = Driver()
    d.open("notes")
    d.dev.inject_anomaly("crash")
    assert d.tap("App info").startswith("opened Settings")
    assert d.state()["foreground"] == "com.guilens.settings" and d.state()["anomalies"][0]["resolved"] == "app_info"
    d.dev.inject_anomaly("battery")
    assert d.tap("Battery saver") == "turned on Battery saver"
    assert d.node("Battery 15 percent")  # the status bar says what the warning said
    d.dev.inject_anomaly("battery")
    assert d.key("back") == "dismissed the low-battery warning"
    d.dev.inject_anomaly("ad")
    assert d.key("back") == "the ad does not close with back"


def test_injecting_needs_a_free_screen_and_an_app_in_front() -> None:
    d = Driver()
    assert d.dev.inject_anomaly("crash") == "no crash shown: it needs an app in front, and the launcher is"
    assert d.dev.inject_anomaly("battery") == "showed a battery anomaly over Home"
    assert d.dev.inject_anomaly("ad") == "no ad shown: a dialog already covers the screen"
    assert d.dev.inject_anomaly("popup").startswith("no anomaly called 'popup'")


def test_a_setup_anomaly_on_a_screen_waits_for_that_screen() -> None:
    d = Driver(setup={"anomalies": [{"kind": "battery", "app": "notes", "at": 1, "screen": "notes/edit"}]})
    d.open("notes")
    d.dev.act(Wait(seconds=1))
    assert d.state()["dialog"] is None  # due by step, but not on this screen
    d.tap("New note")
    assert d.state()["dialog"] == "battery"
    assert d.state()["anomalies"][0]["shown_step"] == 3


@pytest.mark.parametrize("kind", ["crash", "battery"])
def test_setup_takes_the_new_kinds(kind: str) -> None:
    d = Driver(setup={"anomalies": [{"kind": kind, "app": "shop", "at": "open"}]})
    d.open("shop")
    assert d.state()["dialog"] == kind


def _dialogs(rate: float, seed: str, steps: int = 40) -> list[str | None]:
    """What covers the screen after each of `steps` waits in Notes, closing each anomaly as it comes."""
    d = Driver()
    d.open("notes")
    d.dev.schedule_anomalies(rate, seed)
    out: list[str | None] = []
    for _ in range(steps):
        d.dev.act(Wait(seconds=1))
        kind = d.state()["dialog"]
        out.append(kind)
        if kind is not None:
            d.tap({"ad": "Close ad", "permission": "Deny", "battery": "Close", "crash": "Close app"}[kind])
            if kind == "crash":
                d.open("notes")
    return out


def test_rate_zero_draws_none_and_rate_one_draws_one_per_step() -> None:
    assert _dialogs(0.0, "t:1") == [None] * 40
    every = _dialogs(1.0, "t:1")
    assert all(k is not None for k in every)
    assert set(every) == set(KINDS)  # all four kinds come up


def test_draws_are_reproducible_and_follow_the_seed() -> None:
    a, b, c = _dialogs(0.3, "memory:task:1"), _dialogs(0.3, "memory:task:1"), _dialogs(0.3, "memory:task:2")
    assert a == b and a != c
    assert 4 <= sum(k is not None for k in a) <= 25
    s = AnomalySchedule(0.25, "x")
    hits = sum(s.draw(i, True) is not None for i in range(2000))
    assert 400 < hits < 600  # the rate is the rate
    assert {s.draw(i, False) for i in range(200)} <= {None, "battery"}  # on the launcher: the battery warning only


def test_a_rate_outside_zero_to_one_is_refused() -> None:
    d = Driver()
    with pytest.raises(ValueError, match="between 0 and 1"):
        d.dev.schedule_anomalies(1.5, "x")
