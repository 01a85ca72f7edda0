"""What crosses the network between a device's actor and the driver: results, screens and errors.

Screens. An observation's screenshot is a 1080x2400 RGB image: 7.8 MB of raw
pixels, 62 ms a step on a 1 Gb/s link before Ray's own copies. Measured on the
sim's screens (this machine, one frame, best of 5-9; `benchmarks/bench_cluster.py`):

    raw bytes          7,776,000 B   copy 1 ms
    zlib -1 (stdlib)     122,276 B   compress  8.6 ms on the node, decompress 3.5 ms on the driver
    isal -1 (igzip)      151,810 B   compress  1.3 ms,            decompress 1.9 ms
    PNG -1               124,069 B   encode   29.5 ms,            decode     9.6 ms

So a screen travels as its raw pixels deflated at level 1: lossless, 1/50 to
1/130 of the bytes, and cheaper at both ends than a PNG of the same size (a PNG
adds filtering and CRCs we would undo at once: the driver's recorder writes its
own PNGs, band by band, and the observers want pixels). The deflate is the
`isal` package's igzip (a dependency of guilens already) where it is installed,
else the standard library's zlib: both write and read the same zlib stream, so
a node and a driver need not agree. The node pays the compression, in parallel
with the other nodes; the driver pays the decompression.

Errors. A device's own errors (`DeviceError` and its subclasses, with `fix` and
`performed`) must reach the runner unchanged: it waits for a `DeviceDisconnected`
phone, refuses an `UnsupportedAction`, and so on. Exceptions pickle with their
`args` only, which would drop `fix` and `performed`; and Ray wraps what an actor
raises in a `RayTaskError` whose text carries the remote traceback. So the actor
catches, and sends the class, the args and the instance's attributes; the driver
makes the same exception again (`raise_error`).
"""

from __future__ import annotations

import zlib
from types import ModuleType
from typing import Any

from PIL import Image

from guilens.device.base import Observation

_deflate: ModuleType
try:  # igzip: 5-20x faster than zlib at level 1, the same stream format
    from isal import isal_zlib as _deflate
except ImportError:  # pragma: no cover - isal is a dependency; zlib keeps the wire working without it
    _deflate = zlib

LEVEL = 1
"""Deflate level for screens on the wire (see the module docstring)."""
CODEC = "isal" if _deflate is not zlib else "zlib"


def pack_image(im: Image.Image) -> dict[str, Any]:
    return {"mode": im.mode, "size": im.size, "z": _deflate.compress(im.tobytes(), LEVEL)}


def unpack_image(d: dict[str, Any]) -> Image.Image:
    return Image.frombytes(d["mode"], tuple(d["size"]), _deflate.decompress(d["z"]))


def pack_result(value: Any) -> tuple[str, Any]:
    """What the actor sends for a call's result."""
    if isinstance(value, Observation):
        return "obs", {
            "screen": pack_image(value.screenshot), "ui_xml": value.ui_xml, "app": value.app,
            "clock": value.clock, "size": tuple(value.size), "extra": dict(value.extra),
            "ui": value.known_tree,  # cheaper to carry than to parse again
        }
    if isinstance(value, Image.Image):
        return "image", pack_image(value)
    return "ok", value


def unpack_result(kind: str, payload: Any) -> Any:
    """The driver's side of `pack_result` (and of `pack_error`, which it raises)."""
    if kind == "obs":
        obs = Observation(screenshot=unpack_image(payload["screen"]), ui_xml=payload["ui_xml"],
                          app=payload["app"], clock=payload["clock"], size=tuple(payload["size"]),
                          extra=payload["extra"])
        tree = payload.get("ui")
        return obs.known_ui(tree) if tree is not None else obs
    if kind == "image":
        return unpack_image(payload)
    if kind == "err":
        raise_error(payload)
    return payload


def pack_error(err: BaseException) -> tuple[str, Any]:
    state = {k: v for k, v in vars(err).items() if not k.startswith("__")}
    return "err", (type(err), tuple(err.args), state, str(err))


def raise_error(payload: Any) -> None:
    """Raise again, on the driver, the exception the device raised on its node."""
    cls, args, state, text = payload
    try:
        err = cls.__new__(cls)
        err.args = args
        err.__dict__.update(state)
    except Exception:  # a class that cannot be made this way: its text is what matters
        err = RuntimeError(f"{getattr(cls, '__name__', 'error')}: {text}")
    raise err
