"""The replay's heap: left out of the collector's full passes while the replay is open.

Apart from `replay_frames` because it is about the process, not the screens: a replay
freezes what is alive when it opens, settles once its first step is shown, and thaws
when it closes; nested replays (a replay opened from the runs browser) count.
"""

from __future__ import annotations

import gc

_frozen: list[int] = [0]


def freeze_heap() -> None:
    """Leave every object alive now out of the collector's passes (`gc.freeze`), while the replay is open.

    Every frame drawn makes a few hundred Textual `Strip`s, so the collector runs often, and its
    full passes walked every object of the app (Textual, pydantic, the episode): 40-100 ms,
    landing on the first paint or on a jump at random. Frozen, a pass walks only what was made
    since. `settle_heap` (once the first step is shown) collects what was already garbage when
    the replay opened; `thaw_heap` (when it closes) gives everything back to the collector."""
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
