"""`AdbDevice` end to end: the real adb server and adbutils, the simulated phone on the other side."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest

from guilens.actions import KeyPress, OpenApp, Tap, Type
from guilens.device.base import (
    Device,
    DeviceDisconnected,
    DeviceError,
    DeviceNotFound,
    DeviceUnauthorized,
    UnsupportedAction,
)
from guilens.device.uitree import find_nodes
from tests import adb_helpers
from tests.adb_helpers import AdbServer, SimOverAdb, adb_server, needs_adb, sim_over_adb

pytestmark = [pytest.mark.adb, needs_adb]
adb_srv = adb_helpers.adb_srv  # the shared fixture
sim_adb = adb_helpers.sim_adb  # the shared fixture


@pytest.fixture
def dev(sim_adb: SimOverAdb) -> Iterator[Any]:
    d = sim_adb.device()
    yield d
    d.close()


def _tap(dev: Any, selector: str) -> None:
    root = dev.observe().ui
    hits = find_nodes(root, selector)
    assert hits, f"{selector!r} is not on the screen"
    x, y = hits[0].center
    dev.act(Tap(x=x, y=y))


def _new_note(dev: Any) -> None:
    dev.act(OpenApp(app="com.guilens.notes"))
    _tap(dev, "New note")


def test_observe_matches_the_sim_pixel_for_pixel(sim_adb: SimOverAdb, dev: Any) -> None:
    assert isinstance(dev, Device)
    assert dev.name == f"adb:{sim_adb.serial}"
    obs = dev.observe()
    own = sim_adb.on_sim(sim_adb.sim.observe)
    assert obs.size == (1080, 2400) == dev.size
    assert obs.screenshot.tobytes() == own.screenshot.convert("RGB").tobytes()
    assert obs.ui_xml == own.ui_xml
    assert obs.ui is not None and find_nodes(obs.ui, "Notes")
    assert obs.app == own.app == "com.guilens.launcher"
    assert obs.clock == own.clock


def test_a_tap_changes_the_phone(sim_adb: SimOverAdb, dev: Any) -> None:
    _tap(dev, "Notes")
    assert dev.observe().app == "com.guilens.notes"
    assert dev.act(KeyPress(key="home")) == "pressed home"
    assert sim_adb.state()["foreground"] == "com.guilens.launcher"


@pytest.mark.parametrize(
    "text",
    ["hello; reboot", "it's \"quoted\" $HOME `id` \\back\\slash & | > <", "50%said 100% sure %s"],
)
def test_typed_text_arrives_literally(sim_adb: SimOverAdb, dev: Any, text: str) -> None:
    _new_note(dev)
    dev.act(Type(text=text))
    assert sim_adb.state()["fields"]["title"] == text


def test_non_ascii_goes_through_the_adb_keyboard_and_the_ime_is_restored(sim_adb: SimOverAdb, dev: Any) -> None:
    _new_note(dev)
    dev.act(Type(text="Crème brûlée für 2 🙂"))
    assert sim_adb.state()["fields"]["title"] == "Crème brûlée für 2 🙂"
    ime = dev.shell("settings get secure default_input_method").output.strip()
    assert ime == "com.android.inputmethod.latin/.LatinIME"


def test_non_ascii_without_the_adb_keyboard_is_a_clear_error(adb_srv: AdbServer) -> None:
    with sim_over_adb(adb_srv, adb_keyboard=False) as s:
        d = s.device()
        _new_note(d)
        with pytest.raises(UnsupportedAction, match="ADB keyboard is not installed"):
            d.act(Type(text="naïve"))
        d.act(Type(text="naive"))
        assert s.state()["fields"]["title"] == "naive"


def test_open_app_by_label_or_package(sim_adb: SimOverAdb, dev: Any) -> None:
    assert dev.act(OpenApp(app="Calculator")) == "opened com.guilens.calculator"
    assert sim_adb.state()["foreground"] == "com.guilens.calculator"
    dev.act(OpenApp(app="com.guilens.notes"))
    assert dev.observe().app == "com.guilens.notes"
    with pytest.raises(UnsupportedAction, match="no app 'Weather'"):
        dev.act(OpenApp(app="Weather"))
    assert "com.guilens.notes" in dev.list_apps()


def test_clock_read_and_set(sim_adb: SimOverAdb, dev: Any) -> None:
    assert dev.clock() == sim_adb.on_sim(sim_adb.sim.clock)
    dev.set_clock(datetime(2027, 3, 4, 5, 6, 7))
    assert sim_adb.on_sim(sim_adb.sim.clock) == datetime(2027, 3, 4, 5, 6, 7)
    assert dev.clock() == datetime(2027, 3, 4, 5, 6, 7)
    assert dev.shell("settings get global auto_time").output.strip() == "0"


def test_reset_steps_run_and_fail_loudly(dev: Any) -> None:
    assert dev.snapshot() is None and dev.state() is None
    dev.reset(["input keyevent 3", "rm -f /sdcard/x"])
    with pytest.raises(DeviceError, match="reset step `pm clear com.guilens.notes` failed"):
        dev.reset(["pm clear com.guilens.notes"])
    with pytest.raises(DeviceError, match="needs an emulator"):
        dev.reset(["emu:snapshot load clean"])


def test_unknown_serial_and_no_device(adb_srv: AdbServer) -> None:
    from guilens.device.adb import AdbDevice

    with pytest.raises(DeviceNotFound, match="'nosuch' is not attached") as err:
        AdbDevice("nosuch", port=adb_srv.port)
    assert "adb connect" in err.value.fix
    with adb_server() as empty, pytest.raises(DeviceNotFound, match="no adb device is attached"):
        AdbDevice(port=empty.port)


def test_the_only_device_is_picked_and_two_must_be_named(adb_srv: AdbServer) -> None:
    from guilens.device.adb import AdbDevice

    with adb_server() as server, sim_over_adb(server) as one:
        assert AdbDevice(port=server.port).serial == one.serial
        with sim_over_adb(server), pytest.raises(DeviceNotFound, match="2 adb devices"):
            AdbDevice(port=server.port)


def test_a_network_serial_is_connected_on_demand(adb_srv: AdbServer) -> None:
    with sim_over_adb(adb_srv) as s:
        adb_srv.run("disconnect", s.serial)
        adb_srv.wait_state(s.serial, None)
        d = s.device()
        assert d.observe().app == "com.guilens.launcher"


def test_an_unauthorized_phone_says_to_accept_the_prompt(adb_srv: AdbServer) -> None:
    with sim_over_adb(adb_srv, unauthorized=True) as s:
        s.server.wait_state(s.serial, "unauthorized")
        with pytest.raises(DeviceUnauthorized) as err:
            s.device()
        assert "accept the USB debugging prompt" in str(err.value)


def test_killing_the_bridge_mid_run_raises_disconnected_and_resume_works(adb_srv: AdbServer) -> None:
    from guilens.device.sim.adbd import AdbBridge

    with sim_over_adb(adb_srv) as s:
        d = s.device()
        d.observe()
        s.bridge.stop()
        with pytest.raises(DeviceDisconnected) as err:
            d.observe()
        assert "resume" in err.value.fix
        with pytest.raises(DeviceDisconnected):
            d.act(Tap(x=10, y=10))
        # the phone comes back on the same address: the adb server reconnects and the device works again
        back = AdbBridge(s.sim, port=s.bridge.port).start()
        try:
            adb_srv.wait_state(s.serial, "device", timeout=30)
            assert d.observe().app == "com.guilens.launcher"
        finally:
            back.stop()


def test_clear_delete_and_scroll_through_adb(sim_adb: SimOverAdb, dev: Any) -> None:
    """The new actions as a real phone performs them: `type` with clear empties the field with
    KEYCODE_MOVE_END and deletes (as many as the UI dump shows), `delete` is KEYCODE_DEL, and a
    scroll is the finger's swipe."""
    from guilens.actions import Scroll

    _new_note(dev)
    dev.act(Type(text="patio side table"))
    assert dev.act(Type(text="Drip Coffee Maker", clear=True)).startswith("cleared the field, then typed")
    assert sim_adb.state()["fields"]["title"] == "Drip Coffee Maker"
    dev.act(KeyPress(key="delete"))
    assert sim_adb.state()["fields"]["title"] == "Drip Coffee Make"
    assert dev.act(Type(text="", clear=True)) == "cleared the field"
    assert sim_adb.state()["fields"]["title"] == ""
    dev.act(KeyPress(key="home"))
    dev.act(OpenApp(app="com.guilens.shop"))
    before = dev.observe().screenshot.tobytes()
    said = dev.act(Scroll(direction="down"))
    assert said.startswith("scrolled down") and dev.observe().screenshot.tobytes() != before
    with pytest.raises(UnsupportedAction):
        dev.act(Scroll(direction="down", element=3))
