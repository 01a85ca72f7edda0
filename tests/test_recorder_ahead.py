"""A screen's files written ahead of its step (`Recorder.write_ahead`), and one `episode.json` at the end.

The loop hands the recorder each screen as soon as the phone shows it, with the
number of the step that will see it; the recorder writes its UI tree and PNG
while the step acts, so the step's line is all that is left when it ends. These
tests check that the files land before any line names them, that a screen looked
at again replaces the one written ahead, that a line never names a file that is
not whole, that files no line came to name are removed, and that a run writes an
attempt's `episode.json` twice (its start and its end), not three times.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest
from PIL import Image

import guilens.record_writer as writer_module
import guilens.recorder as recorder_module
from guilens.episode import EpisodeReader, Recorder
from tests.runner_helpers import SMALL, run, write_scenarios
from tests.test_recorder_memory import make_episode, make_step, ui_frame

XML = '<?xml version="1.0" ?><hierarchy rotation="0"><node text="{}" bounds="[0,0][10,10]"/></hierarchy>'


def _until(check, timeout: float = 10.0) -> bool:  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.01)
    return False


def test_a_screen_is_written_before_any_step_names_it(tmp_path: Path) -> None:
    rec = Recorder(tmp_path, make_episode())
    frame = ui_frame(1)
    rec.write_ahead(0, frame, XML.format("first"))
    png, ui = tmp_path / "screens" / "0000.png", tmp_path / "ui" / "0000.xml"
    assert _until(lambda: png.is_file() and ui.is_file())  # no step recorded yet
    assert (tmp_path / "steps.jsonl").read_text() == ""
    with Image.open(png) as im:
        assert im.convert("RGB").tobytes() == frame.tobytes()
    assert ui.read_text() == XML.format("first")
    rec.finish("success")


def test_a_step_of_a_screen_written_ahead_writes_only_its_line(tmp_path: Path) -> None:
    """Its files are not encoded or written a second time; the line names them, and they are whole."""
    rec = Recorder(tmp_path, make_episode())
    encodes: list[Image.Image] = []
    encode = rec._encoder.encode
    rec._encoder.encode = lambda img: encodes.append(img) or encode(img)  # type: ignore[method-assign]
    writes: list[str] = []
    real = writer_module.write_atomic

    def counted(path, data, **kw):  # type: ignore[no-untyped-def]
        writes.append(Path(path).relative_to(tmp_path).as_posix())
        return real(path, data, **kw)

    frames = [ui_frame(i) for i in range(3)]
    trees = [XML.format(i) for i in range(3)]
    try:
        writer_module.write_atomic = counted  # type: ignore[assignment]
        rec.write_ahead(0, frames[0], trees[0])
        for i in range(2):
            rec.write_ahead(i + 1, frames[i + 1], trees[i + 1])  # the phone after step i's action
            rec.record_step(make_step(i), frames[i], trees[i])
            rec.wait_durable()
        rec.finish("success", final_screen=frames[2], final_ui=trees[2])
    finally:
        writer_module.write_atomic = real  # type: ignore[assignment]
    assert len(encodes) == 3
    files = [w for w in writes if w.startswith(("screens/", "ui/"))]
    assert sorted(files) == sorted(f"{d}/{i:04d}.{x}" for i in range(3) for d, x in (("screens", "png"), ("ui", "xml")))
    reader = EpisodeReader(tmp_path)
    assert [s.screen for s in reader.steps] == ["screens/0000.png", "screens/0001.png"]
    assert [s.ui for s in reader.steps] == ["ui/0000.xml", "ui/0001.xml"]
    assert reader.episode.final_screen == "screens/0002.png"
    assert [reader.screen(i).tobytes() for i in range(3)] == [f.tobytes() for f in frames]
    assert [(tmp_path / f"ui/{i:04d}.xml").read_text() for i in range(3)] == trees


def test_a_screen_looked_at_again_replaces_the_one_written_ahead(tmp_path: Path) -> None:
    """An anomaly drawn, or a real phone that moved while paused: the step sees another screen under
    the same number, and that is the one on disk."""
    rec = Recorder(tmp_path, make_episode())
    first, again = ui_frame(1), ui_frame(2)
    rec.write_ahead(0, first, XML.format("first"))
    rec.write_ahead(0, again, XML.format("again"))
    rec.record_step(make_step(0), again, XML.format("again"))
    rec.finish("success")
    reader = EpisodeReader(tmp_path)
    assert reader.screen(0).tobytes() == again.tobytes()
    assert (tmp_path / "ui" / "0000.xml").read_text() == XML.format("again")


def test_files_no_step_came_to_name_are_removed(tmp_path: Path) -> None:
    """A screen written ahead for a step that never came (the attempt ended first) is not left behind;
    the final screen, numbered like the step that would have seen it, is kept."""
    rec = Recorder(tmp_path, make_episode())
    frames = [ui_frame(i) for i in range(3)]
    rec.write_ahead(0, frames[0], XML.format(0))
    rec.record_step(make_step(0), frames[0], XML.format(0))
    rec.write_ahead(1, frames[1], XML.format(1))
    rec.write_ahead(2, frames[2], XML.format(2))  # then the attempt ended on screen 1
    rec.wait_durable()
    assert _until(lambda: (tmp_path / "screens" / "0002.png").is_file())
    ep = rec.finish("error", final_screen=frames[1], final_ui=XML.format(1))
    assert ep.final_screen == "screens/0001.png"
    assert sorted(p.name for p in (tmp_path / "screens").iterdir()) == ["0000.png", "0001.png"]
    assert sorted(p.name for p in (tmp_path / "ui").iterdir()) == ["0000.xml", "0001.xml"]


def test_a_finished_recorder_holds_no_screen_written_ahead(tmp_path: Path) -> None:
    rec = Recorder(tmp_path, make_episode())
    rec.write_ahead(0, ui_frame(0), XML.format(0))
    rec.record_step(make_step(0), ui_frame(0), XML.format(0))
    rec.write_ahead(1, ui_frame(1), XML.format(1))
    rec.finish("success")
    assert rec._files == {} and rec._trees == {} and rec._backlog == {}


@pytest.mark.parametrize("attempts", [1, 2])
def test_a_run_writes_each_episode_json_at_its_start_and_its_end_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   attempts: int) -> None:
    """The end of an attempt used to rewrite `episode.json` twice (the recorder's, then again with the
    drain's time); once is enough, and what it says is complete."""
    tasks, _ = write_scenarios(tmp_path)
    writes: dict[str, int] = {}
    real = recorder_module.write_atomic

    def counted(path, data, **kw):  # type: ignore[no-untyped-def]
        if Path(path).name == "episode.json":
            writes[str(Path(path).parent)] = writes.get(str(Path(path).parent), 0) + 1
        return real(path, data, **kw)

    monkeypatch.setattr(recorder_module, "write_atomic", counted)
    result = run(f"{tasks}:budget", tmp_path / "runs", attempts=attempts, all_attempts=True)
    assert len(result.episodes) == attempts and all(ep.status == "success" for ep in result.episodes)
    assert len(writes) == attempts and set(writes.values()) == {2}, writes
    for attempt in writes:
        saved = json.loads((Path(attempt) / "episode.json").read_text())
        assert saved["status"] == "success" and saved["timings"]["drain_s"] is not None
        assert saved["final_state"] == "final_state.json"
        assert json.loads((Path(attempt) / "final_state.json").read_text())["apps"]


def test_a_screen_written_ahead_and_never_named_leaves_the_encoder_empty(tmp_path: Path) -> None:
    """Its encoding may still run when the attempt ends: the recorder waits for it before it lets the
    encoder's copy of the frame go, so a finished recorder kept alive holds no frame."""
    rec = Recorder(tmp_path, make_episode())
    encode = rec._encoder.encode
    slow = ui_frame(1)

    def encoding(img: Image.Image) -> bytes:
        if img is slow:
            time.sleep(0.3)  # still encoding when the attempt ends
        return encode(img)

    rec._encoder.encode = encoding  # type: ignore[method-assign]
    frame = ui_frame(0)
    rec.write_ahead(0, frame, XML.format(0))
    rec.record_step(make_step(0), frame, XML.format(0))
    rec.write_ahead(1, slow, XML.format(1))
    rec.finish("error")
    time.sleep(0.5)  # had the recorder not waited for it, the encoding would have ended by now
    assert rec._encoder.cached_bytes == 0
    assert not (tmp_path / "screens" / "0001.png").exists() and not (tmp_path / "ui" / "0001.xml").exists()


class _Threads:
    """An observer noting the names of the threads alive at each step."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def on_step(self, episode: object, step: object) -> None:
        self.names |= {t.name for t in threading.enumerate()}

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        if name.startswith("on_"):
            return lambda *args, **kwargs: None
        raise AttributeError(name)


def test_state_files_are_written_by_the_recorders_thread_not_one_per_attempt(tmp_path: Path) -> None:
    """The state log's writes go to the recorder's writer (`Recorder.later`): an attempt starts no
    thread of its own for them, and every step's state file is still there."""
    tasks, _ = write_scenarios(tmp_path)
    seen = _Threads()
    result = run(f"{tasks}:grocery", tmp_path / "runs", observers=[seen], attempts=2, all_attempts=True,
                 level="L1", screen=SMALL)
    assert len(result.episodes) == 2 and all(ep.status == "success" for ep in result.episodes)
    assert not any(name.startswith("state") for name in seen.names), seen.names
    for attempt in sorted((result.run_dir / "grocery").glob("attempt-*")):
        lines = [json.loads(line) for line in (attempt / "steps.jsonl").read_text().splitlines()]
        named = {line["state"] for line in lines if line.get("state")}
        assert named and all((attempt / rel).is_file() for rel in named)
        assert json.loads((attempt / "episode.json").read_text()).get("state_error") is None
