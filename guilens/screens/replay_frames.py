"""The replay's screens: decoded once, off the event loop, ahead of the person.

A step shows two screens, the one it saw and the one its action left, and the
second is the first of the next step. Decoding a 1080x2400 PNG takes 20-60 ms
and shrinking it for the phone view a few more, so the replay used to spend
100-200 ms on every jump, and paid them again on the way back. Here:

- `EpisodeScreens` (`replay_decode`) decodes the screens on a pool of threads
  and keeps the last few decoded.
- `ReplayLoader` is one thread that serves the step in view first and then,
  once that step is painted (`painted`; the neighbours' Python work would hold
  the GIL in bursts through the paint), prepares its neighbours (next two,
  previous one): their screens decoded and their phone frames already shrunk
  and drawn with the action, so ← and → cost the event loop only the handing
  over. The first step's frames are made by the threads that decode its
  screens (`prepare_when_decoded`), while Textual mounts. A newer request supersedes the
  one in progress: its result is not delivered, and the prefetch stops without
  waiting for the decode it started (one at a time, so the new step's two
  screens always find two free threads).
  Nothing beyond the neighbours is read, so memory and work stay flat with the
  episode's length.
- `expect` prepares a step that is likely next without delivering it: `g`'s
  prompt reports each keystroke, and the step whose number is typed so far is
  prepared while the person types on (each keystroke supersedes the last; a
  request still to be delivered is never dropped for it). Enter then finds its
  frames ready. `wait_ready` lets the event loop wait for a requested step where
  it would otherwise paint the step it is leaving (the whole screen, when the
  prompt closes), holding the GIL that the decoders need.

Written by hand because what is cached is two-layered (decoded screens by
index, frames by index and the phone's geometry) and must be single-flight
across threads; `functools.lru_cache` is neither, and the pool is
`concurrent.futures`'.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import Future
from concurrent.futures import wait as futures_wait
from dataclasses import dataclass
from functools import partial
from typing import Any

from PIL import Image

from guilens.screens.replay_decode import EpisodeScreens, Shot
from guilens.screens.widgets.halfcell import HalfcellFrame

AHEAD = (1, 2, -1)
"""The steps prepared after the one in view, in order: the next two, then the previous one."""
PAINT_WAIT = 0.25
"""Seconds the loader waits for the step it delivered to be painted before preparing its neighbours."""
@dataclass(frozen=True)
class Pair:
    """What a step shows: its screen with its action drawn, and the next screen; frames when prepared."""

    index: int
    before: Shot
    after: Shot
    before_frame: HalfcellFrame | None = None
    after_frame: HalfcellFrame | None = None
    before_text: Any = None
    after_text: Any = None
    """The screens' UI trees laid out for the text view (`TextFrame`), when it is shown."""


Prepare = Callable[[Image.Image, "dict[str, Any] | None"], "HalfcellFrame | None"]
PrepareText = Callable[["str | None", "tuple[int, int]", "dict[str, Any] | None"], Any]


def _no_text(ui_xml: str | None, screen_size: tuple[int, int], action: dict[str, Any] | None) -> Any:
    return None


class ReplayLoader:
    """One thread: the requested step's pair first, then its neighbours' (see the module docstring).

    `prepare(image, action)` makes a phone frame (None when the phone makes its own: before its
    first layout, or for a full-resolution renderer), and `prepare_text(ui_xml, screen_size, action)`
    the text view's layout of the screen (None when no text is shown); `frame_key()` names what a
    frame depends on (the phone's box, magnified part, renderer) and `text_key()` what a layout does
    (the text's size, magnified part), so a resize never serves either at the old size.
    `deliver(pair)` is called from the loader's thread; it must not block. `laid_out()` says whether
    the phones know their size yet: the first step waits for it (up to a second), so its frames are
    made once, at the right size, while the screen's first paint is under way.
    """

    def __init__(self, screens: EpisodeScreens, actions: list[dict[str, Any] | None], *, prepare: Prepare,
                 frame_key: Callable[[], Hashable], deliver: Callable[[Pair], object], frames: int = 32,
                 laid_out: Callable[[], bool] = lambda: True, prepare_text: PrepareText = _no_text,
                 text_key: Callable[[], Hashable] = lambda: None) -> None:
        self.screens = screens
        self.actions = actions
        self.prepare = prepare
        self.prepare_text = prepare_text
        self.text_key = text_key
        self.frame_key = frame_key
        self.deliver = deliver
        self.laid_out = laid_out
        self._frames: OrderedDict[tuple[Hashable, ...], HalfcellFrame | None] = OrderedDict()
        self._texts: OrderedDict[tuple[Hashable, ...], Any] = OrderedDict()
        """The text view's layouts by (screen, role, `text_key`), kept as the frames are."""
        self._frames_cap = frames
        self._frame_lock = threading.Lock()
        self._cond = threading.Condition()
        self._want: int | None = None
        self._expected: int | None = None
        self._painted: int | None = None
        self._gen = 0
        """Counts requests: a delivery is dropped when a newer request came in meanwhile."""
        self._typed = 0
        """Counts `expect`s: the preparing ahead stops when either count moves."""
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="replay-loader", daemon=True)
        self._thread.start()

    def request(self, index: int) -> None:
        """Show step `index` next; supersedes any request not yet delivered, and any `expect`."""
        with self._cond:
            self._want = index
            self._expected = None
            self._gen += 1
            self._cond.notify()

    def expect(self, index: int) -> None:
        """Step `index` is likely next (its number is being typed): prepare its pair, deliver nothing.

        Supersedes the last `expect` and the neighbours' preparation, never a request still to be
        delivered (that step is the one in view). The `request` that follows finds the pair ready."""
        with self._cond:
            self._expected = index
            self._typed += 1
            self._cond.notify()

    def prepare_ready(self, index: int) -> Pair | None:
        """Step `index`'s pair made now, on the calling thread, if both its screens are decoded
        already (its frames cost about a millisecond each); else None, and nothing is started.
        The screen's first step uses it: decoded while Textual composed, it is then on the phones
        in the very first paint instead of a paint later."""
        before, after = self.screens.ready(index), self.screens.ready(index + 1)
        if before is None or after is None:
            return None
        return self._made(index, before, after)

    def prepare_when_decoded(self, index: int) -> None:
        """Make step `index`'s frames and texts on the decoding threads, each as soon as its screen is
        decoded, for the phones' box and text size as they are then (the screen's first step: both
        are worked out before the first layout). `cached` then finds the pair without the event loop
        shrinking or laying out anything, and the loop composes and mounts the screen meanwhile, on
        the other core."""
        if not 0 <= index < len(self.actions):
            return
        for shot_index, role, action in ((index + 1, "after", None), (index, "before", self.actions[index])):
            self.screens.when_decoded(shot_index, partial(self._frame_of, role, action))

    def _frame_of(self, role: str, action: dict[str, Any] | None, fut: Future[Shot]) -> None:
        """A decoded screen's text and frame, on a decoding thread; a failure is left for `_made`.
        The text first: `cached` (and so the first step's `wait_ready`) counts a pair ready once its
        frames are, so a frame stored before its text let the event loop lay that text out again."""
        try:
            shot = fut.result()
            self._text(shot, role, action, self.text_key())
            self._frame(shot, role, action, self.frame_key())
        except Exception:  # a screen that cannot be read, or a pool shut down: the request reports it
            return

    def painted(self, index: int) -> None:
        """Step `index` is on the screen: the neighbours may be prepared now (see `_run`)."""
        with self._cond:
            self._painted = index
            self._cond.notify_all()

    def cached(self, index: int) -> Pair | None:
        """Step `index`'s pair if everything it needs is ready now (decoded and, where the phone takes
        them, its frames prepared at the current size), else None. Cheap: for the event loop."""
        before, after = self.screens.ready(index), self.screens.ready(index + 1)
        if before is None or after is None:
            return None
        key = self.frame_key()
        with self._frame_lock:
            bkey, akey = (index, "before", key), (index + 1, "after", key)
            if bkey not in self._frames or akey not in self._frames:
                return None
            tkey = self.text_key()
            return Pair(index, before, after, self._frames[bkey], self._frames[akey],
                        self._texts.get((index, "before", tkey)), self._texts.get((index + 1, "after", tkey)))

    def wait_ready(self, index: int, timeout: float) -> Pair | None:
        """Step `index`'s pair once it is ready (`cached`), waiting up to `timeout` seconds for the
        loader to finish it (ask for it with `request` first); None if it is not ready by then.
        For the event loop only where it would otherwise paint something nobody waits for: the
        wait lets go of the GIL, so the decoders run at full speed instead of behind that paint."""
        end = time.monotonic() + timeout
        while (pair := self.cached(index)) is None and time.monotonic() < end and not self._closed:
            time.sleep(0.001)
        return pair

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify()
        self.screens.close()

    # -- the loader's thread -----------------------------------------------------------------
    def _superseded(self, gen: int) -> bool:
        return self._closed or self._gen != gen

    def _ahead_stopped(self, gen: int, typed: int) -> bool:
        """Preparing ahead (neighbours, an expected step) gives way to any newer request or `expect`
        (one waiting to be picked up, too)."""
        return self._closed or self._gen != gen or self._typed != typed or self._expected is not None

    def _frame(self, shot: Shot, role: str, action: dict[str, Any] | None, key: Hashable) -> HalfcellFrame | None:
        if shot.image is None:
            return None
        fkey = (shot.index, role, key)
        with self._frame_lock:
            if fkey in self._frames:
                self._frames.move_to_end(fkey)
                return self._frames[fkey]
            base = self._frames.get((shot.index, "after", key)) if role == "before" else None
        frame = base.with_action(action) if base is not None else self.prepare(shot.image, action)
        if frame is not None and key != self.frame_key():
            return None  # the phone changed size while this was drawn: the phone makes its own
        with self._frame_lock:
            self._frames[fkey] = frame
            while len(self._frames) > self._frames_cap:
                self._frames.popitem(last=False)
        return frame

    def _text(self, shot: Shot, role: str, action: dict[str, Any] | None, key: Hashable) -> Any:
        """The text view's layout of `shot` for the view as `key` names it, made once (as `_frame`)."""
        tkey = (shot.index, role, key)
        with self._frame_lock:
            if tkey in self._texts:
                self._texts.move_to_end(tkey)
                return self._texts[tkey]
        size = shot.image.size if shot.image is not None else (1080, 2400)
        text = self.prepare_text(shot.ui_xml, size, action)
        if text is None or key != self.text_key():
            return None  # no text shown, or the view changed meanwhile: the phone lays out its own
        with self._frame_lock:
            self._texts[tkey] = text
            while len(self._texts) > self._frames_cap:
                self._texts.popitem(last=False)
        return text

    def _wait_painted(self, index: int, stop: Callable[[], bool]) -> None:
        """Until step `index` is painted (or newer work came, or `PAINT_WAIT` passed): preparing the
        neighbours holds the GIL in bursts, which would stretch the paint the person waits for."""
        with self._cond:
            self._cond.wait_for(lambda: self._painted == index or stop(), PAINT_WAIT)

    def _prepare_ahead(self, index: int, stop: Callable[[], bool]) -> None:
        """Step `index`'s pair into the caches, nothing delivered; a failure is left for the request
        that shows the step, which reports it."""
        try:
            self._pair(index, stop)
        except Exception:  # a pool shut down under us, or a screen that cannot be read
            return

    def _pair(self, index: int, stop: Callable[[], bool] | None = None) -> Pair | None:
        """Step `index`'s pair, decoded and prepared. While preparing ahead (`stop` given), newer
        work stops the wait (the decode itself finishes on its own thread) and gives None."""
        first, second = self.screens.future(index), self.screens.future(index + 1)
        if stop is not None:
            while not (first.done() and second.done()):
                if stop():
                    return None
                futures_wait([first, second], timeout=0.005)
            if stop():
                return None
        return self._made(index, first.result(), second.result())

    def _made(self, index: int, before: Shot, after: Shot) -> Pair:
        """Step `index`'s pair from its two decoded screens: the phone frames made for the view's
        current box (`frame_key`). The texts first, as `_frame_of` makes them: a pair `cached` finds
        by its frames then has its texts too."""
        key, tkey, action = self.frame_key(), self.text_key(), self.actions[index]
        before_text, after_text = self._text(before, "before", action, tkey), self._text(after, "after", None, tkey)
        after_frame = self._frame(after, "after", None, key)
        before_frame = self._frame(before, "before", action, key)
        return Pair(index, before, after, before_frame, after_frame, before_text, after_text)

    def _run(self) -> None:
        while True:
            with self._cond:
                while self._want is None and self._expected is None and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
                gen, typed = self._gen, self._typed
                expected, wanted = self._expected, self._want
                if wanted is None:
                    self._expected = None
                self._want = None  # a step expected meanwhile waits for this one's delivery
            if wanted is None:  # only a step expected: prepare it, deliver nothing
                if expected is not None and 0 <= expected < len(self.actions):
                    self._prepare_ahead(expected, partial(self._ahead_stopped, gen, typed))
                continue
            index = wanted
            try:
                deadline = time.monotonic() + 1.0
                while not self.laid_out() and not self._superseded(gen) and time.monotonic() < deadline:
                    time.sleep(0.002)
                pair = self._pair(index)
                if pair is None or self._superseded(gen):
                    continue
                self.deliver(pair)
                typed = self._typed
                stop = partial(self._ahead_stopped, gen, typed)
                self._wait_painted(index, stop)
                for delta in AHEAD:
                    near = index + delta
                    if stop():
                        break
                    if 0 <= near < len(self.actions):
                        self._pair(near, stop)
            except Exception as err:  # a pool shut down under us, or a bug: say so, keep serving
                if self._closed:
                    return
                broken = Shot(index, None, None, f"step {index + 1}: the screens could not be prepared: {err!r}")
                self.deliver(Pair(index, broken, Shot(index + 1, None, None)))
