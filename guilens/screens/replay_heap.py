"""The replay's heap: collected while the person looks at a step, not while a step is being shown.

Apart from `replay_frames` because it is about the process, not the screens: a replay
freezes what is alive when it opens, settles once its first step is shown, and thaws
when it closes; nested replays (a replay opened from the runs browser) count.

Why the collector is scheduled here, by hand: every frame drawn makes thousands of Textual
`Strip`s and Rich `Segment`s, so CPython's collector, left to its allocation counts, ran in
the middle of paints. Measured over a 200-step replay session (`benchmarks/bench_replay.py`'s
jumps) it made 25 full passes of about 30 ms and 265 middle ones of about 1 ms, each landing
on whatever key the person had just pressed: the first step waited 15 ms for them, and one
jump in six took 60-70 ms where the others took 20-30. So while a replay is the screen in
front, the collector's automatic passes are off (`Collector.pause`), and the screen asks for a
pass (`Collector.tick`, on a timer) once no step has been asked for in `IDLE_S`, the moment a
person spends reading the step, or at least every `MOST_S` with a key held down, so what
is allocated stays bounded. The old generation is walked as often as CPython's own rule would
walk it, at such a moment too. (Freezing what survives each pass, so the next walks less, leaked:
cycles that die once frozen are never freed, 65 MB in 450 jumps.) The collector is back on
whenever the replay is not in front (another screen over it, or closed), as it was before the
replay opened, until the replay shows a step again.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

_frozen: list[int] = [0]

IDLE_S = 0.2
"""No step asked for this long: a person reading the step (a held key repeats every 30-50 ms)."""
MOST_S = 2.0
"""A pass at least this often while the collector is paused, idle or not."""
CHECK_S = 0.1
"""How often the replay screen asks `Collector.tick` whether a pass is due."""


def freeze_heap() -> None:
    """Leave every object alive now out of the collector's passes (`gc.freeze`), while the replay is open.

    Frozen, a pass walks only what was made since, not every object of the app (Textual, pydantic,
    the episode: 40-100 ms a pass). `settle_heap` (once the first step is shown) collects what was
    already garbage when the replay opened; `thaw_heap` (when it closes) gives everything back to
    the collector."""
    gc.freeze()
    _frozen[0] += 1


def settle_heap() -> None:
    """One full collection, then freeze again: for a moment the person spends looking."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def thaw_heap() -> None:
    if _frozen[0] > 0:
        _frozen[0] -= 1
        if not _frozen[0]:
            gc.unfreeze()


class Collector:
    """The heap and the collector's passes for one replay screen: frozen while it is open (`open`,
    `settle`, `close`), passes off while it is in front and run when it is idle.

    A collector that was off already when the replay paused it (a caller's `gc.disable()`) stays
    off: `resume` turns back on only what `pause` turned off."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._now = clock
        self._paused = False
        self.opened = False
        """Between `open` and `close`: the heap frozen for this screen."""
        self.asked = self.passed = self._now()
        self.passes = 0
        """Passes run by `tick` (for the tests and the benchmark)."""

    @property
    def paused(self) -> bool:
        return self._paused

    def open(self) -> None:
        """The replay opens: freeze the heap (`freeze_heap`) and pause the automatic passes."""
        if not self.opened:
            self.opened = True
            freeze_heap()
        self.pause()

    def settle(self) -> None:
        """The first step is shown: collect what was garbage when the replay opened (`settle_heap`)."""
        if self.opened:
            settle_heap()

    def close(self) -> None:
        """The replay closes: the automatic passes back on, the heap thawed (`thaw_heap`)."""
        self.resume()
        if self.opened:
            self.opened = False
            thaw_heap()

    def pause(self) -> None:
        """Automatic passes off (the replay is in front); `tick` runs them instead."""
        if not self._paused and gc.isenabled():
            gc.disable()
            self._paused = True
            self.passed = self._now()

    def resume(self) -> None:
        """Automatic passes back on, if `pause` turned them off."""
        if self._paused:
            self._paused = False
            gc.enable()

    def asked_for_step(self) -> None:
        """A step was asked for: the next `IDLE_S` belong to showing it, and so do the automatic passes'
        pause, even where a screen of the replay's own is still closing over it. `g`'s prompt asks for
        its step as it closes, before the replay hears it is in front again: the passes were on for
        that paint, two of them in every jump (4-7 ms a jump, more as the heap grew)."""
        self.asked = self._now()
        if self.opened:
            self.pause()

    def tick(self) -> bool:
        """Run a pass if one is due: idle for `IDLE_S`, or none for `MOST_S`; True if it ran.

        Nothing to do while fewer objects were made than a young generation holds."""
        if not self._paused or gc.get_count()[0] < gc.get_threshold()[0]:
            return False
        now = self._now()
        if now - self.asked < IDLE_S and now - self.passed < MOST_S:
            return False
        # The young generations; the old one too as often as CPython's own rule would run it (after
        # `threshold2` young passes). A young pass walks what was made since the last one (1-5 ms),
        # a full one every object made since the replay opened (30-60 ms at 200 steps).
        gc.collect(2 if gc.get_count()[2] >= gc.get_threshold()[2] else 1)
        self.passed = self._now()
        self.passes += 1
        return True
