"""The replay's decoded screens: each PNG read once, on a pool of threads, the last few kept.

Apart from `replay_frames` (what the phones are shown, prepared ahead of the person) because this
is only the reading. `EpisodeScreens` decodes screens on a pool of three threads (Pillow lets go
of the GIL while it inflates, so a step's two screens decode side by side on two cores, even
while one neighbour is still being read ahead, and while Textual paints) and keeps the last few
decoded, by index, least recently used first out. A screen asked for twice is decoded once (the
cache holds the future, not the result). `decodes` counts real decodes, for tests and the
benchmark.

Pillow's decoder, not a faster one: ISA-L's inflate with numpy reads the recorder's PNGs in 3 ms
against Pillow's 8, pixel for pixel, but holds the GIL while it inflates, and made the replay's
first step and cold jumps slower, not faster (measured side by side: 155 against 135 ms, 139
against 116 ms).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from PIL import Image

from guilens.episode import EpisodeReader


@dataclass(frozen=True)
class Shot:
    """One recorded screen: the image (None if there is none, or it cannot be read) and its UI tree."""

    index: int
    image: Image.Image | None
    ui_xml: str | None
    problem: str | None = None
    """Why the image could not be read, naming the file."""


def read_shot(reader: EpisodeReader, index: int) -> Shot:
    """Screen `index` (`len(steps)`: the final screen), decoded. Never raises for a bad file."""
    steps = reader.steps
    rel = steps[index].screen if index < len(steps) else reader.episode.final_screen
    image, problem = None, None
    if rel is not None and (reader.dir / rel).exists():
        path = reader.dir / rel
        try:
            with Image.open(path) as img:
                img.load()
                # `convert` copies even an RGB image: 8 MB at this size, for nothing.
                image = img if img.mode == "RGB" else img.convert("RGB")
        except (OSError, SyntaxError, ValueError) as err:  # Pillow raises SyntaxError for a broken PNG
            problem = f"{path}: cannot read this screen: {err}"
    try:
        ui = reader.ui_xml(index)
    except (OSError, UnicodeDecodeError):
        ui = None
    return Shot(index, image, ui, problem)


class EpisodeScreens:
    """Decoded screens of one episode by index: at most `capacity` kept, decoded by a pool of threads."""

    def __init__(self, reader: EpisodeReader, *, capacity: int = 8, workers: int = 3) -> None:
        self.reader = reader
        self.count = len(reader.steps) + 1  # every step's screen and the final one
        self.capacity = capacity
        self.decodes = 0
        self._lock = threading.Lock()
        self._cache: OrderedDict[int, Future[Shot]] = OrderedDict()
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="replay-decode")
        self._closed = False

    @classmethod
    def opening(cls, reader: EpisodeReader) -> EpisodeScreens:
        """The episode's screens with its first step's two (before and after) already decoding: made
        as soon as the episode is open, so they decode while the rest opens (`guilens replay`: the
        terminal's probe and Textual's start; the runs browser: the replay screen's own set-up)."""
        screens = cls(reader)
        if reader.steps:
            screens.future(0)
            screens.future(1)
        return screens

    def _decode(self, index: int) -> Shot:
        with self._lock:
            self.decodes += 1
        return read_shot(self.reader, index)

    def future(self, index: int) -> Future[Shot]:
        """Screen `index`, decoded or being decoded (started now if it was neither)."""
        with self._lock:
            fut = self._cache.get(index)
            if fut is not None:
                self._cache.move_to_end(index)
                return fut
            if self._closed:
                fut = Future()
                fut.set_result(Shot(index, None, None))
                return fut
            fut = self._pool.submit(self._decode, index)
            self._cache[index] = fut
            while len(self._cache) > self.capacity:
                self._cache.popitem(last=False)
            return fut

    def when_decoded(self, index: int, then: Callable[[Future[Shot]], None]) -> None:
        """Call `then(future)` on a decoding thread once screen `index` is decoded: on the thread that
        decodes it, or on another of the pool's if it is decoded already. Never on the caller's (the
        event loop), as `add_done_callback` alone would for a future already done."""
        caller = threading.get_ident()

        def run(fut: Future[Shot]) -> None:
            if threading.get_ident() != caller:
                then(fut)
                return
            with self._lock:
                if self._closed:
                    return
                self._pool.submit(then, fut)

        self.future(index).add_done_callback(run)

    def get(self, index: int) -> Shot:
        return self.future(index).result()

    def ready(self, index: int) -> Shot | None:
        """Screen `index` if it is decoded already, else None (starts nothing)."""
        with self._lock:
            fut = self._cache.get(index)
        return fut.result() if fut is not None and fut.done() else None

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._cache.clear()
        self._pool.shutdown(wait=False, cancel_futures=True)
