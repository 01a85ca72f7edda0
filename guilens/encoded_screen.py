"""`EncodedScreen`: a screen held as the PNG bytes it arrived in, decoded only if someone reads its pixels.

The reading side of `guilens.png`'s writer: a screen that arrives as PNG bytes (a device
in a process of its own encodes where it draws, `guilens.device.process_host`)
and stays bytes in the run's process unless someone reads its pixels. It is
Pillow's own lazily loading `PngImageFile` (the header is read at once, the
pixels on first use), which keeps the bytes, so the recorder writes them as
they are instead of encoding the screen a second time.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, ClassVar

from PIL import Image
from PIL.PngImagePlugin import PngImageFile


class LateBytes(Future[bytes]):
    """PNG bytes that arrive after the screen they belong to (a hosted device replies first and
    encodes after, `guilens.device.process_host`). `result()` fetches them when they are not here
    yet: `fetch` (the host's) reads them off the pipe and settles this future, with the bytes or
    with why they will never come (`DeviceLost` for a device process that died mid-encode)."""

    def __init__(self, fetch: Callable[[], None]) -> None:
        super().__init__()
        self._fetch = fetch

    def result(self, timeout: float | None = None) -> bytes:
        if not self.done():
            self._fetch()
            if not self.done():  # pragma: no cover - a host that forgot to settle it: say so, never hang
                self.set_exception(RuntimeError("a screen's PNG bytes were never delivered"))
        return super().result(timeout)

    def cancel(self) -> bool:
        """Never: other screens may share these bytes (a screen shown twice), and a reader must get them."""
        return False


class EncodedScreen(PngImageFile):
    """A screen held as the PNG bytes it arrived in, decoded on first use of its pixels, once.

    To every reader it is an ordinary `Image.Image` (mode and size are known at
    once, from the header): resizing it, converting it or reading its pixels
    decodes it (about 9 ms for a 1080x2400 sim screen, with Pillow's decoder), and only the first of those.
    The recorder asks for `encoded` instead and never decodes (a headless run on
    hosted sims decodes no screen; `decodes` counts them, for tests and
    benchmarks). `encoded` is the phone's screen as it arrived: a caller that
    draws on the decoded pixels changes the image, not the bytes.

    Its bytes may come after it (`later`): mode and size are given then, and the
    first reader of `encoded` or of the pixels waits for the bytes (the recorder's
    writer thread, through `encoded_future`, so the step loop never waits for them).

    It pickles as its PNG bytes (about 90 kB for a sim screen, against 7.8 MB
    of pixels), and comes back lazy.
    """

    decodes: ClassVar[int] = 0
    """Screens decoded in this process so far (every `EncodedScreen`)."""
    _count_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, data: bytes) -> None:
        self._bytes: Future[bytes] = Future()
        self._bytes.set_result(data)
        self._opened = True
        self._decode_lock = threading.Lock()  # the step loop and the TUI's worker may both read it
        super().__init__(io.BytesIO(data))

    @classmethod
    def later(cls, data: Future[bytes], mode: str, size: tuple[int, int]) -> EncodedScreen:
        """A screen whose PNG bytes `data` will deliver; `mode` and `size` are what they will decode to."""
        self = cls.__new__(cls)
        Image.Image.__init__(self)
        self._mode, self._size = mode, tuple(size)  # type: ignore[assignment]
        self.fp, self._exclusive_fp, self.tile, self.readonly = None, False, [], 1
        self._bytes = data
        self._opened = False
        self._decode_lock = threading.Lock()
        return self

    @property
    def encoded(self) -> bytes:
        """The PNG file's bytes, as received (waiting for them if they are still on their way)."""
        return self._bytes.result()

    def load(self) -> Any:
        with self._decode_lock:
            if not self._opened:  # bytes that came after: read the header now, as the eager path did
                PngImageFile.__init__(self, io.BytesIO(self._bytes.result()))
                self._opened = True
            if self._im is None:
                with EncodedScreen._count_lock:
                    EncodedScreen.decodes += 1
            return super().load()

    @property
    def decoded(self) -> bool:
        """Its pixels have been read (decoded) already."""
        return self._im is not None

    def __reduce__(self) -> tuple[Any, ...]:
        return (EncodedScreen, (self.encoded,))


def encoded_future(img: Image.Image) -> Future[bytes] | None:
    """The PNG bytes `img` arrived in, or will (its `result()` waits for them), when it is an
    `EncodedScreen`; None when it must be encoded. Never waits: what a step loop hands a writer."""
    return img._bytes if isinstance(img, EncodedScreen) else None
