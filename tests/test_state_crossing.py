"""A hosted sim's app state crosses its pipe as the apps that changed (issue 14).

Whatever crossed, the run's process holds the sim's state exactly, key for key
and in order; a reply the near side never put together makes the next state
cross whole; apps carried over are the previous state's own objects and say
so, and the state log then reuses their JSON, while an app object changed in
place is still encoded again.
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

from guilens.actions import KeyPress, OpenApp, Type
from guilens.device.hosted import HostedDevice
from guilens.device.process_host import ProcessHost
from guilens.device.sim import SimDevice
from guilens.device.state_crossing import KeptApps, StateReceiver, StateSender
from guilens.run import statelog
from guilens.run.statelog import StateLog

SETUP = {"clock": "2026-11-21T09:00:00",
         "apps": {"notes": {"notes": [{"title": "Budget", "body": "Lunch money: 42 dollars a week"}]}}}
SCRIPT: list[Any] = [OpenApp(app="notes"), KeyPress(key="back"), OpenApp(app="contacts"), KeyPress(key="home"),
                     OpenApp(app="notes"), Type(text="Groceries"), KeyPress(key="home")]


def _states() -> list[dict[str, Any]]:
    sim = SimDevice(setup=SETUP)
    out = [sim.state()]
    for action in SCRIPT:
        sim.act(action)
        out.append(sim.state())
    return out


def test_states_put_together_equal_the_sims_key_for_key_and_cross_small() -> None:
    sender, receiver = StateSender(), StateReceiver()
    sizes = []
    for state in _states():
        packed = pickle.loads(pickle.dumps(sender.pack(state, receiver.have)))
        sizes.append((len(pickle.dumps(state)), len(pickle.dumps(packed))))
        got = receiver.unpack(packed)
        assert got == state
        assert json.dumps(got) == json.dumps(state)  # the same keys in the same order: the same file
    assert sizes[0][1] >= sizes[0][0]  # the first crosses whole
    assert all(packed * 4 < whole for whole, packed in sizes[1:]), sizes  # later ones: what changed


def test_a_state_the_near_side_missed_makes_the_next_cross_whole() -> None:
    sender, receiver = StateSender(), StateReceiver()
    states = _states()
    receiver.unpack(sender.pack(states[0], receiver.have))
    sender.pack(states[1], receiver.have)  # its reply never put together (a call cut short)
    packed = sender.pack(states[2], receiver.have)
    assert packed[0] == "whole"
    assert receiver.unpack(packed) == states[2]
    packed = sender.pack(states[3], receiver.have)
    assert packed[0] == "delta" and receiver.unpack(packed) == states[3]


def test_kept_apps_are_the_previous_states_objects_and_say_so() -> None:
    sender, receiver = StateSender(), StateReceiver()
    states = _states()
    before = receiver.unpack(sender.pack(states[4], receiver.have))  # home screen
    after = receiver.unpack(sender.pack(states[5], receiver.have))  # notes opened: no app data changed
    assert isinstance(after["apps"], KeptApps)
    assert after["apps"].kept == frozenset(after["apps"])
    assert all(after["apps"][name] is before["apps"][name] for name in after["apps"])


def test_the_state_log_reuses_kept_apps_and_encodes_a_changed_object_again(tmp_path: Path, monkeypatch: Any) -> None:
    encoded: list[Any] = []
    real = statelog._dumps
    monkeypatch.setattr(statelog, "_dumps", lambda v: (encoded.append(v), real(v))[1])
    log = StateLog(tmp_path, lambda: None)
    apps = {"notes": {"notes": []}, "maps": {"places": ["home"]}}
    log._encode({"foreground": "x", "apps": apps})
    kept = KeptApps(apps)
    kept.kept = frozenset(apps)
    encoded.clear()
    log._encode({"foreground": "x", "apps": kept})
    assert not [v for v in encoded if v in apps.values()]  # both reused, not compared or encoded
    apps["maps"]["places"].append("work")  # the same object, changed in place, not vouched for
    encoded.clear()
    text = log._encode({"foreground": "x", "apps": apps})
    assert json.loads(text)["apps"]["maps"] == {"places": ["home", "work"]}
    assert apps["maps"] in encoded


def test_a_hosted_sims_states_cross_as_what_changed() -> None:
    local = SimDevice(setup=SETUP)
    device = HostedDevice(ProcessHost(SimDevice, setup=SETUP), prefetch=True)
    try:
        assert device.state() == local.state()
        for action in SCRIPT:
            assert device.act(action) == local.act(action)
            device.observe()
            got = device.state()
            assert got == local.state()
            assert isinstance(got["apps"], KeptApps)  # put together from the last one
        assert isinstance(device.host, ProcessHost) and device.host._states.have == len(SCRIPT) + 1
    finally:
        device.close()
