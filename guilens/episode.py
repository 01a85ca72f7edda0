"""The episode record: what the runner writes and the TUI, judge and report read.

An attempt directory holds `episode.json` (rewritten atomically at start and at
end), `steps.jsonl` (one line per step, appended and flushed in order) and the
screens and UI trees the steps point at. A step line is written only after its
screenshot is on disk, so a reader never meets a step whose screen is missing,
however the writer died. PNG encoding runs on a background thread behind a
bounded queue: the step loop hands over the frame and moves on.

The models themselves (Episode, Step, Timings, ...) live in
`guilens.episode_model` and are re-exported here, so `from guilens.episode
import Step` keeps working; changing a field's meaning needs a `SCHEMA_VERSION`
bump there.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import Any

from PIL import Image
from pydantic import ValidationError

from guilens.episode_model import (
    FINAL_STATUSES,
    SCHEMA_VERSION,
    Ask,
    Episode,
    LTMEntry,
    Memory,
    MilestoneHit,
    Status,
    Step,
    StepTimings,
    Timings,
    Usage,
)
from guilens.png import FrameEncoder

__all__ = [
    "FINAL_STATUSES", "SCHEMA_VERSION", "Ask", "Episode", "EpisodeError", "EpisodeReader", "LTMEntry", "Memory",
    "MilestoneHit", "Recorder", "Status", "Step", "StepTimings", "Timings", "Usage", "encode_png", "find_episodes",
    "monotonic", "now",
]


class EpisodeError(ValueError):
    """An episode directory that cannot be read; the message names the file."""


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def encode_png(img: Image.Image, path: Path, encoder: FrameEncoder | None = None) -> int:
    """Write `img` losslessly and small; return the bytes written.

    A recorder passes its own `FrameEncoder`, so bands of rows that did not
    change since an earlier step of the episode are not compressed again.
    """
    data = (encoder or FrameEncoder()).encode(img)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
    return len(data)


class Recorder:
    """Writes one attempt directory. Thread-safe for one producer (the step loop)."""

    def __init__(self, directory: Path, episode: Episode, *, max_pending: int = 8, encoders: int = 2) -> None:
        self.dir = Path(directory)
        (self.dir / "screens").mkdir(parents=True, exist_ok=True)
        self.episode = episode
        self.episode.pid = os.getpid()
        self.episode.host = socket.gethostname()
        self.steps: list[Step] = []
        self.bytes_written = 0
        self._queue: queue.Queue[tuple[Any, ...] | None] = queue.Queue(maxsize=max_pending)
        # Encoders run in parallel (Pillow releases the GIL while compressing); one writer
        # thread takes their results in step order, so lines land in order after their PNGs.
        self._pool = ThreadPoolExecutor(max_workers=encoders, thread_name_prefix="png")
        self._encoder = FrameEncoder()
        self._error: BaseException | None = None
        self._steps_file = open(self.dir / "steps.jsonl", "a", encoding="utf-8")  # noqa: SIM115
        self._writer = threading.Thread(target=self._drain, name=f"recorder-{self.dir.name}", daemon=True)
        self._writer.start()
        self._closed = False
        self.write_episode()

    # -- producer side ----------------------------------------------------------------------
    def screen_path(self, index: int) -> str:
        return f"screens/{index:04d}.png"

    def record_step(self, step: Step, screenshot: Image.Image | None, ui_xml: str | None = None) -> None:
        """Queue a step; its line is appended once its screenshot is on disk. Blocks only when the queue is full."""
        self._raise_writer_error()
        png = None
        if screenshot is not None:
            step.screen = self.screen_path(step.index)
            png = self._pool.submit(encode_png, screenshot, self.dir / step.screen, self._encoder)
        if ui_xml is not None:
            step.ui = f"ui/{step.index:04d}.xml"
        self.steps.append(step)
        self.episode.steps = len(self.steps)
        self._queue.put(("step", step, png, ui_xml))

    def update_step(self, step: Step) -> None:
        """Append a corrected line for a step already recorded (annotations); readers keep the last line per index."""
        self._queue.put(("line", step))

    def write_episode(self) -> None:
        _atomic_write(self.dir / "episode.json", self.episode.model_dump_json(indent=2))

    def finish(
        self,
        status: Status,
        *,
        final_screen: Image.Image | None = None,
        final_ui: str | None = None,
        final_state: dict[str, Any] | None = None,
        error: str | None = None,
    ) -> Episode:
        """End the episode: drain the writer, save the final screen and state, rewrite episode.json."""
        ep = self.episode
        if final_screen is not None:
            ep.final_screen = self.screen_path(len(self.steps))
            self._queue.put(("image", self._pool.submit(encode_png, final_screen, self.dir / ep.final_screen, self._encoder)))
            if final_ui is not None:
                self._queue.put(("text", final_ui, f"ui/{len(self.steps):04d}.xml"))
        if final_state is not None:
            ep.final_state = "final_state.json"
            self._queue.put(("text", json.dumps(final_state, indent=1, sort_keys=True), ep.final_state))
        self.close()
        ep.status = status
        if error:
            ep.error = error
        ep.timings.ended_at = datetime.now().astimezone()
        ep.timings.duration_s = round((ep.timings.ended_at - ep.timings.started_at).total_seconds(), 3)
        usage = sum((s.usage for s in self.steps), Usage())
        ep.tokens = usage
        ep.cost_usd = round(usage.cost_usd, 6)
        ep.user_turns = sum(1 for s in self.steps if s.ask is not None)
        ep.human_steps = sum(1 for s in self.steps if s.by == "human")
        ep.pid = None
        self.write_episode()
        return ep

    def close(self) -> None:
        """Drain pending writes. Safe to call twice; `finish` calls it."""
        if self._closed:
            return
        self._closed = True
        self._queue.put(None)
        self._writer.join()
        self._pool.shutdown(wait=True)
        self._steps_file.close()
        self._raise_writer_error()

    def _raise_writer_error(self) -> None:
        if self._error is not None:
            err, self._error = self._error, None
            raise OSError(f"could not write the episode in {self.dir}: {err}") from err

    # -- writer thread ----------------------------------------------------------------------
    def _drain(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            try:
                kind = item[0]
                if kind == "step":
                    _, step, png, ui_xml = item
                    if png is not None:
                        self.bytes_written += png.result()
                    if ui_xml is not None:
                        self._write_text(ui_xml, step.ui)
                    self._append(step)
                elif kind == "line":
                    self._append(item[1])
                elif kind == "image":
                    self.bytes_written += item[1].result()
                elif kind == "text":
                    self._write_text(item[1], item[2])
            except BaseException as err:  # surfaced to the producer on its next call
                self._error = err

    def _write_text(self, text: str, rel: str) -> None:
        path = self.dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        _atomic_write(path, text)
        self.bytes_written += len(text.encode())

    def _append(self, step: Step) -> None:
        line = step.model_dump_json() + "\n"
        self._steps_file.write(line)
        self._steps_file.flush()
        self.bytes_written += len(line)


def _pid_alive(pid: int | None, host: str | None) -> bool:
    if not pid or (host and host != socket.gethostname()):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class EpisodeReader:
    """Opens an attempt directory lazily: the step index first, images on demand.

    A writer that died leaves a consistent prefix: a truncated last line is
    dropped, every complete step is kept, and the status reads `interrupted`.
    """

    def __init__(self, directory: Path | str) -> None:
        self.dir = Path(directory)
        ep_path = self.dir / "episode.json"
        if not ep_path.is_file():
            raise EpisodeError(f"{ep_path}: no episode.json here; is this an attempt directory?")
        try:
            self.episode = Episode.model_validate_json(ep_path.read_text(encoding="utf-8"))
        except ValidationError as err:
            raise EpisodeError(f"{ep_path}: not a guilens episode: {err.errors()[0]['msg']}") from None
        except ValueError as err:
            raise EpisodeError(f"{ep_path}: {err}") from None
        if self.episode.schema_version > SCHEMA_VERSION:
            raise EpisodeError(
                f"{ep_path}: schema_version {self.episode.schema_version} is newer than this guilens reads "
                f"({SCHEMA_VERSION}); upgrade guilens"
            )
        self.dropped_lines = 0
        self._steps: list[Step] | None = None
        self.interrupted = self.episode.status == "running" and not _pid_alive(self.episode.pid, self.episode.host)
        if self.interrupted:
            self.episode.status = "interrupted"

    @property
    def steps(self) -> list[Step]:
        if self._steps is None:
            self._steps = self._load_steps()
            if self.interrupted:
                self.episode.steps = len(self._steps)
        return self._steps

    def _load_steps(self) -> list[Step]:
        path = self.dir / "steps.jsonl"
        if not path.exists():
            return []
        by_index: dict[int, Step] = {}
        raw = path.read_bytes()
        lines = raw.split(b"\n")
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                step = Step.model_validate_json(line)
            except (ValidationError, ValueError):
                last = n == len(lines) or (n == len(lines) - 1 and not lines[-1])
                if last and not raw.endswith(b"\n"):
                    self.dropped_lines += 1  # a line cut short by a crash
                    continue
                raise EpisodeError(f"{path}:{n}: not a valid step line") from None
            by_index[step.index] = step
        return [by_index[i] for i in sorted(by_index)]

    def __len__(self) -> int:
        return len(self.steps)

    def __iter__(self) -> Iterator[Step]:
        return iter(self.steps)

    def screen(self, index: int) -> Image.Image | None:
        """The screen the agent saw at step `index`; `index == len(steps)` is the final screen."""
        rel = self.steps[index].screen if index < len(self.steps) else self.episode.final_screen
        if rel is None:
            return None
        path = self.dir / rel
        if not path.exists():
            return None
        with Image.open(path) as img:
            return img.convert("RGB")

    def ui_xml(self, index: int) -> str | None:
        rel = self.steps[index].ui if index < len(self.steps) else f"ui/{index:04d}.xml"
        if rel is None or not (self.dir / rel).exists():
            return None
        return (self.dir / rel).read_text(encoding="utf-8")

    def final_state(self) -> dict[str, Any] | None:
        if not self.episode.final_state:
            return None
        path = self.dir / self.episode.final_state
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None

    def verdict(self) -> dict[str, Any] | None:
        path = self.dir / "verdict.json"
        if not path.exists():
            return None
        with contextlib.suppress(ValueError):
            return json.loads(path.read_text(encoding="utf-8"))
        return None


def find_episodes(root: Path | str) -> list[Path]:
    """Every attempt directory under `root` (a run, a task or an attempt directory), sorted."""
    root = Path(root)
    if (root / "episode.json").is_file():
        return [root]
    return sorted(p.parent for p in root.rglob("episode.json"))


def now() -> datetime:
    return datetime.now().astimezone()


def monotonic() -> float:
    return time.perf_counter()
