"""A batch over two adb devices: the real adb server, two simulated phones behind our ADB bridge,
one task per device at a time, the oracle reading each phone's own UI tree."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from guilens.config import Settings
from guilens.runner import Runner, plan_run
from tests import adb_helpers
from tests.adb_helpers import AdbServer, sim_over_adb

pytestmark = pytest.mark.adb
adb_srv = adb_helpers.adb_srv  # the shared fixture

PACK = """\
id: adbpack
title: Notes on any phone
device: any
tasks:
  - id: note-{a}
    title: A note titled {A}
    apps: [notes]
    instruction: {{L0: "In Notes, create a note titled {A}."}}
    difficulty: 1
    golden_steps: 5
    milestones:
      - id: editor
        text: The note editor is open
        check: {{element: "id:title"}}
      - id: listed
        text: The note list shows {A}
        check: {{screen_text: {A}}}
    reference:
      - open: notes
      - tap: New note
      - type: {A}
      - back
      - finish
"""


def _pack(tmp_path: Path) -> Path:
    head, _, task = PACK.partition("tasks:\n")
    body = "".join(task.format(a=n.lower(), A=n) for n in ("Alpha", "Beta", "Gamma"))
    path = tmp_path / "adbpack.yaml"
    path.write_text(head + "tasks:\n" + body, encoding="utf-8")
    return path


def test_a_batch_spreads_tasks_over_two_adb_phones(
    adb_srv: AdbServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(adb_srv.port))
    pack = _pack(tmp_path)
    with sim_over_adb(adb_srv) as one, sim_over_adb(adb_srv) as two:
        plan = plan_run(str(pack), agent="oracle", devices=[f"adb:{one.serial}", f"adb:{two.serial}"],
                        out=tmp_path / "runs", settings=Settings())
        result = Runner(plan).run()
        titles = [sorted(n["title"] for n in phone.state()["apps"]["notes"]["notes"]) for phone in (one, two)]
    assert {t: r.status for t, r in result.tasks.items()} == {
        "note-alpha": "success", "note-beta": "success", "note-gamma": "success"
    }
    # Each phone got its own tasks and nothing else: three new notes spread over two phones.
    made = [t for ts in titles for t in ts if t in ("Alpha", "Beta", "Gamma")]
    assert sorted(made) == ["Alpha", "Beta", "Gamma"] and all(titles)
    devices = {json.loads((result.run_dir / t / "attempt-1" / "episode.json").read_text())["device"]
               for t in result.tasks}
    assert devices == {f"adb:{one.serial}", f"adb:{two.serial}"}
