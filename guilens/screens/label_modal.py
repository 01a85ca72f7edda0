"""The label modal of the replay screen: a person's success/failure call on the episode, and why.

Two keys for the common case: `s` (or `f`) picks the call, then a one-line
reason may be typed, and Enter saves. Once the call is picked, whatever is
typed is the reason (the buttons still switch it by mouse); a reason already
there is kept by Enter and replaced by typing. `c` clears a label, Esc leaves
it as it was. The modal only chooses; the replay screen writes `label.json`
(`guilens.judge.labels`) and says so if it cannot.
"""

from __future__ import annotations

from typing import Any

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from guilens.judge.labels import Label
from guilens.screens.widgets.render import short

LabelChoice = tuple[str, str]
"""(`success` | `failure` | `clear`, the reason)."""

LABEL_STYLE = {"success": "$success", "failure": "$error", "undecided": "$warning"}


def label_line(label: Label | None, problem: str | None, verdict: dict[str, Any] | None) -> Content:
    """The replay summary's line on the label and the judge's decision beside it:
    ` label: failure (ana, 2026-11-24 22:10): saved 79.99 · judge: success by rules · disagree`."""
    decision = (verdict or {}).get("decision")
    by = (verdict or {}).get("decided_by")
    judge = (Content.from_markup(" · judge: [b $s]$d[/]$by", s=LABEL_STYLE.get(decision or "", "$warning"),
                                 d=decision, by=f" by {by}" if by else "")
             if decision else Content.from_markup(" · [$text-muted]not judged yet[/]"))
    if problem:
        return Content.from_markup(" [$error]label: $p[/]", p=problem) + judge
    if label is None:
        return Content.from_markup(" [$text-muted]label: none (m to label)[/]") + judge
    when = label.at.astimezone().strftime("%Y-%m-%d %H:%M")
    line = Content.from_markup(" label: [b $s]$l[/] [$text-muted]($who, $when)[/]",
                               s=LABEL_STYLE[label.label], l=label.label, who=label.by or "?", when=when)
    if label.reason:
        line = line + Content.from_markup(": [i]$r[/]", r=short(label.reason, 120))
    line = line + judge
    if decision in ("success", "failure"):
        line = line + (Content.from_markup(" · [$success]agree[/]") if decision == label.label
                       else Content.from_markup(" · [b $error]disagree[/]"))
    return line


class ReasonInput(Input):
    """The reason field, which has the keys from the start: until a call is picked, `s`, `f` and `c` pick
    or clear instead of typing. One widget takes every key, in order, so keys typed ahead (`f`, a reason,
    Enter, as fast as a person types them) are never split between a button and the field."""

    async def _on_key(self, event: events.Key) -> None:
        screen = self.screen
        if isinstance(screen, LabelScreen) and screen.picked is None and event.character in ("s", "f", "c"):
            event.stop()
            event.prevent_default()
            if event.character == "c":
                screen.action_clear()
            else:
                screen.action_pick("success" if event.character == "s" else "failure")
            return
        await super()._on_key(event)


class LabelScreen(ModalScreen[LabelChoice | None]):
    """Pick success or failure (and a reason), or clear the label. Dismisses with the choice, or None."""

    BINDINGS = [
        Binding("s", "pick('success')", "Success"),
        Binding("f", "pick('failure')", "Failure"),
        Binding("c", "clear", "Clear"),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, title: str, *, current: str | None = None, reason: str = "", judge: str | None = None) -> None:
        """`current`: the label now (None: none yet); `judge`: the judge's decision, shown beside it."""
        super().__init__()
        self.title_text = title
        self.current = current
        self.reason = reason
        self.judge = judge
        self.picked: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="label") as box:
            box.border_title = self.title_text
            now = (Content.from_markup("Labelled [b]$l[/] now.", l=self.current) if self.current
                   else Content("Not labelled yet."))
            if self.judge:
                now = now + Content.from_markup(" The judge says [b]$j[/].", j=self.judge)
            yield Static(now, id="label-now")
            with Horizontal(classes="buttons"):
                yield Button("Success (s)", variant="success", id="success")
                yield Button("Failure (f)", variant="error", id="failure")
                yield Button("Clear (c)", id="clear", disabled=self.current is None)
            yield ReasonInput(value=self.reason, placeholder="Why, in one line (optional)", id="label-reason")
            yield Static(Content.from_markup("[$text-muted]s / f: pick, then Enter saves · c: clear · "
                                             "Esc: leave it as it was[/]"), id="label-hint", classes="hint")

    def on_mount(self) -> None:
        self.query_one("#label-reason", Input).focus()

    def action_pick(self, label: str) -> None:
        """Choose the call; the reason field takes the cursor, and Enter saves."""
        self.picked = label
        self.query_one("#label-hint", Static).update(Content.from_markup(
            "[$text-muted]Enter: save [b]$l[/] · Esc: leave it as it was[/]", l=label))
        self.set_focus(self.query_one("#label-reason", Input))

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "clear":
            self.action_clear()
        elif event.button.id in ("success", "failure"):
            self.action_pick(event.button.id)

    @on(Input.Submitted, "#label-reason")
    def _save(self, event: Input.Submitted) -> None:
        if self.picked is None:
            self.notify("Pick success (s) or failure (f) first.", severity="warning")
            return
        self.dismiss((self.picked, " ".join(event.value.split())))

    def action_clear(self) -> None:
        if self.current is not None:
            self.dismiss(("clear", ""))

    def action_cancel(self) -> None:
        self.dismiss(None)
