"""The recorder's writer thread: an attempt's files onto disk, in an order a reader can rely on.

Split from `guilens.recorder` (the producer's side: what the step loop hands
over) because this side runs on a thread of its own and owns its own state.
Its rules:

- a step line is appended after the files it names (its UI tree, then its PNG),
  with one `write()`, so a reader never meets a line whose screen is missing;
- what the queue asks for comes first: a line and the files it names;
- files written ahead (`Recorder.write_ahead`: a screen's UI tree and PNG, from
  the moment the phone shows it) wait in `_backlog` and are written when the
  queue is empty, a PNG once its encoding is done (its future wakes the writer),
  so they never hold up a line of an earlier step; a line that needs them
  writes them first;
- work handed over by `Recorder.later` (the state log's files) runs when there
  is neither, and all of it before the writer stops;
- the first write that fails stops the recording (`fault`): nothing queued
  after it is written.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from functools import partial
from pathlib import Path
from typing import Any

from guilens.episode_model import Step
from guilens.storage import StorageError, write_atomic

__all__ = ["RecordWriter"]


def _wake(q: queue.Queue[tuple[Any, ...] | None], _: object) -> None:
    q.put(("ready",))


class RecordWriter:
    """The writer thread's half of `guilens.recorder.Recorder` (a mixin: the recorder makes the queue,
    the file of step lines and the thread, and hands items over; this writes them)."""

    dir: Path
    fault: BaseException | None
    written: int
    bytes_written: int
    _queue: queue.Queue[tuple[Any, ...] | None]
    _cond: threading.Condition
    _fd: int
    _size: int
    _made: set[Path]
    _backlog: dict[int, list[Any]]
    _later: list[Callable[[], None]]

    def screen_path(self, index: int) -> str:
        return f"screens/{index:04d}.png"

    def ui_path(self, index: int) -> str:
        return f"ui/{index:04d}.xml"

    def _drain(self) -> None:
        """The writer's loop: what the queue asks for first (a line, and the files it names), and the
        files written ahead when nothing is asked (`_backlog`), so they never hold up a line."""
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                if self.fault is None and self._write_backlog():
                    continue
                if self.fault is None and self._later:
                    self._run_later()
                    continue
                item = self._queue.get()
            if item is None:  # closed: what is still written ahead no line or end named; not written
                self._backlog = {}
                while self._later and self.fault is None:
                    self._run_later()
                self._later = []
                return
            if self.fault is not None:  # stopped: what was still queued is dropped, unwritten
                self._backlog, self._later = {}, []
                for part in item[1:]:
                    if isinstance(part, Future):
                        part.cancel()
                continue
            try:
                kind = item[0]
                if kind == "step":
                    _, step, png, ui_xml = item
                    self._write_files(step.index, ui_xml, png)
                    self._append(step)
                    with self._cond:
                        self.written += 1
                        self._cond.notify_all()
                elif kind == "ahead":
                    _, index, png, ui_xml = item
                    files = self._backlog.setdefault(index, [None, None])
                    if ui_xml is not None:
                        files[0] = ui_xml
                    if png is not None:
                        files[1] = png
                        # when it is encoded, the writer wakes to write it (if idle by then); the callback
                        # holds the queue, not the recorder: a screen that keeps its future keeps no recorder
                        png.add_done_callback(partial(_wake, self._queue))
                elif kind == "later":
                    self._later.append(item[1])
                elif kind == "flush":
                    self._write_files(item[1], None, None)
                elif kind == "line":
                    self._append(item[1])
                elif kind == "state":
                    self._write_text(json.dumps(item[1], separators=(",", ":"), sort_keys=True, default=str),
                                     item[2])
            except BaseException as err:  # surfaced to the producer on its next call
                self._stop(err)

    def _run_later(self) -> None:
        with contextlib.suppress(Exception):  # its own errors are its to keep (`later`)
            self._later.pop(0)()

    def _stop(self, err: BaseException) -> None:
        if isinstance(err, OSError):
            err = StorageError.of(err.filename or self.dir, err)
        with self._cond:
            self.fault = err
            self._cond.notify_all()

    def _write_files(self, index: int, ui_xml: str | None, png: Future[bytes] | None) -> None:
        """Screen `index`'s UI tree and PNG onto disk, the tree first (its file is made while the
        screen may still be encoding): those given, else those written ahead and not yet written."""
        ahead = self._backlog.pop(index, None) or [None, None]
        ui_xml, png = ui_xml or ahead[0], png or ahead[1]
        if ui_xml is not None:
            self._write_text(ui_xml, self.ui_path(index))
        if png is not None:
            self.bytes_written += write_atomic(self.dir / self.screen_path(index), png.result())

    def _write_backlog(self) -> bool:
        """Write one file written ahead (lowest number first; a PNG only once encoded); False when
        there is none to write now."""
        for index in sorted(self._backlog):
            files = self._backlog[index]
            try:
                if files[0] is not None:
                    text, files[0] = files[0], None
                    self._write_text(text, self.ui_path(index))
                elif files[1] is not None and files[1].done():
                    fut, files[1] = files[1], None
                    self.bytes_written += write_atomic(self.dir / self.screen_path(index), fut.result())
                else:
                    continue
            except BaseException as err:
                self._stop(err)
            if files == [None, None]:
                del self._backlog[index]
            return True
        return False

    def _write_text(self, text: str, rel: str) -> None:
        path = self.dir / rel
        if path.parent not in self._made:  # once per folder, not once per step
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as err:
                raise StorageError.of(path.parent, err) from None
            self._made.add(path.parent)
        self.bytes_written += write_atomic(path, text)

    def _append(self, step: Step) -> None:
        """One line, one `write()`; a line the disk took only part of is cut off again."""
        line = (step.model_dump_json() + "\n").encode("utf-8")
        view = memoryview(line)
        try:
            while view:
                view = view[os.write(self._fd, view):]
        except OSError as err:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, self._size)
            raise StorageError.of(self.dir / "steps.jsonl", err) from None
        self._size += len(line)
        self.bytes_written += len(line)
