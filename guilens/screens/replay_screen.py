"""The replay screen: a recorded episode, step by step.

Steps as a list (and ←/→, Home/End, `g` to go to a step); the screen before
the step with its action drawn and the screen after; the thought, memory and
milestones at that step; the judge's verdict with every stage's reason and
the steps it looked at (those steps are marked ◆ in the list). `j` judges.

Opening and moving do not grow with the episode once its list fills the panel
(`benchmarks/bench_replay.py`): the list draws only the rows in view (`StepList`);
the screens are decoded on threads, step 1's from the episode's opening
(`EpisodeScreens.opening`: `guilens replay` opens it, steps and all, before
Textual starts; 0.78x the tree before's time to step 1 at 200 steps), and
the neighbours' frames are prepared ahead (`replay_frames`), so ← → only hand a
finished frame to the phones; the task's milestones (scenario files) are looked
up after the first step is painted; the heap is frozen while the replay is open,
and the collector's passes wait for a moment the person spends reading a step
(`replay_heap`), so they land neither on the first paint nor on a jump. A jump supersedes whatever
was still loading for the step before it; a frame for a step left is dropped.

Every paint costs Textual 10-40 ms at 200x60, so the screen paints as few as it can:

- the first step is in the first paint: the phones' box is worked out before the
  first layout, and the width's class is set before it too, so there is no second
  one; a decode still running when the screen mounts is waited for; the modules
  the paint would import are imported with the screen;
- the widgets are styled once, as they mount, not again when the screen first
  resumes right after (`_styled_at_mount`: 102 against 132 ms to the first step
  at 200 steps, 104 against 112 at 21, medians of 6 rounds side by side with the
  tree before in `benchmarks/bench_replay.py --baseline`);
- the screen has as few widgets as its look needs, since each is mounted, styled
  and painted before the first step: the phones sit in the body row itself, and
  the Memory and Milestones headings are drawn by their views (`Headed`): 0.93x
  the tree before's time to step 1 (30 back-to-back pairs, 200 steps);
- `g` prepares the step whose number is being typed, and its Enter shows that
  step in the paint that closes the prompt, not the step left (`replay_keys`);
- a step is shown whole, its text with its frames (`watch_index`); moving
  repaints the widgets that changed, not the screen; Home and End go straight to
  the screen.

Steps are numbered from 1, as the run screen and the report number them
(`describe.step_number`): a 17-step episode is "17 steps", its panels read
"step 1 of 17" to "step 17 of 17", and `g` takes those numbers. The screens
beside a step are the one it saw ("before · step 3") and the one its action
left ("after · step 3"). Each step's time is shown by who spent it (the trace's
step header), and the episode's in the summary.

`m` labels the episode success or failure, with a reason: a person's call,
saved as `label.json` beside the verdict (`guilens.judge.labels`), which
`guilens judge-eval` scores the judge against. The summary shows the label and
the judge's decision beside it.
"""

from __future__ import annotations

from concurrent.futures import wait as futures_wait
from pathlib import Path
from typing import TYPE_CHECKING, Any

# Imported with the screen, not on first use while the first step is painted (15-20 ms): the scroll
# bars of the panels, the text phone each `PhoneView` composes, the label's file and dialog.
import textual.scrollbar  # noqa: F401
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Static

import guilens.judge.labels
import guilens.screens.label_modal
import guilens.screens.widgets.textphone  # noqa: F401
from guilens.describe import step_number
from guilens.episode import EpisodeReader, Step
from guilens.screens import replay_heap as heap
from guilens.screens.replay_decode import EpisodeScreens
from guilens.screens.replay_frames import Pair, ReplayLoader
from guilens.screens.replay_keys import ReplayKeys
from guilens.screens.replay_steps import looked_at, reached_by_step, step_row, summary, task_of
from guilens.screens.widgets.border_titles import TitledScroll
from guilens.screens.widgets.memory import MemoryView
from guilens.screens.widgets.milestones import MilestoneView, rows_from_task
from guilens.screens.widgets.phone import PhoneView, Renderer
from guilens.screens.widgets.render import render_step
from guilens.screens.widgets.steady_footer import SteadyFooter
from guilens.screens.widgets.step_list import StepList
from guilens.screens.widgets.verdict import VerdictView

if TYPE_CHECKING:
    from guilens.judge.labels import Label


FIRST_WAIT = 0.15
"""Seconds the first paint waits for the first step's screens to finish decoding (see `on_mount`)."""
TEXT_WAIT = 0.08
"""Seconds a step's text waits for its frames before it is shown without them (see `watch_index`)."""


class Loaded(Message):
    """A step's screens, decoded and prepared on the loader's thread."""

    def __init__(self, pair: Pair) -> None:
        super().__init__()
        self.pair = pair


class TaskFound(Message):
    """The task the episode ran (or None), looked up on a thread."""

    def __init__(self, task: Any) -> None:
        super().__init__()
        self.task = task


class ReplayScreen(ReplayKeys):
    HELP_TITLE = "replay"
    KEY_HELP = [
        ("Moving", [("← →", "previous / next step"), ("Home / End", "first / last step"),
                    ("g", "go to a step by number"), ("↑ ↓ in the list", "pick a step")]),
        ("The episode", [("j", "judge it (stages appear as they complete)"),
                         ("m", "label it success or failure, with a reason (for guilens judge-eval)"),
                         ("z", "zoom the two screens to the whole terminal"),
                         ("v", "the phones as pixels, as the UI tree's text, or both side by side"),
                         ("+ / -", "magnify around the action's target (arrows pan while a phone has focus)"),
                         ("q, Esc", "back (quit when this is the first screen)")]),
        ("Everywhere", [("?", "this help"), ("ctrl+p", "command palette")]),
    ]
    BINDINGS = [
        Binding("left", "move(-1)", "Prev", key_display="←"),
        Binding("right", "move(1)", "Next", key_display="→"),
        Binding("home", "first", "First", show=False),
        Binding("end", "last", "Last", show=False),
        Binding("g", "goto", "Go to"),
        Binding("l", "llm_calls", "LLM calls"),
        Binding("j", "judge", "Judge"),
        Binding("m", "label", "Label"),
        Binding("z", "zoom", "Zoom"),
        Binding("v", "cycle_view", "View"),
        Binding("plus,equals_sign", "magnify(1)", "Magnify", key_display="+", show=False),
        Binding("minus", "magnify(-1)", "Less", key_display="-", show=False),
        Binding("q,escape", "back", "Back"),
    ]

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (150, "-wide")]

    index: reactive[int] = reactive(0, init=False, repaint=False)
    """The step in view. Not a repaint of the whole screen: the widgets it changes repaint themselves."""

    def __init__(self, path: Path | str | None = None, *, renderer: Renderer = "halfcell", settings: Any = None,
                 screens: EpisodeScreens | None = None) -> None:
        """The episode at `path`, or `screens`: the episode already opened, steps and all, with its
        first step's screens decoding since (`EpisodeScreens.opening`: `guilens replay` opens it before
        the terminal changes, so a bad file is a one-line error). One of the two: the screens name
        their episode's directory themselves."""
        super().__init__()
        try:  # the width's class now, as Textual would set it after the first layout: no second layout
            width = self.app.size.width
        except RuntimeError:  # no app yet
            width = None
        if width is not None:
            wide = width >= self.HORIZONTAL_BREAKPOINTS[1][0]
            self.update_classes({"-wide": wide, "-narrow": not wide}, update=False)
        self.renderer: Renderer = renderer
        self.settings = settings
        if screens is None:
            if path is None:
                raise TypeError("ReplayScreen takes an episode's path or its opened screens")
            screens = EpisodeScreens.opening(EpisodeReader(path))
        elif path is not None:
            raise TypeError("ReplayScreen takes an episode's path or its opened screens, not both")
        self.screens = screens
        self.reader = self.screens.reader
        self.path = self.reader.dir
        self.steps: list[Step] = self.reader.steps
        self.loader: ReplayLoader | None = None
        self._settled = False
        self._resumed = False
        self.collector = heap.Collector()
        """The heap frozen and the collector's passes off the key path while this screen is open and
        in front (`replay_heap`)."""
        self._text_of: int | None = None
        """The step whose text (row, detail, titles) is up: it waits for the step's frames (see `watch_index`)."""
        self.verdict: dict[str, Any] | None = self.reader.verdict()
        self._looked = looked_at(self.verdict, len(self.steps) + 1)
        self._reached = reached_by_step(self.reader.episode.milestones, self.steps)
        self.task_def: Any = None
        """The task the episode ran (for the milestone list): looked up after the first paint."""
        self.label: Label | None = None
        """The person's label (`label.json`), or None."""
        self.label_problem: str | None = None
        """Why `label.json` could not be read, if it could not."""
        self._read_label()

    def compose(self) -> ComposeResult:
        self.collector.open()  # until unmount; no pass in the first paint (15 ms of it at 200 steps)
        ep = self.reader.episode
        head = self._summary()
        yield Static(head, id="summary")
        with Horizontal(id="body"):
            with Vertical(id="steps") as box:
                box.border_title = f"{len(self.steps)} steps"
                yield StepList(len(self.steps), self._row, id="step-list")
            before = PhoneView(self.renderer, id="before")
            before.border_title = "before"
            after = PhoneView(self.renderer, id="after")
            after.border_title = "after"
            # Sized now from the app's size, so the first layout is the last (no frame made twice).
            width, height = self.app.size
            before.styles.width = after.styles.width = cols = self._phone_cols(before, width, height)
            # The area the first layout will give them, so the first step's frames and text are
            # made for it before that layout and are in the first paint (`PhoneView.expect`).
            area = (cols - 2, height - head.get_height({}, width) - 3)
            before.expect(*area)
            after.expect(*area)
            yield before
            yield after
            self.loader = self._make_loader(before, after)
            if self.steps:  # step 1's frames are made as its screens decode, while Textual mounts
                self.loader.prepare_when_decoded(0)
            with Vertical(id="detail"):
                with TitledScroll(id="detail-box") as box:
                    box.border_title = "step"
                    yield Static(id="step-detail")
                    yield MemoryView(id="memory", heading="Memory")
                    yield MilestoneView(id="milestones", heading="Milestones")
                with VerticalScroll(id="verdict-box") as box:
                    box.border_title = "verdict"
                    yield VerdictView(id="verdict")
        yield SteadyFooter(compact=True)
        self.sub_title = f"{ep.scenario}:{ep.task}" if ep.scenario else ep.task

    def _summary(self) -> Content:
        return summary(self.reader) + Content("\n") + self._label_line()

    def _row(self, i: int) -> Content:
        return step_row(self.steps[i], self._looked)

    def _phone_cols(self, before: PhoneView, width: int, height: int) -> int:
        """Each phone as wide as its view needs at this height (pixels at the screen's aspect, text
        wider), within a share of the terminal's width."""
        if self.zoomed:
            return width // 2
        rows = max(4, height - 5)  # summary, footer, borders
        share = 3 / 10 if width >= 150 else 1 / 5
        if before.view != "pixels":  # text wants width, but the step's detail needs room too
            share = 1 / 4 if width >= 150 else 1 / 5
        return min(before.wanted_width(rows) + 2, max(16, int(width * share)))

    def on_resize(self) -> None:
        self._size_phones()

    def _size_phones(self) -> None:
        before = self.query_one("#before", PhoneView)
        cols = self._phone_cols(before, self.size.width, self.size.height)
        for phone in (before, self.query_one("#after", PhoneView)):
            if phone.styles.width is None or phone.styles.width.value != cols:
                phone.styles.width = cols

    def _make_loader(self, before: PhoneView, after: PhoneView) -> ReplayLoader:
        return ReplayLoader(
            self.screens, [s.action for s in self.steps], prepare=before.prepare,
            frame_key=lambda: (before.box, before.viewport, after.box, after.viewport, before.renderer),
            deliver=lambda pair: self.post_message(Loaded(pair)),
            laid_out=lambda: before.box != (0, 0) or before.view == "text", prepare_text=before.prepare_text,
            text_key=lambda: (before.text_size(), before.viewport))

    def on_mount(self) -> None:
        self.set_interval(heap.CHECK_S, self.collector.tick, name="collector")
        self.query_one(VerdictView).show(self.verdict)
        steps = self.query_one("#step-list", StepList)
        steps.focus()
        assert self.loader is not None  # made in `compose`
        if self.steps:
            # While the first step's screens still decode and shrink on other threads: the rows the
            # first paint shows, parsed now rather than inside that paint.
            steps.prepare_rows(0, self.app.size.height)
            # The first paint would show no phones without them, and a second paint costs more than the
            # rest of the decode: wait for them here (the GIL let go, so the decoders run at full speed).
            futures_wait([self.screens.future(0), self.screens.future(1)], timeout=FIRST_WAIT)
            if self.loader.wait_ready(0, FIRST_WAIT / 3) is None:  # frames made on the decoders' threads
                self.loader.prepare_ready(0)  # else here: a box guessed wrong, or a slow thread
            self.watch_index(0)
        else:
            self.query_one("#step-detail", Static).update("This episode has no steps.")
            self.call_after_refresh(self._find_task)

    def on_screen_suspend(self) -> None:
        self.collector.resume()  # another screen is in front: its paints are not the replay's to schedule

    def on_screen_resume(self) -> None:
        if self.collector.opened:
            self.collector.pause()

    @on(events.ScreenResume)
    def _styled_at_mount(self, event: events.ScreenResume) -> None:
        """Textual styles every widget of a screen as it mounts, then again when the screen resumes;
        a pushed screen's first resume comes right after that mount, with nothing changed in between
        (about 10 ms at 200x60, before the first paint). Runs before `Screen`'s own handler (the
        subclass's comes first in Textual's dispatch), which then lays out and focuses as usual."""
        if not self._resumed:
            self._resumed = True
            event.refresh_styles = False

    def on_unmount(self) -> None:
        if self.loader is not None:
            self.loader.close()
        self.screens.close()
        self.collector.close()

    @work(thread=True, exclusive=True, group="replay-task")
    def _find_task(self) -> None:
        """The task definition, for the milestone list: reads the scenario files, so after the first step
        is painted (a thread still holds the GIL much of the time)."""
        self.post_message(TaskFound(task_of(self.reader)))  # not call_from_thread: the app may be leaving

    def on_task_found(self, message: TaskFound) -> None:
        self.task_def = task = message.task
        self.query_one(MilestoneView).set_rows(rows_from_task(task) if task is not None else [])
        if self._text_of is not None:  # the step whose text is up (the next may wait for its frames)
            self._show_step(self._text_of)

    # -- moving ------------------------------------------------------------------------------
    def watch_index(self, index: int) -> None:
        """Show step `index` whole: its row, text and both frames in one paint.

        A step prepared ahead is shown now. Otherwise its text waits for its frames (a decode and a
        shrink on other threads, 10-20 ms) for up to `TEXT_WAIT`: painting the text first would
        hold the event loop through a paint of its own just when the frames arrive, and show the
        new step's text beside the old step's screens."""
        if not self.steps or self.loader is None:
            return
        self.collector.asked_for_step()
        pair = self.loader.cached(index)
        if pair is not None:  # prepared ahead: shown now, no thread to wait for
            self._show_text(index)
            self._show(pair)
        else:
            self.set_timer(TEXT_WAIT, self._text_due)
        self.loader.request(index)  # on a hit, this serves nothing new and prepares the neighbours

    def _text_due(self) -> None:
        """The frames are late: the text of the step in view goes up without them. The step in view,
        not the one that set the timer: with a key held down, the list keeps following."""
        if self._text_of != self.index:
            self._show_text(self.index)

    def _show_text(self, index: int) -> None:
        """The step's row in the list, its text and the phones' titles."""
        self._text_of = index
        self.query_one("#step-list", StepList).highlight(index)
        self._show_step(index)
        n = step_number(index)
        last = index + 1 >= len(self.steps)
        self.query_one("#before", PhoneView).retitle(f"before · step {n}")
        self.query_one("#after", PhoneView).retitle(f"after · step {n}" + (" · final screen" if last else ""))

    def _show_step(self, index: int) -> None:
        """The step's text: detail, memory, milestones."""
        step = self.steps[index]
        prev = self.steps[index - 1].memory if index > 0 else None
        self.query_one(MemoryView).show(step.memory, prev)
        milestones = self.query_one(MilestoneView)
        milestones.set_reached(self._reached[index], {h.id: h.text for h in self.reader.episode.milestones})
        texts = {h.id: h.text for h in self.reader.episode.milestones if h.text}
        texts.update({r.id: r.text for r in milestones.rows if r.text})
        detail = render_step(step, texts)
        judged = self._looked.get(index)
        if judged:
            detail = detail + Content.from_markup("\n[$accent]◆ the judge looked at this step: $s[/]",
                                                  s=", ".join(judged))
        self.query_one("#step-detail", Static).update(detail)
        self.query_one("#detail-box", TitledScroll).retitle(f"step {step_number(index)} of {len(self.steps)}")

    def on_loaded(self, message: Loaded) -> None:
        if message.pair.index == self.index:  # else a step already left: the next Loaded is on its way
            if self._text_of != self.index:
                self._show_text(self.index)
            self._show(message.pair)

    def _show(self, pair: Pair) -> None:
        before, after = self.query_one("#before", PhoneView), self.query_one("#after", PhoneView)
        if before.shown.image is pair.before.image and before.shown.image is not None \
                and after.shown.image is pair.after.image and before.shown.action == self.steps[pair.index].action:
            return  # shown already, from the cache
        if self.loader is not None:
            self.call_after_refresh(self.loader.painted, pair.index)
        before.show(pair.before.image, self.steps[pair.index].action, frame=pair.before_frame,
                    ui_xml=pair.before.ui_xml, text=pair.before_text)
        after.show(pair.after.image, frame=pair.after_frame, ui_xml=pair.after.ui_xml, text=pair.after_text)
        for problem in (pair.before.problem, pair.after.problem):
            if problem:
                self.notify(problem, severity="error", timeout=8)
        if not self._settled:  # the first step is on screen: a moment the person spends looking
            self._settled = True
            self.call_after_refresh(self._settle)

    def _settle(self) -> None:
        self.collector.settle()
        self._find_task()

    @on(StepList.Highlighted, "#step-list")
    def _picked(self, event: StepList.Highlighted) -> None:
        if event.index != self.index:
            self.index = event.index

    def action_move(self, delta: int) -> None:
        if self.steps:
            self.index = max(0, min(len(self.steps) - 1, self.index + delta))

    def action_first(self) -> None:
        self.index = 0

    def action_last(self) -> None:
        if self.steps:
            self.index = len(self.steps) - 1
