"""The recorder: what the runner writes into an attempt directory, step by step.

An attempt directory holds `episode.json` (rewritten atomically at start and at
end), `steps.jsonl` (one line per step, appended in order) and the screens and
UI trees the steps point at. A step line is written only after its screenshot
is on disk, so a reader (`guilens.episode.EpisodeReader`) never meets a step
whose screen is missing, however the writer died. PNG encoding runs on a
thread pool; the step loop hands a frame over and goes on to the agent's next
decision, and waits for the line only before it acts again. A screen that
arrived encoded (`guilens.encoded_screen.EncodedScreen`, from a device in a process of
its own, which encodes where it draws) is written as the bytes it came in.

A step's files are written ahead of its line (`write_ahead`): a screen's number
is known as soon as the phone shows it (the step that will see it, or the final
screen, which takes the same number), so its UI tree is written at once and its
PNG the moment the encoder has it, while the step acts. When the step ends only
its line is left to write, and the loop, waiting for that line before it acts
again, waits for one `write()`, not for two files to be made (making a file is
most of a write's cost: about 0.3-0.5 ms of kernel time each on the ext4 disk
these benchmarks run on, against 10 us to append a line). The order on disk is
unchanged (a line after its files), so a kill still loses at most the step in
flight; a file written ahead that no line or `episode.json` came to name (the
attempt ended first) is removed when the recorder finishes.

The encoder threads are the process's, shared by every recorder (`encoder_pool`):
an attempt on the simulated phone lasts a fraction of a second, and starting and
joining a pool of its own cost a few ms an attempt (measured: 0.19 s of thread
starts over the 26 attempts of the memory pack). Threads, not processes:
handing a 7.8 MB frame to another process would cost the loop about half of
what encoding it here does (0.9 ms to take the pixels out alone, of ~2 ms;
`guilens.png`), and the encoders would still take the second of two cores
from the phone. What a recorder holds of the screens (the encoder's copy of the
last frame, the screens being encoded ahead) it lets go when it closes, so a
finished attempt kept alive by a reference cycle (they are, until a full
garbage collection) holds no screen: without that the memory pack's RSS grew
about 9 MB an attempt.
"""

from __future__ import annotations

import contextlib
import os
import queue
import socket
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import Any

from PIL import Image

from guilens.encoded_screen import encoded_future
from guilens.episode_model import Episode, Status, Step, Usage
from guilens.png import FrameEncoder
from guilens.record_writer import RecordWriter
from guilens.storage import Reserve, StorageError, remove_temporaries, write_atomic

__all__ = ["Recorder", "encode_png", "encoder_pool"]

ENCODERS = 2
"""Encoder threads per process: PNG encoding runs beside the step loop, on the machine's other core."""
_pool_lock = threading.Lock()
_pool: tuple[int, ThreadPoolExecutor] | None = None


def encoder_pool() -> ThreadPoolExecutor:
    """The process's PNG encoder threads, started on first use (again in a forked child, whose copy of
    the parent's pool has no threads behind it)."""
    global _pool
    with _pool_lock:
        if _pool is None or _pool[0] != os.getpid():
            _pool = (os.getpid(), ThreadPoolExecutor(max_workers=ENCODERS, thread_name_prefix="png"))
        return _pool[1]


def _forget_pool() -> None:
    """In a forked child: a new lock (the parent's may have been held by a thread that is not here)."""
    global _pool_lock, _pool
    _pool_lock, _pool = threading.Lock(), None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def encode_png(img: Image.Image, path: Path, encoder: FrameEncoder | None = None) -> int:
    """Write `img` losslessly and small; return the bytes written. Raises `StorageError` naming `path`.

    A recorder passes its own `FrameEncoder`, so bands of rows that did not
    change since an earlier step of the episode are not compressed again.
    """
    return write_atomic(path, (encoder or FrameEncoder()).encode(img))


def _remember(table: dict[int, Any], index: int, value: Any) -> None:
    """`table[index] = value`, forgetting numbers more than one below `index` (a step's own screen and
    the next one are all the loop hands over twice; a table of every screen would hold them all)."""
    table[index] = value
    for old in [n for n in table if n < index - 1]:
        del table[old]


class Recorder(RecordWriter):
    """Writes one attempt directory. Thread-safe for one producer (the step loop).

    Durable means written to the operating system: a step line is appended with
    one `write()` after its screen and UI tree are in place, and what a process
    has written survives its being killed. The loop calls `wait_durable()`
    before it acts again (`guilens.run.attempt`), so it is never more than one
    step ahead of the record and a kill loses at most the step in flight, while
    the encoding still runs off the loop's thread, beside the agent's next decision.

    A write that fails (a full disk, a file-size limit, a folder made read-only)
    stops the recording: nothing more is written but the end of the record,
    `fault` says what failed, and the step loop hears it as a `StorageError` on
    its next call. Every step line already written stays whole (a line cut
    short is cut off again), and `finish` marks the episode `error` with the
    reason, giving up the run's `reserve` if the disk is full; what it still
    cannot write is kept in `unmarked` for the run to report.
    """

    def __init__(self, directory: Path, episode: Episode, *, reserve: Reserve | None = None) -> None:
        self.dir = Path(directory)
        self.reserve = reserve
        self.episode = episode
        self.episode.pid = os.getpid()
        self.episode.host = socket.gethostname()
        self.steps: list[Step] = []
        self.bytes_written = 0
        self.written = 0
        """Step lines on disk (corrections of a step already written not counted)."""
        self.fault: BaseException | None = None
        """The write that stopped the recording (a `StorageError`, or a bug in encoding), if one did."""
        self.unmarked: StorageError | None = None
        """The last write of `episode.json` that failed (the episode's end is not on disk), if it did."""
        try:
            (self.dir / "screens").mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.dir / "steps.jsonl", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        except OSError as err:
            raise StorageError.of(err.filename or self.dir, err) from None
        self._size = os.fstat(self._fd).st_size
        try:
            self.write_episode()
        except StorageError:
            os.close(self._fd)
            raise
        self._cond = threading.Condition()
        self._queue: queue.Queue[tuple[Any, ...] | None] = queue.Queue()
        # Unbounded: an encoder thread puts "ready" here when a PNG written ahead is done, and must never
        # block (the writer may be waiting on the encoders); the loop is bounded by `wait_durable` anyway.
        # Encoders run in parallel (the deflate releases the GIL); one writer thread takes
        # their results in step order, so lines land in order after their PNGs.
        self._pool = encoder_pool()
        self._encoder = FrameEncoder()
        self._ahead: list[tuple[Image.Image, Future[bytes]]] = []
        """Screens being encoded since they were seen, before a step names them (`encode_ahead`)."""
        self._last: tuple[Image.Image, Future[bytes]] | None = None
        """The screen last handed over with its PNG: handed over again, it is not encoded again."""
        self._made: set[Path] = set()
        """Folders the writer has made (`ui/`): checked once, not at every step."""
        self._files: dict[int, Image.Image] = {}
        """Per screen number, the screen whose PNG was handed to the writer (`write_ahead`, `record_step`):
        the last two numbers only, so the recorder holds no more screens than before."""
        self._trees: dict[int, str] = {}
        """Per screen number, the UI tree handed to the writer (the last two numbers)."""
        self._numbers: set[int] = set()
        """Every screen number written ahead: those no line came to name are removed at the end."""
        self._later: list[Callable[[], None]] = []
        """The writer's own: work handed over by `later`, not run yet."""
        self._backlog: dict[int, list[Any]] = {}
        """The writer's own: per screen number, the UI tree and PNG (a future) written ahead and not
        on disk yet. Written when the writer has nothing else to do, or at once when a line needs them."""
        self._writer = threading.Thread(target=self._drain, name=f"recorder-{self.dir.name}", daemon=True)
        self._writer.start()
        self._closed = False

    # -- producer side ----------------------------------------------------------------------
    def encode_ahead(self, screenshot: Image.Image) -> None:
        """Start encoding a screen as soon as the phone shows it: the screen the next step (or the end)
        will record, so its PNG is ready, or nearly, by the time the loop waits for that step's line."""
        if encoded_future(screenshot) is not None:
            return  # it arrived as a PNG (a device in a process of its own): nothing to encode
        if self.fault is None and not self._closed and not any(img is screenshot for img, _ in self._ahead):
            self._ahead = [*self._ahead[-1:], (screenshot, self._pool.submit(self._encoder.encode, screenshot))]

    def write_ahead(self, index: int, screenshot: Image.Image | None, ui_xml: str | None = None) -> None:
        """The phone shows a new screen, the one step `index` will see (or the final screen: it takes
        the same number): write its UI tree now and its PNG as soon as it is encoded, so the step's
        line is all that is left when the step ends. Handing the same screen again changes nothing;
        another screen for the same number (the phone looked at again) replaces it."""
        if self.fault is not None or self._closed:
            return
        png = None
        if screenshot is not None and self._files.get(index) is not screenshot:
            png = self._encoded(screenshot)
            _remember(self._files, index, screenshot)
        if ui_xml is not None and self._trees.get(index) is ui_xml:
            ui_xml = None
        elif ui_xml is not None:
            _remember(self._trees, index, ui_xml)
        if png is not None or ui_xml is not None:
            self._numbers.add(index)
            self._queue.put(("ahead", index, png, ui_xml))

    def _encoded(self, screenshot: Image.Image) -> Future[bytes]:
        """The PNG of `screenshot`: encoded ahead, or the last one handed over again (a step that left
        the phone alone, the final screen after `answer`), or encoded now; or the PNG it arrived in, as it
        is (an `EncodedScreen`: the bytes the device's process encoded, never decoded here)."""
        png = encoded_future(screenshot)
        if png is not None:  # its bytes may still be on their way: the writer waits for them, not the loop
            return png
        for n, (img, ahead) in enumerate(self._ahead):
            if img is screenshot:
                del self._ahead[: n + 1]
                fut = ahead
                break
        else:
            if self._last is not None and self._last[0] is screenshot:
                return self._last[1]
            fut = self._pool.submit(self._encoder.encode, screenshot)
        self._last = (screenshot, fut)
        return fut

    def record_step(self, step: Step, screenshot: Image.Image | None, ui_xml: str | None = None) -> None:
        """Hand a step over; its line is appended once its screenshot is on disk. Raises the recording's
        fault, if it has one (nothing is written after a fault)."""
        self._check()
        png = None
        if screenshot is not None:
            step.screen = self.screen_path(step.index)
            if self._files.get(step.index) is not screenshot:  # else written ahead (or being written)
                png = self._encoded(screenshot)
                _remember(self._files, step.index, screenshot)
        if ui_xml is not None:
            step.ui = self.ui_path(step.index)
            if self._trees.get(step.index) is ui_xml:
                ui_xml = None
            else:
                _remember(self._trees, step.index, ui_xml)
        self.steps.append(step)
        self.episode.steps = len(self.steps)
        self._queue.put(("step", step, png, ui_xml))

    def later(self, fn: Callable[[], None]) -> None:
        """Run `fn` on the writer's thread, in the order given, when it has nothing else to write, and
        before `close` returns (the state log's files: `guilens.run.statelog`). `fn` keeps its own
        errors; one it lets out is dropped, as an executor's would be. After a fault it is not run."""
        if self.fault is None and not self._closed:
            self._queue.put(("later", fn))

    def wait_durable(self) -> None:
        """Block until every step handed over has its line on disk; raise the recording's fault if it has one."""
        want = len(self.steps)
        with self._cond:
            while self.written < want and self.fault is None:
                self._cond.wait()
        self._check()

    def update_step(self, step: Step) -> None:
        """Append a corrected line for a step already recorded (annotations); readers keep the last line per index."""
        if self.fault is None and not self._closed:
            self._queue.put(("line", step))

    def write_episode(self) -> None:
        """Rewrite `episode.json` atomically. Raises `StorageError`."""
        write_atomic(self.dir / "episode.json", self.episode.model_dump_json(indent=2), reserve=self.reserve)

    def save_episode(self) -> bool:
        """`write_episode` for the end of an attempt: a failure is kept in `unmarked`, not raised."""
        try:
            self.write_episode()
        except StorageError as err:
            self.unmarked = err
            return False
        self.unmarked = None
        return True

    def finish(
        self,
        status: Status,
        *,
        final_screen: Image.Image | None = None,
        final_ui: str | None = None,
        final_state: dict[str, Any] | None = None,
        error: str | None = None,
        save: bool = True,
    ) -> Episode:
        """End the episode: drain the writer, save the final screen and state, rewrite episode.json.

        After a fault the episode ends `error`, saying what could not be written; its final screen and
        state are not attempted. Never raises for the disk: see `fault` and `unmarked`. With
        `save=False` the caller rewrites `episode.json` itself (`save_episode`), once, after adding
        to the episode what the drain decided (its time, the state log's error).
        """
        ep = self.episode
        last = len(self.steps)
        if final_screen is not None and self.fault is None:  # the screen the end sees: number `last`
            ep.final_screen = self.screen_path(last)
            self.write_ahead(last, final_screen, final_ui)
            self._queue.put(("flush", last))
        if final_state is not None and self.fault is None:
            ep.final_state = "final_state.json"
            self._queue.put(("state", final_state, ep.final_state))
        self.close()
        self._remove_unnamed(last if ep.final_screen else None)
        if self.fault is not None:
            status, error = "error", error or f"recording stopped: {self.fault}"
            for name in ("final_screen", "final_state"):
                rel = getattr(ep, name)
                if rel and not (self.dir / rel).is_file():
                    setattr(ep, name, None)
            remove_temporaries(self.dir)
        ep.status = status
        if error:
            ep.error = error
        ep.steps = self.written
        ep.timings.ended_at = datetime.now().astimezone()
        ep.timings.duration_s = round((ep.timings.ended_at - ep.timings.started_at).total_seconds(), 3)
        usage = sum((s.usage for s in self.steps), Usage())
        ep.tokens = usage
        ep.cost_usd = round(usage.cost_usd, 6)
        ep.user_turns = sum(1 for s in self.steps[: self.written] if s.ask is not None)
        ep.human_steps = sum(1 for s in self.steps[: self.written] if s.by == "human")
        ep.pid = None
        if save:
            self.save_episode()
        return ep

    def _remove_unnamed(self, final: int | None) -> None:
        """Remove the files written ahead for screens no line and no `episode.json` names: the
        attempt ended (or the recording stopped) before a step came to see them."""
        named = set(range(self.written)) | ({final} if final is not None else set())
        for index in self._numbers - named:
            for rel in (self.screen_path(index), self.ui_path(index)):
                with contextlib.suppress(OSError):
                    (self.dir / rel).unlink()
        self._numbers = set()

    def close(self) -> None:
        """Drain pending writes. Safe to call twice; `finish` calls it. Does not raise: see `fault`."""
        if self._closed:
            return
        self._closed = True
        ahead = [*self._ahead, *([self._last] if self._last is not None else [])]
        self._ahead, self._last, self._files, self._trees = [], None, {}, {}
        self._queue.put(None)
        self._writer.join()
        for _, fut in ahead:  # a screen no step or end came to name: let it finish before the clear
            if not fut.cancel():
                with contextlib.suppress(BaseException):
                    fut.result()
        self._encoder.clear()  # its copy of the last frame; a reference kept to the recorder keeps no screen
        with contextlib.suppress(OSError):
            os.close(self._fd)

    def _check(self) -> None:
        if self.fault is not None:
            raise self.fault
