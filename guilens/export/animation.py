"""An episode as an animation (GIF, animated WebP, MP4): what the agent saw and did, one frame a step.

Frame i is the screen the agent saw before step i's action, with that action
drawn on it the way the judge draws it (`guilens.judge.images.draw_action`: a
red circle and green square at a touch, an arrow for a swipe or scroll), and a
caption band under it: the step number, the action in its command form, and
the agent's one-line description. One more frame shows the final screen and
how the episode ended, held three frames long so a looping animation pauses on
the outcome. So an episode of N steps is N + 1 frames, always: a screen that
was not recorded (an interrupted episode has no final screen) becomes a grey
frame that says so, rather than a frame silently missing.

Frames are drawn at the device's resolution (the marks' sizes are set for it)
and then scaled to `--width` (default 360 px, a phone-sized preview that keeps a
30-step GIF around 1 MB). Pillow writes GIF and WebP; MP4 needs an encoder
library, and guilens uses whichever of `imageio-ffmpeg` or `av` (PyAV) is
installed rather than depending on either.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guilens.export.formats import ExportError, ExportOptions, ExportResult, Scope

if TYPE_CHECKING:
    from PIL import Image

    from guilens.episode import EpisodeReader, Step

DEFAULT_WIDTH = 360
FINAL_HOLD = 3
"""The final frame lasts this many frames' time."""
CAPTION_LINES = 3
_GREY = (90, 90, 96)


def _command(action: dict[str, Any] | None) -> str:
    """The action as a person types it (`tap 540 834`), or its JSON when it is not a valid action."""
    if not action:
        return "no action"
    from guilens.actions import ActionError, action_from_dict, to_command

    try:
        return to_command(action_from_dict(action))
    except (ActionError, ValueError):
        return str(action)


def _caption_lines(step: Step, n: int) -> list[str]:
    command = _command(step.action)
    head = f"Step {step.index + 1}/{n} · {command}"
    if step.by == "human":
        head += "  (person)"
    lines = [head]
    if step.action_description and step.action_description != command:
        lines.append(step.action_description)
    if step.ask is not None and step.ask.answer:
        lines.append(f"user: {step.ask.answer}")
    if step.error:
        lines.append(f"refused: {step.error}")
    return lines


def _final_lines(reader: EpisodeReader) -> list[str]:
    ep = reader.episode
    lines = [f"Final screen · {ep.status} ({ep.steps} steps)"]
    if ep.final_answer:
        lines.append(f"answer: {ep.final_answer}")
    elif ep.outcome_reason:
        lines.append(ep.outcome_reason)
    return lines


def _fit_line(text: str, width: int, font: Any, measure: Any) -> str:
    """Cut `text` with an ellipsis so it fits `width` pixels."""
    text = " ".join(text.split())
    if measure.textlength(text, font=font) <= width:
        return text
    while text and measure.textlength(text + "…", font=font) > width:
        text = text[:-1]
    return text + "…"


def _captioned(screen: Image.Image, lines: list[str], width: int) -> Image.Image:
    """`screen` scaled to `width`, over a dark band holding `lines` (the first three, each cut to fit)."""
    from PIL import Image, ImageDraw

    from guilens.judge.images import BAND, font

    scaled = screen.convert("RGB")
    if scaled.width != width:
        scaled = scaled.resize((width, max(1, round(screen.height * width / screen.width))),
                               Image.Resampling.LANCZOS)
    f = font(max(10, round(width / 24)))
    line_h = round(max(10, width / 24) * 1.35)
    pad = max(4, width // 60)
    shown = lines[:CAPTION_LINES]
    band_h = pad * 2 + line_h * CAPTION_LINES  # one height for every frame: WebP and MP4 need one size
    height = scaled.height + band_h
    height += height % 2  # even sides: what H.264's yuv420p needs, harmless elsewhere
    out = Image.new("RGB", (width, height), BAND)
    out.paste(scaled, (0, 0))
    d = ImageDraw.Draw(out)
    for i, text in enumerate(shown):
        colour = (255, 255, 255) if i == 0 else (200, 200, 210)
        d.text((pad, scaled.height + pad + i * line_h), _fit_line(text, width - 2 * pad, f, d), fill=colour, font=f)
    return out


def _missing(size: tuple[int, int]) -> Image.Image:
    from PIL import Image, ImageDraw

    from guilens.judge.images import font

    img = Image.new("RGB", size, _GREY)
    d = ImageDraw.Draw(img)
    d.text((size[0] // 10, size[1] // 2), "no screen recorded", fill=(235, 235, 235), font=font(max(12, size[0] // 14)))
    return img


def episode_frames(directory: Path, width: int | None = None) -> Iterator[tuple[Image.Image, int]]:
    """The animation's frames of the episode at `directory`: (image, how many frame times it lasts).

    Yields one at a time so an episode of hundreds of steps never holds all its
    full-resolution screens at once.
    """
    from guilens.episode import EpisodeError, EpisodeReader
    from guilens.judge.images import draw_action

    try:
        reader = EpisodeReader(directory)
        steps = reader.steps
    except EpisodeError as err:
        raise ExportError(str(err)) from None
    w = width or DEFAULT_WIDTH
    w += w % 2
    size = tuple(reader.episode.screen_size or (1080, 2400))
    n = len(steps)
    for i, step in enumerate(steps):
        screen = reader.screen(i)
        img = draw_action(screen, step.action) if screen is not None else _missing(size)  # type: ignore[arg-type]
        yield _captioned(img, _caption_lines(step, n), w), 1
    final = reader.screen(n)
    yield _captioned(final if final is not None else _missing(size), _final_lines(reader), w), FINAL_HOLD  # type: ignore[arg-type]


def _frame_ms(fps: float) -> int:
    if not fps > 0:
        raise ExportError(f"--fps {fps}: must be more than 0")
    return max(20, round(1000 / fps))  # browsers play GIF frames under 20 ms at 100 ms


def _check_width(width: int | None) -> None:
    if width is not None and not 32 <= width <= 4096:
        raise ExportError(f"--width {width}: must be between 32 and 4096 pixels")


class _PillowAnimation:
    scope: Scope = "episode"
    name = ""
    suffix = ""
    description = ""
    _format = ""

    def check(self) -> None:
        return None

    def _save_kwargs(self) -> dict[str, Any]:
        return {}

    def export(self, source: Path, out: Path, options: ExportOptions) -> ExportResult:
        from guilens.storage import write_atomic

        _check_width(options.width)
        ms = _frame_ms(options.fps)
        images, durations = [], []
        for img, hold in episode_frames(source, options.width):
            images.append(img)
            durations.append(ms * hold)
        import io

        buf = io.BytesIO()
        images[0].save(buf, format=self._format, save_all=True, append_images=images[1:], duration=durations,
                       loop=0, **self._save_kwargs())
        size = write_atomic(out, buf.getvalue())
        return ExportResult(out, f"{len(images)} frames ({len(images) - 1} steps + the final screen), "
                                 f"{images[0].width}x{images[0].height}, {size / 1024:.0f} kB")


class GifExporter(_PillowAnimation):
    """Animated GIF: plays everywhere (chat, issues, slides); 256 colours a frame."""

    name = "gif"
    suffix = ".gif"
    description = "an episode as an animated GIF, the actions drawn on each step's screen"
    _format = "GIF"

    def _save_kwargs(self) -> dict[str, Any]:
        # No frame merging: two steps on the same screen with the same caption are still two steps.
        return {"optimize": False, "disposal": 1}


class WebpExporter(_PillowAnimation):
    """Animated WebP: full colour and about a third of the GIF's size; browsers play it."""

    name = "webp"
    suffix = ".webp"
    description = "an episode as an animated WebP"
    _format = "WEBP"

    def _save_kwargs(self) -> dict[str, Any]:
        return {"quality": 80, "method": 4, "minimize_size": False}


ENCODERS = ("imageio_ffmpeg", "av")
"""Encoder libraries MP4 can use, in order of preference; neither is a guilens dependency."""


def mp4_encoder() -> str | None:
    return next((m for m in ENCODERS if importlib.util.find_spec(m) is not None), None)


class Mp4Exporter:
    """H.264 MP4 (what MemGUI-Bench's leaderboard previews use), through an encoder library if one is installed."""

    name = "mp4"
    scope: Scope = "episode"
    suffix = ".mp4"
    description = "an episode as an H.264 video (needs imageio-ffmpeg or av installed)"

    def check(self) -> None:
        if mp4_encoder() is None:
            raise ExportError("--format mp4 needs a video encoder library: pip install imageio-ffmpeg "
                              "(or: pip install av); --format gif and webp need nothing more")

    def export(self, source: Path, out: Path, options: ExportOptions) -> ExportResult:
        import os

        self.check()
        _check_width(options.width)
        _frame_ms(options.fps)
        tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp.mp4")
        frames = [img for img, hold in episode_frames(source, options.width) for _ in range(hold)]
        try:
            if mp4_encoder() == "imageio_ffmpeg":
                _write_imageio(tmp, frames, options.fps)
            else:
                _write_av(tmp, frames, options.fps)
            os.replace(tmp, out)
        except (OSError, RuntimeError) as err:  # the encoder's own failures come as RuntimeError
            from guilens.storage import StorageError

            if isinstance(err, OSError):
                raise StorageError.of(out, err) from None
            said = (str(err).strip().splitlines() or [type(err).__name__])[0]
            raise StorageError(out, f"the {mp4_encoder()} encoder failed: {said}") from None
        finally:
            if tmp.exists():
                tmp.unlink()
        steps = len(frames) - FINAL_HOLD
        return ExportResult(out, f"{steps + 1} frames ({steps} steps + the final screen, held {FINAL_HOLD}), "
                                 f"{frames[0].width}x{frames[0].height}, {out.stat().st_size / 1024:.0f} kB, "
                                 f"encoded with {mp4_encoder()}")


def _write_imageio(path: Path, frames: list[Image.Image], fps: float) -> None:
    import imageio_ffmpeg  # type: ignore[import-not-found, import-untyped, unused-ignore]

    w, h = frames[0].size
    writer = imageio_ffmpeg.write_frames(str(path), (w, h), fps=fps, codec="libx264", pix_fmt_out="yuv420p",
                                         macro_block_size=2, quality=7)
    writer.send(None)
    for img in frames:
        writer.send(img.convert("RGB").tobytes())
    writer.close()


def _write_av(path: Path, frames: list[Image.Image], fps: float) -> None:
    import av  # type: ignore[import-not-found, import-untyped, unused-ignore]

    w, h = frames[0].size
    with av.open(str(path), mode="w") as container:
        stream = container.add_stream("libx264", rate=Fraction(fps).limit_denominator(1000))
        stream.width, stream.height, stream.pix_fmt = w, h, "yuv420p"
        for img in frames:
            for packet in stream.encode(av.VideoFrame.from_image(img.convert("RGB"))):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
