"""Screens encoded where the device lives (issue 14): PNG bytes cross, pixels are decoded only on demand.

A hosted sim's child encodes each new screen; the run's process holds it as an
`EncodedScreen`. The recorder writes those bytes as they came (byte for byte,
never decoded, never encoded again), they decode to the sim's own pixels, a
headless oracle run on two hosted sims decodes no screen at all, and whoever
does read the pixels (an LLM agent's resize, the TUI's phone view) gets them,
decoded once per screen.
"""

from __future__ import annotations

import io
import pickle
import threading
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from guilens.agents.llm_agent import sized_image
from guilens.config import Settings
from guilens.device.hosted import HostedDevice
from guilens.device.process_host import ProcessHost
from guilens.device.sim import SimDevice
from guilens.encoded_screen import EncodedScreen, encoded_future
from guilens.episode import EpisodeReader, Recorder
from guilens.png import FrameEncoder
from guilens.run.engine import Runner
from guilens.run.plan import plan_run
from guilens.screens.widgets.halfcell import prepare_frame
from tests.test_recorder_memory import make_episode, make_step, ui_frame


def _screen(i: int = 0) -> tuple[Image.Image, EncodedScreen]:
    img = ui_frame(i)
    return img, EncodedScreen(FrameEncoder().encode(img))


def test_an_encoded_screen_is_decoded_on_first_use_of_its_pixels_and_only_once() -> None:
    img, screen = _screen()
    before = EncodedScreen.decodes
    assert (screen.mode, screen.size, screen.decoded) == ("RGB", img.size, False)  # from the header alone
    assert EncodedScreen.decodes == before
    assert screen.tobytes() == img.tobytes()
    assert screen.resize((108, 240)).tobytes() == img.resize((108, 240)).tobytes()
    assert screen.decoded and EncodedScreen.decodes == before + 1
    late = encoded_future(screen)
    assert late is not None and late.result() == screen.encoded and encoded_future(img) is None


def test_two_threads_reading_it_at_once_decode_it_once() -> None:
    img, screen = _screen(3)
    before = EncodedScreen.decodes
    start = threading.Barrier(2)
    got: list[bytes] = []

    def read() -> None:
        start.wait()
        got.append(screen.tobytes())

    threads = [threading.Thread(target=read) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [img.tobytes()] * 2 and EncodedScreen.decodes == before + 1


def test_it_pickles_as_its_png_and_comes_back_undecoded() -> None:
    img, screen = _screen(5)
    data = pickle.dumps(screen)
    assert len(data) < len(screen.encoded) + 200  # the PNG, not the 7.8 MB of pixels
    back = pickle.loads(data)
    assert isinstance(back, EncodedScreen) and not back.decoded and back.encoded == screen.encoded
    assert back.tobytes() == img.tobytes()


def test_the_recorder_writes_an_encoded_screen_as_it_came(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    frames = [_screen(i)[1] for i in range(3)]
    monkeypatch.setattr(FrameEncoder, "encode", lambda self, img: pytest.fail("the recorder encoded a screen again"))
    before = EncodedScreen.decodes
    rec = Recorder(tmp_path, make_episode())
    rec.encode_ahead(frames[0])
    for i, screen in enumerate(frames[:-1]):
        rec.record_step(make_step(i), screen)
        rec.encode_ahead(frames[i + 1])
        rec.wait_durable()
    rec.finish("success", final_screen=frames[-1])
    assert EncodedScreen.decodes == before
    for i, screen in enumerate(frames):
        assert (tmp_path / "screens" / f"{i:04d}.png").read_bytes() == screen.encoded
    assert EpisodeReader(tmp_path).screen(2).tobytes() == ui_frame(2).tobytes()


def test_a_hosted_screen_is_the_png_the_child_encoded_and_decodes_to_the_sims_pixels() -> None:
    local = SimDevice()
    hosted = HostedDevice(ProcessHost(SimDevice))
    try:
        shot = hosted.observe().screenshot
        assert isinstance(shot, EncodedScreen) and not shot.decoded
        mine = local.observe().screenshot
        # The pixels first: were they to differ, the bytes would too, and this says which of the two broke.
        assert Image.open(io.BytesIO(shot.encoded)).tobytes() == mine.tobytes()
        assert shot.encoded == FrameEncoder().encode(mine)  # the writer is deterministic: the child's own bytes
        again = hosted.observe().screenshot  # unchanged: crossed as a mark, its own object of the same bytes
        assert again is not shot and again.encoded == shot.encoded
        ImageDraw.Draw(shot).rectangle((0, 0, 300, 300), fill=(255, 0, 0))  # a caller drawing on its copy
        assert again.tobytes() == mine.tobytes()
    finally:
        hosted.close()


def test_a_headless_run_on_two_hosted_sims_decodes_no_screen(tmp_path: Path) -> None:
    plan = plan_run("memory", agent="oracle", devices=["sim", "sim"], user="oracle", level="L0",
                    out=tmp_path / "runs", settings=Settings(), check_agent=False)
    plan.tasks = plan.tasks[:2]
    before = EncodedScreen.decodes
    runner = Runner(plan)
    result = runner.run()
    assert all(isinstance(d, HostedDevice) for d in runner.devices.values())
    assert [ep.status for ep in result.episodes] == ["success", "success"]
    assert EncodedScreen.decodes == before
    screens = sorted((tmp_path / "runs").glob("*/*/attempt-*/screens/*.png"))
    assert len(screens) == sum(ep.steps + 1 for ep in result.episodes)
    for path in screens:
        with Image.open(path) as im:
            im.load()
            assert (im.mode, im.size) == ("RGB", (1080, 2400))


def test_agents_and_the_phone_view_get_the_pixels() -> None:
    img, screen = _screen(7)
    assert sized_image(screen, (540, 1200), "screens/0000.png") == sized_image(img, (540, 1200), "screens/0000.png")
    assert prepare_frame(screen, (40, 44)) == prepare_frame(img, (40, 44))


def test_a_screen_that_failed_to_cross_is_sent_whole_next_time() -> None:
    """The child marks a screen unchanged only when the parent has its PNG: after an encoding that
    failed, the same screen crosses as a new one again (bytes to follow), never as a mark for an older one."""
    from guilens.device.process_host import _PNG, _SAME, _Screens

    sim = SimDevice()
    screens = _Screens()
    obs = sim.observe()
    calls: list[int] = []
    real = screens.encoder.encode

    def flaky(img: Image.Image) -> bytes:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("encoder broke")
        return real(img)

    screens.encoder.encode = flaky  # type: ignore[method-assign]
    _, frame, img = screens.split(obs)
    assert frame == (_PNG, "RGB", obs.screenshot.size) and img is not None
    with pytest.raises(RuntimeError):
        screens.encode(img)
    bare, frame, img = screens.split(sim.observe())
    assert frame == (_PNG, "RGB", obs.screenshot.size) and img is not None and bare.screenshot is None
    assert Image.open(io.BytesIO(screens.encode(img))).tobytes() == obs.screenshot.tobytes()
    assert screens.split(sim.observe())[1:] == (_SAME, None)
