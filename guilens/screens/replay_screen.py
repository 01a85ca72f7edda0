"""The replay screen: a recorded episode, step by step.

Steps as a list (and ←/→, Home/End, `g` to go to a step); the screen before
the step with its action drawn and the screen after; the thought, memory and
milestones at that step; the judge's verdict with every stage's reason and
the steps it looked at (those steps are marked ◆ in the list). `j` judges.
Screens are decoded on a thread, so scrubbing never stalls the keys.

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

from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from guilens.describe import step_number, time_text
from guilens.episode import EpisodeReader, Step
from guilens.screens.widgets.memory import MemoryView
from guilens.screens.widgets.milestones import MilestoneView, rows_from_task
from guilens.screens.widgets.phone import PhoneView, Renderer
from guilens.screens.widgets.render import STATUS_STYLE, action_text, render_step, short
from guilens.screens.widgets.verdict import VerdictView

if TYPE_CHECKING:
    from guilens.judge.labels import Label


def looked_at(verdict: dict[str, Any] | None, total: int | None = None) -> dict[int, list[str]]:
    """Step -> the judge stages that looked at it (a stage that read every step marks none)."""
    out: dict[int, list[str]] = {}
    for stage in (verdict or {}).get("stages", []) or []:
        steps = stage.get("steps", []) or []
        if total is not None and len(set(steps)) >= total:
            continue
        for n in steps:
            out.setdefault(int(n), []).append(stage.get("stage", "?"))
    return out


def task_of(reader: EpisodeReader) -> Any:
    """The task definition the episode ran, if guilens can still find it."""
    try:
        from guilens.judge.pipeline import resolve_task

        return resolve_task(reader)[1]
    except Exception:  # an unknown or changed scenario only costs the pending milestone rows
        return None


class ReplayScreen(Screen[None]):
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

    index: reactive[int] = reactive(0, init=False)
    zoomed: reactive[bool] = reactive(False)

    def __init__(self, path: Path | str, *, renderer: Renderer = "halfcell", settings: Any = None) -> None:
        super().__init__()
        self.path = Path(path)
        self.renderer: Renderer = renderer
        self.settings = settings
        self.reader = EpisodeReader(self.path)
        self.steps: list[Step] = self.reader.steps
        self.verdict: dict[str, Any] | None = self.reader.verdict()
        self.task_def = task_of(self.reader)
        self.label: Label | None = None
        """The person's label (`label.json`), or None."""
        self.label_problem: str | None = None
        """Why `label.json` could not be read, if it could not."""
        self._read_label()

    def compose(self) -> ComposeResult:
        ep = self.reader.episode
        yield Static(self._summary(), id="summary")
        with Horizontal(id="body"):
            with Vertical(id="steps") as box:
                box.border_title = f"{len(self.steps)} steps"
                yield OptionList(*self._options(), id="step-list")
            with Horizontal(id="screens"):
                before = PhoneView(self.renderer, id="before")
                before.border_title = "before"
                yield before
                after = PhoneView(self.renderer, id="after")
                after.border_title = "after"
                yield after
            with Vertical(id="detail"):
                with VerticalScroll(id="detail-box") as box:
                    box.border_title = "step"
                    yield Static(id="step-detail")
                    yield Static(Content.from_markup("[b]Memory[/]"), classes="sub-heading")
                    yield MemoryView(id="memory")
                    yield Static(Content.from_markup("[b]Milestones[/]"), classes="sub-heading")
                    yield MilestoneView(id="milestones")
                with VerticalScroll(id="verdict-box") as box:
                    box.border_title = "verdict"
                    yield VerdictView(id="verdict")
        yield Footer(compact=True)
        self.sub_title = f"{ep.scenario}:{ep.task}" if ep.scenario else ep.task

    def _summary(self) -> Content:
        ep = self.reader.episode
        what = f"{ep.scenario}:{ep.task}" if ep.scenario else ep.task
        style = STATUS_STYLE.get(ep.status, "$text")
        bits = [ep.level, f"attempt {ep.attempt}/{ep.attempts}", ep.agent or "agent", ep.device or "",
                f"{len(self.steps)} steps"]
        if ep.timings.duration_s is not None:
            bits.append(time_text(ep.timings))
        if ep.cost_usd:
            bits.append(f"${ep.cost_usd:.4f}")
        if self.reader.interrupted:
            bits.append("the writer stopped early")
        head = Content.from_markup(f" [b]$what[/] · [b {style}]$status[/] · $bits\n [i]$instr[/]", what=what,
                                   status=ep.status, bits=" · ".join(b for b in bits if b),
                                   instr=short(ep.instruction, 300))
        return head + Content("\n") + self._label_line()

    # -- the person's label ------------------------------------------------------------------
    def _read_label(self) -> None:
        from guilens.judge.labels import LabelError, read_label

        try:
            self.label, self.label_problem = read_label(self.path), None
        except LabelError as err:
            self.label, self.label_problem = None, str(err)

    def _label_line(self) -> Content:
        from guilens.screens.label_modal import label_line

        return label_line(self.label, self.label_problem, self.verdict)

    def _show_label(self) -> None:
        self.query_one("#summary", Static).update(self._summary())

    def action_label(self) -> None:
        """Label the episode (success/failure and a reason), change the label, or clear it."""
        from guilens.screens.label_modal import LabelChoice, LabelScreen
        from guilens.storage import StorageError, check_file_target

        try:
            check_file_target(self.path / "label.json")
        except StorageError as err:
            self.notify(f"Cannot label this episode: {err.path}: {err.why} (a read-only run?)",
                        severity="error", timeout=8)
            return

        def done(choice: LabelChoice | None) -> None:
            if choice is None:
                return
            from guilens.judge.labels import clear_label, write_label

            word, reason = choice
            try:
                if word == "clear":
                    clear_label(self.path)
                else:
                    write_label(self.path, word, reason)
            except (StorageError, ValueError) as err:
                self.notify(f"The label was not saved: {err}", severity="error", timeout=8)
                return
            self._read_label()
            self._show_label()
            self.notify("Label cleared" if word == "clear" else f"Labelled {word}", timeout=2)

        ep = self.reader.episode
        title = f"Label · {ep.task} · attempt {ep.attempt}"
        self.app.push_screen(LabelScreen(title, current=self.label.label if self.label else None,
                                         reason=self.label.reason if self.label else "",
                                         judge=(self.verdict or {}).get("decision")), done)

    def _options(self) -> list[Option]:
        seen = looked_at(self.verdict, len(self.steps) + 1)
        opts = []
        for s in self.steps:
            flags = ""
            if s.milestones:
                flags += " ★"
            if s.error:
                flags += " ✗"
            if s.index in seen:
                flags += " ◆"
            who = "[$warning]H[/] " if s.by == "human" else ""
            opts.append(Option(Content.from_markup(f"[$text-muted]$n[/] {who}$a[$accent]$f[/]",
                                                   n=f"{step_number(s.index):>3}", a=short(action_text(s.action), 24),
                                                   f=flags),
                               id=str(s.index)))
        return opts

    def on_resize(self) -> None:
        """Each phone as wide as its view needs at this height (pixels at the screen's aspect, text
        wider), within a share of the terminal's width."""
        before = self.query_one("#before", PhoneView)
        if self.zoomed:
            cols = self.size.width // 2
        else:
            rows = max(4, self.size.height - 5)  # summary, footer, borders
            share = 3 / 10 if self.size.width >= 150 else 1 / 5
            if before.view != "pixels":  # text wants width, but the step's detail needs room too
                share = 1 / 4 if self.size.width >= 150 else 1 / 5
            cols = min(before.wanted_width(rows) + 2, max(16, int(self.size.width * share)))
        for phone in (before, self.query_one("#after", PhoneView)):
            phone.styles.width = cols

    def action_cycle_view(self) -> None:
        after = self.query_one("#after", PhoneView)
        view = self.query_one("#before", PhoneView).cycle_view()
        after.view = view
        self.on_resize()
        self.notify(f"Phones: {view}", timeout=2)

    def action_magnify(self, delta: int) -> None:
        for phone in self.query(PhoneView):
            phone.magnify(phone.zoom + delta)

    def on_mount(self) -> None:
        milestones = self.query_one(MilestoneView)
        milestones.set_rows(rows_from_task(self.task_def) if self.task_def is not None else [])
        self.query_one(VerdictView).show(self.verdict)
        self.query_one("#step-list", OptionList).focus()
        if self.steps:
            self.index = 0
            self.watch_index(0)
        else:
            self.query_one("#step-detail", Static).update("This episode has no steps.")

    # -- moving ------------------------------------------------------------------------------
    def watch_index(self, index: int) -> None:
        if not self.steps:
            return
        ol = self.query_one("#step-list", OptionList)
        if ol.highlighted != index:
            ol.highlighted = index
        step = self.steps[index]
        prev = self.steps[index - 1].memory if index > 0 else None
        self.query_one(MemoryView).show(step.memory, prev)
        reached = {h.id: h.step for h in self.reader.episode.milestones if h.step <= index}
        for s in self.steps[: index + 1]:
            for mid in s.milestones:
                reached.setdefault(mid, s.index)
        self.query_one(MilestoneView).set_reached(reached, {h.id: h.text for h in self.reader.episode.milestones})
        texts = {h.id: h.text for h in self.reader.episode.milestones if h.text}
        texts.update({r.id: r.text for r in self.query_one(MilestoneView).rows if r.text})
        detail = render_step(step, texts)
        judged = looked_at(self.verdict, len(self.steps) + 1).get(index)
        if judged:
            detail = detail + Content.from_markup("\n[$accent]◆ the judge looked at this step: $s[/]",
                                                  s=", ".join(judged))
        self.query_one("#step-detail", Static).update(detail)
        n = step_number(index)
        self.query_one("#detail-box").border_title = f"step {n} of {len(self.steps)}"
        last = index + 1 >= len(self.steps)
        self.query_one("#before", PhoneView).border_title = f"before · step {n}"
        self.query_one("#after", PhoneView).border_title = f"after · step {n}" + (" · final screen" if last else "")
        self._load(index)

    @work(thread=True, exclusive=True, group="replay-load")
    def _load(self, index: int) -> None:
        before = self.reader.screen(index), self.reader.ui_xml(index)
        last = index + 1 <= len(self.steps)
        after = (self.reader.screen(index + 1), self.reader.ui_xml(index + 1)) if last else (None, None)
        self.app.call_from_thread(self._show, index, before, after)

    def _show(self, index: int, before: tuple[Any, str | None], after: tuple[Any, str | None]) -> None:
        if index != self.index:
            return
        self.query_one("#before", PhoneView).show(before[0], self.steps[index].action, ui_xml=before[1])
        self.query_one("#after", PhoneView).show(after[0], ui_xml=after[1])

    @on(OptionList.OptionHighlighted, "#step-list")
    def _picked(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_index != self.index:
            self.index = event.option_index

    def action_move(self, delta: int) -> None:
        if self.steps:
            self.index = max(0, min(len(self.steps) - 1, self.index + delta))

    def action_first(self) -> None:
        self.index = 0

    def action_last(self) -> None:
        if self.steps:
            self.index = len(self.steps) - 1

    def action_goto(self) -> None:
        from guilens.screens.modals import PromptScreen

        n = len(self.steps)

        first, last = step_number(0), step_number(n - 1)

        def check(text: str) -> str | None:
            if not text.isdigit() or not first <= int(text) <= last:
                return f"a step number from {first} to {last}"
            return None

        def go(text: str | None) -> None:
            if text is not None:
                self.index = int(text) - first

        self.app.push_screen(PromptScreen("Go to step", placeholder=f"{first}-{last}", validate=check), go)

    def action_zoom(self) -> None:
        self.zoomed = not self.zoomed
        self.set_class(self.zoomed, "-zoomed")
        self.on_resize()

    def action_llm_calls(self) -> None:
        """What the model saw and said at the step in view (its recorded calls)."""
        if not self.steps:
            return
        from guilens.screens.llm_calls import LLMCallsScreen

        self.app.push_screen(LLMCallsScreen(self.steps[self.index]))

    def action_judge(self) -> None:
        from guilens.screens.judge_screen import JudgeScreen

        def done(verdict: Any) -> None:
            self.verdict = self.reader.verdict()
            self.query_one(VerdictView).show(self.verdict)
            self._show_label()
            ol = self.query_one("#step-list", OptionList)
            ol.clear_options()
            ol.add_options(self._options())
            ol.highlighted = self.index
            self.watch_index(self.index)

        self.app.push_screen(JudgeScreen(self.path, settings=self.settings), done)

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()
        else:
            self.app.exit()

