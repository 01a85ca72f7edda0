"""The episode record: crash safety, lazy reading, schemas."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from guilens.episode import Episode, EpisodeError, EpisodeReader, Recorder, Step, Timings, encode_png

T0 = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)


def ui_frame(i: int, size: tuple[int, int] = (1080, 2400)) -> Image.Image:
    img = Image.new("RGB", size, (245, 245, 250))
    d = ImageDraw.Draw(img)
    d.rectangle((0, 0, size[0], 96), fill=(30, 30, 60))
    for row in range(12):
        y = 150 + row * 180
        d.rounded_rectangle((40, y, size[0] - 40, y + 150), 24, fill=(255, 255, 255), outline=(200, 200, 220))
        d.text((80, y + 50), f"Item {row + i}", fill=(20, 20, 20))
    return img


def make_episode(**kw: object) -> Episode:
    return Episode(task="notes-1", scenario="pack", agent="oracle", device="sim", timings=Timings(started_at=T0), **kw)


def make_step(i: int) -> Step:
    return Step(
        index=i,
        started_at=T0 + timedelta(seconds=i),
        ended_at=T0 + timedelta(seconds=i, milliseconds=500),
        thought=f"step {i}",
        action={"type": "tap", "x": 10 + i, "y": 20},
        action_description=f"tap item {i}",
    )


def test_recorder_writes_the_layout_and_reader_reads_it(tmp_path: Path) -> None:
    rec = Recorder(tmp_path / "attempt-1", make_episode())
    assert json.loads((tmp_path / "attempt-1" / "episode.json").read_text())["status"] == "running"
    for i in range(3):
        rec.record_step(make_step(i), ui_frame(i), ui_xml=f"<hierarchy><node text='{i}'/></hierarchy>")
    rec.finish("success", final_screen=ui_frame(9), final_state={"apps": {"notes": {"notes": []}}})
    r = EpisodeReader(tmp_path / "attempt-1")
    assert r.episode.status == "success" and r.episode.steps == 3
    assert [s.index for s in r.steps] == [0, 1, 2]
    assert r.steps[1].screen == "screens/0001.png" and r.steps[1].ui == "ui/0001.xml"
    assert r.screen(2).tobytes() == ui_frame(2).tobytes()  # lossless
    assert r.screen(3).tobytes() == ui_frame(9).tobytes()  # the final screen after the last action
    assert r.final_state() == {"apps": {"notes": {"notes": []}}}
    assert "text='1'" in (r.ui_xml(1) or "")


def test_screens_are_lossless_and_within_a_small_factor_of_pillows_png(tmp_path: Path) -> None:
    img = ui_frame(0)
    ours = encode_png(img, tmp_path / "a.png")
    img.save(tmp_path / "b.png")
    # ISA-L's fast deflate and no per-row filter search: speed over size (guilens/png.py measures the
    # trade on real sim screens: about 1.4x Pillow's bytes there; this synthetic frame is a worse case).
    assert ours < 2.5 * (tmp_path / "b.png").stat().st_size
    assert Image.open(tmp_path / "a.png").convert("RGB").tobytes() == img.tobytes()
    noisy = Image.effect_noise((300, 300), 80).convert("RGB")
    encode_png(noisy, tmp_path / "n.png")
    assert Image.open(tmp_path / "n.png").convert("RGB").tobytes() == noisy.tobytes()


CHILD = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    sys.path.insert(0, {tests!r})
    from test_episode import make_episode, make_step, ui_frame
    from guilens.episode import Recorder
    rec = Recorder(Path({out!r}), make_episode())
    i = 0
    while True:
        rec.record_step(make_step(i), ui_frame(i))
        print(i, flush=True)
        i += 1
        time.sleep(0.01)
    """
)


def test_sigkill_mid_episode_keeps_every_completed_step(tmp_path: Path) -> None:
    out = tmp_path / "attempt-1"
    code = CHILD.format(tests=str(Path(__file__).parent), out=str(out))
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    started = time.monotonic()
    handed_over = -1
    while handed_over < 12 and time.monotonic() - started < 60:
        handed_over = int(child.stdout.readline())
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    # Pretend the kill happened mid-line too: a torn last line must be dropped, not fatal.
    with open(out / "steps.jsonl", "a", encoding="utf-8") as f:
        f.write('{"index": 999, "started_at": "2026-')
    r = EpisodeReader(out)
    assert r.episode.status == "interrupted"
    steps = r.steps
    assert r.dropped_lines == 1
    # The writer lags the step loop by at most its queue; everything it wrote is whole.
    assert len(steps) >= handed_over - 8
    assert [s.index for s in steps] == list(range(len(steps)))
    for s in steps:
        assert r.screen(s.index).tobytes() == ui_frame(s.index).tobytes()


def test_reader_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(EpisodeError, match="no episode.json"):
        EpisodeReader(tmp_path)
    (tmp_path / "episode.json").write_text('{"task": 3}')
    with pytest.raises(EpisodeError, match=r"episode\.json: not a guilens episode"):
        EpisodeReader(tmp_path)


def test_a_bad_line_in_the_middle_is_an_error_with_its_line_number(tmp_path: Path) -> None:
    rec = Recorder(tmp_path, make_episode())
    rec.record_step(make_step(0), None)
    rec.finish("failure")
    with open(tmp_path / "steps.jsonl", "a", encoding="utf-8") as f:
        f.write("garbage\n" + make_step(1).model_dump_json() + "\n")
    with pytest.raises(EpisodeError, match=r"steps\.jsonl:2"):
        _ = EpisodeReader(tmp_path).steps


def test_schemas_are_valid_and_round_trip_a_recorded_episode(tmp_path: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    rec = Recorder(tmp_path, make_episode())
    rec.record_step(make_step(0), ui_frame(0))
    rec.finish("success", final_screen=ui_frame(1))
    for kind, doc in (("episode", tmp_path / "episode.json"), ("step", None)):
        out = subprocess.run(
            [sys.executable, "-m", "guilens", "schema", kind], capture_output=True, text=True, check=True
        ).stdout
        schema = json.loads(out)
        jsonschema.Draft202012Validator.check_schema(schema)
        instance = (
            json.loads(doc.read_text())
            if doc
            else json.loads((tmp_path / "steps.jsonl").read_text().splitlines()[0])
        )
        jsonschema.validate(instance, schema)
        model = Episode if kind == "episode" else Step
        assert json.loads(model.model_validate(instance).model_dump_json()) == instance
