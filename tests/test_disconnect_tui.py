"""The run screen while the phone is gone: the real runner on the real simulated phone behind a link
that drops (`GonePhone`). The status line and the trace say the phone is gone and what the device
said; space asks the phone at once, and the run goes on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import tui_helpers  # noqa: F401  (pins the phone views' cell size)

from guilens.config import Settings
from guilens.run.engine import Runner
from guilens.run.plan import plan_run
from guilens.screens.app import GuilensApp
from guilens.screens.run_screen import RunScreen
from guilens.screens.widgets.status import StatusLine
from guilens.screens.widgets.trace import TraceView
from tests.runner_helpers import read_steps, write_scenarios
from tests.test_disconnect import GonePhone

pytestmark = pytest.mark.timeout(120)


async def _until(pilot: Any, cond: Any, what: str, timeout: float = 30.0) -> None:
    for _ in range(int(timeout / 0.05)):
        if cond():
            return
        await pilot.pause(0.05)
    raise AssertionError(f"timed out waiting for {what}")


async def test_the_run_screen_shows_the_phone_gone_and_space_asks_it(tmp_path: Path) -> None:
    scenarios, _ = write_scenarios(tmp_path)
    phone = GonePhone(method="observe", cut_at=3, gone_s=1000, with_alive=False)
    plan = plan_run(f"{scenarios}:budget", devices=[phone], out=tmp_path / "runs", settings=Settings())
    runners: list[Runner] = []

    def factory(observers: list[Any], control: Any, channel: Any) -> Runner:
        runners.append(Runner(plan, observers=observers, control=control, channel=channel, disconnect_wait_s=60))
        return runners[0]

    app = GuilensApp(lambda: RunScreen(factory))
    async with app.run_test(size=(160, 50)) as pilot:
        screen = next(s for s in app.screen_stack if isinstance(s, RunScreen))
        await _until(pilot, lambda: screen.state == "disconnected", "the disconnected state")
        status = screen.query_one(StatusLine)
        assert status.state == "disconnected" and status.has_class("-disconnected")
        assert "phone gone" in str(status.render())
        # The notice is a message to the app, handled after the state the screen shows: wait for it.
        await _until(pilot, lambda: any("sim disconnected while observe" in n.message and "space: try it now" in n.message
                                        for n in app._notifications), "the phone-gone notice")
        trace = screen.query_one(TraceView)
        said = [c.event.text for c in trace.children if type(c.event).__name__ == "Note"]  # type: ignore[attr-defined]
        assert any(t.startswith("⚡ sim disconnected while observe") for t in said)
        await pilot.pause(0.5)
        assert screen.state == "disconnected" and not screen.finished  # it waits: nothing tells it the phone is back
        phone.back_at = 0
        await pilot.press("space")
        await _until(pilot, lambda: screen.finished, "the end of the run")
        assert not screen.control.paused
    ep = runners[0].run_dir
    assert ep is not None
    gaps = [g for s in read_steps(ep / "budget" / "attempt-1") for g in s["gaps"]]
    assert len(gaps) == 1 and gaps[0]["on_key"] is True
