"""Full-resolution phone screens: the terminal probe, the three image protocols, and the layer that
decides when and where images are drawn (toasts and modals over the phone, other screens).

The escape sequences are checked against what the protocols define (Kitty's keys and chunking, Sixel
decoded back by ImageMagick, iTerm2's OSC 1337 with a real PNG); tests/test_graphics_terminals.py
shows them in real terminals."""

from __future__ import annotations

import base64
import io
import re
import zlib
from typing import Any

import pytest
import tui_helpers  # noqa: F401  (pins the cell size)
from PIL import Image, ImageChops, ImageDraw
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from guilens.screens.graphics.layer import GraphicsLayer
from guilens.screens.graphics.probe import QUERY, Terminal, parse_replies
from guilens.screens.graphics.protocols import (
    ITermProtocol,
    KittyProtocol,
    Place,
    SixelProtocol,
    fit_pixels,
)
from guilens.screens.phone_setup import RendererError, choose, fixed
from guilens.screens.widgets.graphics_view import GraphicsApp, GraphicsSurface

XTERM = "\x1bP>|XTerm(379)\x1b\\\x1b[?1;0;1024S\x1b[?2;0;1000;880S\x1b[?63;1;2;4;6;9;15;16;22;28c"
KITTY = "\x1bP>|kitty(0.26.5)\x1b\\\x1b_Gi=4231;OK\x1b\\\x1b[6;15;6t\x1b[?62;c"
MLTERM = "\x1b[?1;0;1024S\x1b[6;22;10t\x1b[?63;1;2;3;4;6;7;15;18;22;29c"
TMUX = "\x1bP>|tmux 3.3a\x1b\\\x1b[?1;2;4c"


def test_the_probe_reads_each_terminals_answers() -> None:
    xterm = parse_replies(XTERM, env={"TERM": "xterm"})
    assert (xterm.name, xterm.version, xterm.sixel, xterm.kitty) == ("XTerm", "379", True, False)
    assert xterm.sixel_colors == 1024 and xterm.sixel_max == (1000, 880) and xterm.best() == "sixel"
    kitty = parse_replies(KITTY, env={"TERM": "xterm-kitty"})
    assert (kitty.name, kitty.version, kitty.kitty, kitty.sixel, kitty.cell) == ("kitty", "0.26.5", True, False, (6, 15))
    assert kitty.best() == "tgp"
    mlterm = parse_replies(MLTERM, env={"TERM": "mlterm"})
    assert mlterm.sixel and mlterm.cell == (10, 22) and mlterm.best() == "sixel"
    # tmux answers for itself and passes no images by default: half cells, even if it says Sixel
    tmux = parse_replies(TMUX, env={"TERM": "tmux-256color", "TMUX": "/tmp/tmux-0/default,1,0"})
    assert tmux.multiplexer == "tmux" and tmux.best() == "halfcell"
    wez = parse_replies("\x1bP>|WezTerm 20240203-110809-5046fc22\x1b\\\x1b_Gi=4231;OK\x1b\\\x1b[?65;4;6;18;22c",
                        env={"TERM_PROGRAM": "WezTerm"})
    assert wez.name == "WezTerm" and wez.best() == "iterm"
    iterm = parse_replies("\x1b[?62;4c", env={"TERM_PROGRAM": "iTerm.app", "TERM_PROGRAM_VERSION": "3.5.0"})
    assert iterm.name == "iTerm.app" and iterm.iterm
    silent = parse_replies("", env={})
    assert not silent.answered and silent.best() == "halfcell"
    assert QUERY.endswith("\x1b[c")  # DA1 last: every terminal answers it, so the probe knows when to stop


def test_the_setup_follows_the_request_and_the_terminal() -> None:
    xterm = parse_replies(XTERM, env={})
    auto = choose("auto", xterm)
    assert (auto.renderer, auto.view, auto.sixel_max) == ("sixel", "pixels", (1000, 880))
    plain = choose(None, Terminal())
    assert (plain.renderer, plain.view) == ("halfcell", "both")  # no images: the text beside the pixels
    assert (choose("text", xterm).renderer, choose("text", xterm).view) == ("halfcell", "text")
    assert choose("tgp", Terminal()).renderer == "tgp"  # asked for, even where the terminal did not say
    with pytest.raises(RendererError, match="unknown renderer 'png'.*auto, halfcell, sixel, tgp, iterm, text"):
        choose("png", xterm)
    assert fixed("halfcell").view == "pixels" and fixed("text").view == "text"
    # the person is told why the phone is not at full resolution, and warned of a doubtful choice
    tmux = parse_replies(TMUX, env={"TMUX": "/tmp/tmux-0/default,1,0"})
    assert "tmux passes no images through" in choose("auto", tmux).note
    assert "did not say it draws sixel" in choose("sixel", parse_replies(KITTY, env={})).note
    assert choose("auto", xterm).note == ""


def decode_sixel(data: str) -> Image.Image:
    """A plain reading of DEC Sixel (what a VT340 does), for checking the encoder: colour registers
    `#n;2;r;g;b` in percent, `#n` selects, `!N<c>` repeats, `$` returns to the band's start, `-` goes
    to the next band. ImageMagick 6's decoder misreads some repeats, so the tests do not rely on it."""
    m = re.match(r'\x1bP[0-9;]*q"1;1;(\d+);(\d+)(.*)\x1b\\\Z', data, re.S)
    assert m, "not a DCS Sixel string with raster attributes"
    w, h, body = int(m.group(1)), int(m.group(2)), m.group(3)
    img = Image.new("RGB", (w, h), (0, 0, 0))
    px = img.load()
    regs: dict[int, tuple[int, int, int]] = {}
    colour, x, band = (0, 0, 0), 0, 0
    for tok in re.finditer(r"#(\d+)(?:;2;(\d+);(\d+);(\d+))?|!(\d+)([?-~])|([?-~])|(\$)|(-)", body):
        if tok.group(1) is not None:
            n = int(tok.group(1))
            if tok.group(2) is not None:
                regs[n] = tuple(round(int(tok.group(k)) * 255 / 100) for k in (2, 3, 4))  # type: ignore[assignment]
            else:
                colour = regs[n]
        elif tok.group(8):
            x = 0
        elif tok.group(9):
            x, band = 0, band + 1
        else:
            count, ch = (int(tok.group(5)), tok.group(6)) if tok.group(5) else (1, tok.group(7))
            bits = ord(ch) - 63
            for xx in range(x, min(w, x + count)):
                for r in range(6):
                    y = band * 6 + r
                    if bits >> r & 1 and y < h:
                        px[xx, y] = colour
            x += count
    return img


def phone_like(size: tuple[int, int] = (304, 672)) -> Image.Image:
    img = Image.new("RGB", size, (245, 245, 250))
    draw = ImageDraw.Draw(img)
    draw.rectangle([10, 10, size[0] - 10, 60], fill=(230, 120, 20))
    draw.text((20, 100), "Sony WH-1000XM5 $398.00", fill=(20, 20, 20))
    draw.ellipse([100, 300, 200, 400], fill=(30, 90, 200))
    return img


def test_pixel_sizes_fit_the_cells_and_sixel_bands() -> None:
    w, h = fit_pixels(38, 47, (8, 16), 1080 / 2400, multiple=6)
    assert w <= 38 * 8 and h <= 47 * 16 and h % 6 == 0 and abs(w / h - 0.45) < 0.02
    w, h = fit_pixels(100, 60, (8, 16), 1080 / 2400, max_px=(1000, 800))
    assert h <= 800 and w <= 1000


def test_sixel_frames_decode_back_to_the_screen() -> None:
    proto = SixelProtocol(colors=256)
    src = phone_like()
    frame = proto.encode(src, 38, 42, (8, 16))
    data = str(frame.data)
    assert data.startswith("\x1bP") and data.endswith("\x1b\\") and "q" in data[:20]
    back = decode_sixel(data)
    assert back.size == src.size
    diff = ImageChops.difference(back, src).convert("L")
    mean = sum(i * n for i, n in enumerate(diff.histogram())) / (src.width * src.height)
    assert mean < 4  # quantised to 256 colours, otherwise the same picture
    # the drawing goes to the image's cell, with the cursor saved and restored around it
    drawn = proto.draw(frame, Place(3, 2, ((0, 42),)))
    assert drawn.startswith("\x1b7\x1b[3;4H\x1bP") and drawn.endswith("\x1b8")
    # a covered middle: two runs, each its own image, each a multiple of the band height
    two = proto.draw(frame, Place(3, 2, ((0, 10), (20, 22))))
    assert two.count("\x1bP") == 2 and "\x1b[3;4H" in two and "\x1b[23;4H" in two
    for body in re.findall(r'"1;1;(\d+);(\d+)', two):
        assert int(body[1]) % 6 == 0


def test_kitty_frames_are_chunked_quiet_and_decode_back() -> None:
    proto = KittyProtocol()
    src = phone_like()
    frame = proto.encode(src, 38, 42, (8, 16))
    transmit, image_id = frame.data
    commands = re.findall(r"\x1b_G([^;]*);([^\x1b]*)\x1b\\", transmit)
    assert len(commands) > 1
    payload = ""
    for n, (keys, chunk) in enumerate(commands):
        kv = dict(k.split("=") for k in keys.split(","))
        assert kv["q"] == "2"  # a reply would land in Textual's input as keys
        assert kv["m"] == ("0" if n == len(commands) - 1 else "1")
        assert len(chunk) <= 4096
        if n == 0:
            assert (kv["a"], kv["f"], kv["o"], kv["s"], kv["v"], kv["i"]) == ("t", "24", "z", "304", "672", str(image_id))
        payload += chunk
    assert zlib.decompress(base64.b64decode(payload)) == src.tobytes()

    first = proto.draw(frame, Place(0, 1, ((0, 42),)))
    assert first.startswith("\x1b7") and transmit in first
    assert f"a=p,q=2,i={image_id},p=1,x=0,y=0,w=304,h=672,c=38,r=42,C=1" in first
    again = proto.draw(frame, Place(0, 1, ((0, 5), (9, 33))))  # the same frame, partly covered: no resend
    assert transmit not in again and f"p=2,x=0,y={9 * 16}" in again and f"d=i,i={image_id},p=3" in again
    second = proto.encode(src, 38, 42, (8, 16))
    replaced = proto.draw(second, Place(0, 1, ((0, 42),)))
    assert f"a=d,q=2,d=I,i={image_id}" in replaced  # the old frame's data is freed
    assert proto.erase() == f"\x1b_Ga=d,q=2,d=I,i={second.data[1]}\x1b\\" and proto.erase() == ""


def test_iterm_frames_are_inline_pngs_of_the_cells() -> None:
    proto = ITermProtocol()
    frame = proto.encode(phone_like(), 38, 42, (8, 16))
    m = re.fullmatch(r"\x1b\]1337;File=inline=1;size=(\d+);width=38;height=42;preserveAspectRatio=0;"
                     r"doNotMoveCursor=1:([A-Za-z0-9+/=]+)\x07", str(frame.data))
    assert m is not None
    png = base64.b64decode(m.group(2))
    assert len(png) == int(m.group(1)) and Image.open(io.BytesIO(png)).size == (304, 672)
    part = proto.draw(frame, Place(0, 0, ((4, 10),)))
    assert "height=10" in part and "\x1b[5;1H" in part


# -- the layer, in a real (headless) app ---------------------------------------------------------


class Dialog(ModalScreen[None]):
    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static("Which headphones?")


class Host(GraphicsApp):
    CSS = """
    #phone { width: 40; height: 50; }
    Dialog { align: center middle; }
    Dialog #dialog { width: 30; height: 8; }
    """

    def __init__(self, protocol: Any) -> None:
        super().__init__()
        self.protocol = protocol

    def compose(self) -> ComposeResult:
        yield GraphicsSurface(self.protocol, id="phone")


def _frame(proto: Any) -> Any:
    frame = proto.encode(phone_like((320, 700)), 40, 35, (8, 20))
    frame.serial = 1
    return frame


@pytest.mark.parametrize("proto_cls", [SixelProtocol, KittyProtocol])
async def test_the_layer_draws_lifts_and_cuts_around_what_covers_the_phone(proto_cls: Any) -> None:
    proto = proto_cls()
    app = Host(proto)
    async with app.run_test(size=(120, 50)) as pilot:
        surface = app.query_one(GraphicsSurface)
        layer: GraphicsLayer = app.graphics
        surface.set_frame(_frame(proto))
        await pilot.pause()
        out = layer.after_update(app.screen, None)
        assert out and layer.frames_drawn == 1
        slot = layer.slots[id(surface)]
        assert slot.drawn is not None and slot.drawn[1].runs == ((0, 35),)
        assert slot.drawn[1].col == 0 and slot.drawn[1].row == (50 - 35) // 2
        # nothing changed: nothing is written again (for Sixel only an update over its cells redraws)
        assert layer.after_update(app.screen, None) == ""

        # a modal whose dialog leaves the phone uncovered keeps it drawn
        app.push_screen(Dialog())
        await pilot.pause()
        assert layer.place_of(slot, app.screen) is not None

        # a modal over the phone: the covered rows are left out
        app.pop_screen()
        await pilot.pause()
        app.screen.styles.layers = ("default", "over")
        cover = Static("over the phone", id="cover")
        cover.styles.layer = "over"
        cover.styles.offset = (5, 20)
        cover.styles.width = 20
        cover.styles.height = 3
        await app.screen.mount(cover)
        await pilot.pause()
        place = layer.place_of(slot, app.screen)
        assert place is not None
        covered = {place.row + r for first, n in place.runs for r in range(first, first + n)}
        assert not covered & {20, 21, 22} and {19, 23} <= covered
        assert len(place.runs) == 2

        # another screen entirely: the image goes (Kitty deletes it; Sixel is erased by the repaint)
        app.push_screen(Screen())
        await pilot.pause()
        lifted = layer.after_update(app.screen, None)
        assert slot.drawn is None
        if proto.persistent:
            assert "a=d" in lifted


@pytest.mark.parametrize("size", [(7, 5), (33, 13), (120, 6), (64, 20)])
def test_the_sixel_encoder_handles_any_height_and_empty_bands(size: tuple[int, int]) -> None:
    from guilens.screens.graphics.sixel import encode_sixel

    img = Image.new("RGB", size, (0, 0, 0))
    ImageDraw.Draw(img).rectangle([1, size[1] - 3, size[0] - 2, size[1] - 1], fill=(250, 40, 40))
    back = decode_sixel(encode_sixel(img, 16))
    assert back.size == size
    red = back.getpixel((size[0] // 2, size[1] - 1))
    assert max(abs(a - b) for a, b in zip(red, (250, 40, 40), strict=True)) <= 4  # type: ignore[arg-type]
    assert back.getpixel((0, 0)) == (0, 0, 0) and back.getpixel((size[0] // 2, 0)) == (0, 0, 0)
