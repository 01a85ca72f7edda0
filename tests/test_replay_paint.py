"""What the replay paints, paint by paint: the first step is on the phones in the very first paint; a
step that was not prepared ahead is shown whole (its text never beside the last step's screens);
moving repaints what changed, not the whole screen; Home and End reach the screen without the list
painting first; the loader prepares the neighbours only once the step in view is painted."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import tui_helpers  # noqa: F401  (pins the phones' cell size)
from test_replay_speed import record, settled
from test_tui_run import wait_for
from textual._compositor import Compositor
from textual.color import Color
from textual.css.stylesheet import Stylesheet
from textual.pilot import Pilot

from guilens.episode import EpisodeReader
from guilens.screens import replay_decode, replay_frames, replay_screen
from guilens.screens.app import GuilensApp
from guilens.screens.phone_setup import View, fixed
from guilens.screens.replay_decode import EpisodeScreens
from guilens.screens.replay_frames import Pair, ReplayLoader
from guilens.screens.replay_screen import ReplayScreen
from guilens.screens.widgets import textphone
from guilens.screens.widgets.phone import PhoneView, cell_size
from guilens.screens.widgets.step_list import StepList


@pytest.fixture(scope="module")
def episode(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return record(tmp_path_factory.mktemp("replay-paint") / "attempt-1", 30)


class Paints:
    """Calls `look()` as each of the compositor's paints begins; `full` counts whole-screen paints."""

    def __init__(self, look: Callable[[], Any]) -> None:
        self.look = look
        self.seen: list[Any] = []
        self.full = 0

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        for name in ("render_full_update", "render_partial_update"):
            original = getattr(Compositor, name)

            def paint(compositor: Any, *args: Any, _original: Any = original, _name: str = name, **kw: Any) -> Any:
                self.seen.append(self.look())
                self.full += _name == "render_full_update"
                return _original(compositor, *args, **kw)

            monkeypatch.setattr(Compositor, name, paint)


@contextlib.asynccontextmanager
async def opened(episode: Path, size: tuple[int, int], **screen_args: Any) -> AsyncIterator[tuple[Pilot[Any], ReplayScreen]]:
    """The replay of `episode` open at `size`, its first step shown and settled."""
    app = GuilensApp(lambda: ReplayScreen(episode, **screen_args))
    async with app.run_test(size=size) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        await settled(pilot, screen, 0)
        yield pilot, screen


def phones(screen: ReplayScreen) -> tuple[PhoneView, PhoneView]:
    return screen.query_one("#before", PhoneView), screen.query_one("#after", PhoneView)


def state(app: GuilensApp) -> tuple[str, int | None, int | None] | None:
    """(detail title, index of the screen each phone's frame was made from) as the paint begins."""
    screen = app.screen
    if not isinstance(screen, ReplayScreen) or not screen.is_mounted:
        return None
    before, after = phones(screen)
    if before.canvas is None or before.canvas.frame is None or after.canvas is None:
        return (str(screen.query_one("#detail-box").border_title), None, None)

    def index_of(phone: PhoneView) -> int | None:
        for i in range(len(screen.steps) + 1):
            shot = screen.screens.ready(i)
            if shot is not None and shot.image is not None and shot.image is phone._frame_for:
                return i
        return None

    return (str(screen.query_one("#detail-box").border_title), index_of(before), index_of(after))


@pytest.mark.parametrize(("size", "view"), [((200, 60), "pixels"), ((160, 48), "pixels"), ((110, 36), "pixels"),
                                             ((200, 60), "both"), ((110, 36), "both")])
async def test_the_first_step_is_on_the_phones_in_the_first_paint(episode: Path, size: tuple[int, int], view: View,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """In either view of half cells: pixels alone (as in tests and Sixel-less setups asked for half
    cells), or pixels beside the text, what a terminal without graphics gets by default."""
    screens: list[ReplayScreen] = []

    def first() -> ReplayScreen:
        screen = ReplayScreen(episode, renderer=fixed("halfcell", view=view, cell=cell_size()))
        screen.screens.get(0), screen.screens.get(1)  # decoded while Textual composes (here: surely)
        screens.append(screen)
        return screen

    app = GuilensApp(first)
    paints = Paints(lambda: state(app))
    paints.install(monkeypatch)
    async with app.run_test(size=size) as pilot:
        screen = screens[0]
        await settled(pilot, screen, 0)
        first_paint = next(s for s in paints.seen if s is not None)
        assert first_paint == ("step 1 of 30", 0, 1)
        before, after = phones(screen)
        # the box guessed before the first layout is the one the layout gave: nothing made twice
        assert before.box == before.box_for(*before.content_region.size) == after.box
        assert before.box == (before.content_region.size if view == "pixels" else before.query_one("#pixels").size)
        assert before.canvas is not None and before.canvas.frame is not None
        assert (before.canvas.frame.fit.box_cols, before.canvas.frame.fit.box_rows) == before.box


@pytest.mark.parametrize(("size", "slow_text"), [((200, 60), 0.0), ((110, 36), 0.0), ((200, 60), 0.02)])
async def test_the_first_steps_text_is_in_the_first_paint(episode: Path, size: tuple[int, int], slow_text: float,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Beside the pixels, each text view shows its UI tree in the very first paint, laid out on the
    decoding threads for the size that paint gives it. It used to learn its size from its first
    resize, which Textual sends after the first paint: that paint showed both texts empty, and the
    next, 100 ms later, laid them out on the event loop. `slow_text`: each layout on a decoding
    thread takes that much longer, as on a loaded machine; a thread used to store its frame before
    its text, and the event loop, finding the frames ready, laid the text out a second time."""
    laid_out: list[str] = []
    text_frame = textphone.text_frame

    def watched(*args: Any, **kwargs: Any) -> Any:
        laid_out.append(threading.current_thread().name)
        if threading.current_thread().name.startswith("replay-decode"):
            time.sleep(slow_text)
        return text_frame(*args, **kwargs)

    monkeypatch.setattr(textphone, "text_frame", watched)
    app = GuilensApp(lambda: ReplayScreen(episode, renderer=fixed("halfcell", view="both", cell=cell_size())))

    def look() -> Any:
        screen = app.screen
        if not isinstance(screen, ReplayScreen) or not screen.is_mounted:
            return None
        texts = [phone.text for phone in phones(screen)]
        return state(app), [(t.text_layout is not None, t.cells) for t in texts], list(laid_out)

    paints = Paints(look)
    paints.install(monkeypatch)
    async with app.run_test(size=size) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        await settled(pilot, screen, 0)
        shown, texts, before_paint = next(s for s in paints.seen if s is not None)
        assert shown == ("step 1 of 30", 0, 1)
        sizes = [tuple(phone.text.content_size) for phone in phones(screen)]
        assert texts == [(True, sizes[0]), (True, sizes[1])]
        assert len(before_paint) == 2 and all(name.startswith("replay-decode") for name in before_paint), before_paint


async def test_the_first_paint_waits_for_screens_still_decoding(episode: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A decode that outlasts Textual's mounting is waited for (`FIRST_WAIT`): a first paint without
    the phones, and a second with them, cost more than the rest of the decode."""
    read = replay_decode.read_shot
    monkeypatch.setattr(replay_decode, "read_shot", lambda reader, index: (time.sleep(0.06), read(reader, index))[1])
    app = GuilensApp(lambda: ReplayScreen(episode))
    paints = Paints(lambda: state(app))
    paints.install(monkeypatch)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        await settled(pilot, screen, 0)
        assert next(s for s in paints.seen if s is not None) == ("step 1 of 30", 0, 1)


async def test_the_replay_is_styled_once_before_its_first_paint(episode: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual styles every widget as it mounts, and again when the screen first resumes, which comes
    right after that mount: the replay skips the second styling (about 10 ms of the first step at
    200x60). What the styles depend on is in place all the same: the width's class, and the focus
    on the list, whose panel `:focus-within` lights."""
    styled: list[str] = []
    apply = Stylesheet.apply

    def counted(sheet: Stylesheet, node: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(node, ReplayScreen):
            styled.append("screen")
        return apply(sheet, node, *args, **kwargs)

    monkeypatch.setattr(Stylesheet, "apply", counted)
    app = GuilensApp(lambda: ReplayScreen(episode))
    paints = Paints(lambda: len(styled) if isinstance(app.screen, ReplayScreen) and app.screen.is_mounted else None)
    paints.install(monkeypatch)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        await settled(pilot, screen, 0)
        assert next(s for s in paints.seen if s is not None) == 1
        assert screen.has_class("-wide") and screen.query_one("#steps").has_pseudo_class("focus-within")
        assert screen.query_one("#steps").styles.border_top == ("round", Color.parse(app.theme_variables["accent"]))


async def test_the_first_steps_frames_are_made_on_the_decoding_threads(episode: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Each of step 1's screens is shrunk for its phone by the thread that decoded it, while Textual
    mounts the screen: the event loop makes no frame for the first paint, and its rows are parsed
    before that paint too."""
    made: list[str] = []
    prepare = PhoneView.prepare

    def watched(phone: PhoneView, *args: Any, **kwargs: Any) -> Any:
        made.append(threading.current_thread().name)
        return prepare(phone, *args, **kwargs)

    monkeypatch.setattr(PhoneView, "prepare", watched)
    app = GuilensApp(lambda: ReplayScreen(episode))
    paints = Paints(lambda: (state(app), list(made)))
    paints.install(monkeypatch)
    async with app.run_test(size=(200, 60)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        await settled(pilot, screen, 0)
        shown, before_paint = next(s for s in paints.seen if s[0] is not None)
        assert shown == ("step 1 of 30", 0, 1)
        assert len(before_paint) == 2 and all(name.startswith("replay-decode") for name in before_paint), before_paint
        rows = screen.query_one("#step-list", StepList)
        missing = [i for i in range(min(rows.count, rows.scrollable_content_region.height))
                   if rows._contents.get(i) is None]
        assert not missing, (missing, rows.count)


async def test_a_step_not_prepared_ahead_is_shown_whole(episode: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replay_screen, "TEXT_WAIT", 10.0)  # the frames always win, however slow the machine
    async with opened(episode, (160, 48)) as (pilot, screen):
        paints = Paints(lambda: state(screen.app))
        paints.install(monkeypatch)
        for target in (20, 9, 27):  # far from each other: nothing prepared ahead
            assert screen.loader is not None and screen.loader.cached(target) is None
            screen.index = target
            await settled(pilot, screen, target)
        for title, before, after in (s for s in paints.seen if s is not None and s[1] is not None):
            step = int(title.split()[1]) - 1
            assert (before, after) == (step, step + 1), f"{title} painted beside the screens of step {before}"
        assert {s[0] for s in paints.seen if s is not None} >= {"step 21 of 30", "step 10 of 30", "step 28 of 30"}


async def test_text_goes_up_alone_when_the_frames_are_late(episode: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gate = threading.Event()
    read = replay_decode.read_shot

    def slow(reader: EpisodeReader, index: int) -> Any:
        if index >= 10:
            gate.wait(10)
        return read(reader, index)

    monkeypatch.setattr(replay_decode, "read_shot", slow)
    async with opened(episode, (160, 48)) as (pilot, screen):
        screen.index = 20
        await pilot.pause(replay_screen.TEXT_WAIT + 0.3)
        assert screen.query_one("#detail-box").border_title == "step 21 of 30"  # the text did not wait forever
        assert screen.query_one("#step-list", StepList).highlighted == 20
        gate.set()
        await settled(pilot, screen, 20)


async def test_with_a_key_held_down_the_text_follows_while_the_frames_are_late(
        episode: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gate = threading.Event()
    read = replay_decode.read_shot
    monkeypatch.setattr(replay_decode, "read_shot",
                        lambda reader, index: (gate.wait(10) if index >= 4 else None, read(reader, index))[1])
    async with opened(episode, (160, 48)) as (pilot, screen):
        steps = screen.query_one("#step-list", StepList)
        for _ in range(12):  # a key held down: each press newer than the last one's frames
            await pilot.press("right")
            await pilot.pause(0.05)
        assert steps.highlighted is not None and steps.highlighted > 3  # the list kept up, not stuck at step 1
        gate.set()
        await settled(pilot, screen, 12)


async def test_moving_repaints_what_changed_not_the_whole_screen(episode: Path) -> None:
    wholes: list[int] = []
    async with opened(episode, (160, 48)) as (pilot, screen):
        dirty = screen._set_dirty
        screen._set_dirty = lambda *regions: (wholes.append(len(regions)) if not regions else None,  # type: ignore[method-assign]
                                              dirty(*regions))[1]
        widgets = [*phones(screen), screen.query_one("#detail-box"), screen.query_one("#step-list", StepList)]
        whole: list[str] = []  # a widget repainted whole where a row or its border's row changed
        for widget in widgets:
            mark = widget._set_dirty
            widget._set_dirty = (lambda *regions, _mark=mark, _id=widget.id:  # type: ignore[method-assign]
                                 (whole.append(str(_id)) if not regions else None, _mark(*regions))[1])
        for i in (1, 2, 3):  # in view: the list does not scroll
            await pilot.press("right")
            await settled(pilot, screen, i)
        assert whole == []  # the titles repainted the phones and the detail whole (20 ms a step at 200x60),
        # and the highlight the list (two rows changed)
        await pilot.press("end")
        await settled(pilot, screen, 29)
        assert wholes == []  # every widget of the screen repainted on each move: 20-40 ms a step


async def test_beside_the_text_a_step_prepared_ahead_lays_no_text_out_on_the_event_loop(
        episode: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The loader lays out the next steps' text as it shrinks their frames, so → only hands it over:
    the phones laid their text out on the loop (parse and place, 5 ms a step of 30 at 200x60), and
    before that twice a phone (once more for the screen they were leaving)."""
    laid: list[tuple[str, int, int]] = []
    layout = textphone.layout_screen

    def counted(root: Any, size: Any, cols: int, rows: int, **kw: Any) -> Any:
        laid.append((threading.current_thread().name, cols, rows))
        return layout(root, size, cols, rows, **kw)

    monkeypatch.setattr(textphone, "layout_screen", counted)
    both = fixed("halfcell", view="both", cell=cell_size())
    async with opened(episode, (200, 60), renderer=both) as (pilot, screen):
        loop = threading.current_thread().name
        for phone in phones(screen):
            assert phone.text is not None and phone.text.text_layout is not None
        for i in (1, 2, 3):
            await pilot.pause(0.3)  # idle: the loader has prepared the neighbours
            laid.clear()
            await pilot.press("right")
            await settled(pilot, screen, i)
            assert [t for t in laid if t[0] == loop] == [], f"step {i + 1} laid its text out on the loop"
            for phone in phones(screen):
                text = phone.text
                assert text is not None and text.text_layout is not None
                fresh = textphone.text_frame(phone.shown.ui_xml, phone.screen_size, *text.cells,
                                             phone.viewport, phone.shown.action)
                assert fresh.layout is not None  # what the phone would have laid out itself:
                assert (text.text_layout.lines, text.text_layout.placed) == (fresh.layout.lines, fresh.layout.placed)
        phone = phones(screen)[0]
        phone.magnify(2)  # a viewport the prepared layouts were not made for: the phone lays out its own
        await pilot.pause(0.1)
        laid.clear()
        await pilot.press("right")
        await settled(pilot, screen, 4)
        assert phone.text is not None and phone.text.viewport == phone.viewport is not None


async def test_a_list_longer_than_its_view_keeps_its_scroll_bar_until_it_scrolls(episode: Path) -> None:
    """At 24 rows the 30 steps overflow the list: a move within view lays the screen out again (the
    detail's text changed) but leaves the list's scroll bar alone; new rows still reach the bar."""
    async with opened(episode, (160, 24)) as (pilot, screen):
        steps = screen.query_one("#step-list", StepList)
        bar = steps.vertical_scrollbar
        assert steps.show_vertical_scrollbar and bar.window_virtual_size == 30
        repaints: list[int] = []
        refresh = bar.refresh
        bar.refresh = lambda *a, **k: (repaints.append(1), refresh(*a, **k))[1]  # type: ignore[method-assign]
        layouts = screen._refresh_layout
        laid: list[int] = []
        screen._refresh_layout = lambda *a, **k: (laid.append(1), layouts(*a, **k))[1]  # type: ignore[method-assign]
        for i in (1, 2, 3):
            await pilot.press("right")
            await settled(pilot, screen, i)
        assert laid and repaints == []  # laid out each time, the bar repainted each time (3-5 ms a step)
        steps.set_rows(40, screen._row)  # more rows than before (a step's index past 30 is never drawn here)
        await wait_for(pilot, lambda: bar.window_virtual_size == 40, what="the scroll bar sized for 40 rows")


async def test_home_and_end_reach_the_screen_without_the_list_moving_first(episode: Path) -> None:
    posted: list[Any] = []
    async with opened(episode, (160, 24)) as (pilot, screen):  # fewer rows than steps: the list scrolls
        steps = screen.query_one("#step-list", StepList)
        assert steps.has_focus
        original = steps.post_message
        steps.post_message = lambda message: (posted.append(message), original(message))[1]  # type: ignore[method-assign]
        await pilot.press("end")
        await settled(pilot, screen, 29)
        assert steps.highlighted == 29 and steps.scroll_offset.y > 0  # the row in view
        await pilot.press("home")
        await settled(pilot, screen, 0)
        assert steps.highlighted == 0 and steps.scroll_offset.y == 0
        assert not [m for m in posted if isinstance(m, StepList.Highlighted)]
        await pilot.press("down")  # the list's own keys still move it, and tell the screen
        await settled(pilot, screen, 1)
        assert [m.index for m in posted if isinstance(m, StepList.Highlighted)] == [1]


def open_loader(episode: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[ReplayLoader, list[Pair]]]:
    """A loader on `episode` with no screen around it, and the pairs it delivers (closed after)."""
    monkeypatch.setattr(replay_frames, "PAINT_WAIT", 10.0)
    reader = EpisodeReader(episode)
    delivered: list[Pair] = []
    screens = EpisodeScreens(reader)
    made = ReplayLoader(screens, [s.action for s in reader.steps], prepare=lambda image, action: None,
                        frame_key=lambda: (40, 44), deliver=delivered.append)
    yield made, delivered
    made.close()


@pytest.fixture
def loader(episode: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[ReplayLoader, list[Pair]]]:
    yield from open_loader(episode, monkeypatch)


def wait(cond: Callable[[], bool], timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.01)


def test_the_neighbours_wait_for_the_step_to_be_painted(loader: tuple[ReplayLoader, list[Pair]]) -> None:
    made, delivered = loader
    made.request(10)
    wait(lambda: len(delivered) == 1)
    time.sleep(0.3)
    assert made.screens.decodes == 2  # the step's two screens, and nothing ahead while it is painted
    made.painted(10)
    wait(lambda: made.cached(12) is not None and made.cached(9) is not None)
    assert made.screens.decodes == 5  # then the next two and the previous one (one new screen each)


def test_a_newer_request_does_not_wait_for_the_old_paint(loader: tuple[ReplayLoader, list[Pair]]) -> None:
    made, delivered = loader
    made.request(3)
    wait(lambda: len(delivered) == 1)
    made.request(20)  # never painted step 4: the loader serves step 21 at once
    wait(lambda: len(delivered) == 2, timeout=2.0)
    assert [p.index for p in delivered] == [3, 20]


def test_prepare_ready_makes_the_pair_only_from_decoded_screens(loader: tuple[ReplayLoader, list[Pair]]) -> None:
    made, _ = loader
    assert made.prepare_ready(15) is None and made.screens.decodes == 0  # starts nothing
    made.screens.get(15), made.screens.get(16)
    pair = made.prepare_ready(15)
    assert pair is not None and pair.index == 15 and pair.before.image is not None
    assert made.cached(15) is not None



def test_work_on_a_decoded_screen_runs_on_a_decoding_thread(episode: Path) -> None:
    """`when_decoded` runs on the pool whether the screen is still decoding or decoded already: a done
    future's callback would otherwise run at once on the caller's thread, the event loop (step 1's
    frames were made there whenever its screens decoded before Textual reached the compose)."""
    screens = EpisodeScreens(EpisodeReader(episode))
    try:
        ran: list[str] = []
        done = threading.Event()

        def then(fut: Any) -> None:
            ran.append(threading.current_thread().name)
            assert fut.result().index == 3
            done.set()

        screens.when_decoded(3, then)  # still decoding
        assert done.wait(10)
        done.clear()
        screens.get(3)
        screens.when_decoded(3, then)  # decoded already
        assert done.wait(10)
        assert len(ran) == 2 and all(name.startswith("replay-decode") for name in ran), ran
    finally:
        screens.close()


async def test_the_halfcell_view_blank_cells_follow_a_new_theme() -> None:
    from PIL import Image
    from textual.app import App, ComposeResult

    from guilens.screens.widgets.halfcell import prepare_frame
    from guilens.screens.widgets.halfcell_view import HalfcellView

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield HalfcellView()

    app = Host()
    async with app.run_test(size=(60, 30)) as pilot:
        view = app.query_one(HalfcellView)
        await pilot.pause()
        view.set_frame(prepare_frame(Image.new("RGB", (1080, 2400), (200, 30, 30)), view.size))
        await pilot.pause()

        def margin() -> Any:  # the style of the blank cells left of the phone
            return view.render_line(view.size.height // 2)._segments[0].style.bgcolor

        was = margin()
        app.theme = "textual-light" if app.theme != "textual-light" else "nord"
        await pilot.pause(0.2)
        assert margin() != was and margin() == view.rich_style.bgcolor
