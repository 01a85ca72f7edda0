"""Small modal screens: the agent's question, the next task of a baseline session, yes/no confirmations,
one-line prompts, help."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static


class AskUserScreen(ModalScreen[str | None]):
    """The agent asks the user. Enter with nothing typed accepts the simulated user's suggestion;
    typing replaces it. Escape closes without answering (`a` opens it again)."""

    BINDINGS = [Binding("escape", "later", "Answer later")]

    def __init__(self, question: str, suggestion: str | None, *, request_id: int = 0, step: int | None = None) -> None:
        """`step`: the number of the step asking, as people count steps (from 1), for the title."""
        super().__init__()
        self.question = question
        self.suggestion = suggestion
        self.request_id = request_id
        self.step = step

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="ask") as box:
            box.border_title = "The agent asks" + (f" · step {self.step}" if self.step is not None else "")
            yield Static(Content(self.question), id="question")
            if self.suggestion:
                yield Static(Content.from_markup("[$text-muted]Simulated user's answer:[/] [b]$s[/]",
                                                 s=self.suggestion), id="suggestion")
            yield Input(placeholder="Enter accepts the suggestion · or type your own answer" if self.suggestion
                        else "Type your answer, Enter sends it", id="answer")
            yield Static(Content.from_markup("[$text-muted]Enter: send · Esc: answer later (a)[/]"), classes="hint")

    def on_mount(self) -> None:
        self.query_one("#answer", Input).focus()

    @on(Input.Submitted, "#answer")
    def send(self, event: Input.Submitted) -> None:
        text = event.value.strip() or (self.suggestion or "")
        if not text:
            self.notify("Type an answer first (there is no suggestion).", severity="warning")
            return
        self.dismiss(text)

    def action_later(self) -> None:
        self.dismiss(None)


class NextTaskScreen(ModalScreen[str]):
    """Between the tasks of a baseline session: the next task, and the person's go.

    Dismisses with `start`, `skip` or `stop`, the words the runner's `start` request takes (the
    same a person types headless)."""

    BINDINGS = [
        Binding("enter", "choose('start')", "Start", priority=True),
        Binding("s", "choose('skip')", "Skip"),
        Binding("q,escape", "choose('stop')", "End the session"),
    ]

    def __init__(self, text: str, *, request_id: int = 0, context: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.text = text
        self.request_id = request_id
        self.context = context or {}

    def compose(self) -> ComposeResult:
        ctx = self.context
        where = f"task {ctx['index']} of {ctx['total']}" if "index" in ctx and "total" in ctx else "next task"
        with Vertical(id="dialog", classes="ask") as box:
            box.border_title = f"Baseline · {where}"
            if ctx.get("task"):
                yield Static(Content.from_markup("[b]$t[/] [$text-muted]$l[/]", t=str(ctx["task"]),
                                                 l=str(ctx.get("level", ""))), id="question")
            yield Static(Content(str(ctx.get("instruction") or self.text)), id="instruction")
            yield Static(Content.from_markup(
                "[$text-muted]Your time starts when you press Enter. Mark milestones with m as you reach them; "
                "finish with : finish (or answer TEXT for a question).[/]"), classes="hint")
            yield Static(Content.from_markup("[$text-muted]Enter: start · s: skip this task · q: end the session[/]"),
                         classes="hint")

    def action_choose(self, word: str) -> None:
        self.dismiss(word)


class ConfirmScreen(ModalScreen[bool]):
    BINDINGS = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, message: str, *, yes: str = "Yes", no: str = "No") -> None:
        super().__init__()
        self.message = message
        self.yes, self.no = yes, no

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="confirm"):
            yield Label(self.message, id="message")
            with Horizontal(classes="buttons"):
                yield Button(f"{self.yes} (y)", variant="error", id="yes")
                yield Button(f"{self.no} (n)", variant="primary", id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)


class PromptScreen(ModalScreen[str | None]):
    """One line of input: a milestone label, a step number.

    `changed(text)`, if given, hears every edit (stripped), so the screen underneath can start on
    what is being typed: the replay prepares the step whose number is typed so far."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(
        self,
        title: str,
        *,
        placeholder: str = "",
        value: str = "",
        validate: Callable[[str], str | None] | None = None,
        changed: Callable[[str], object] | None = None,
    ) -> None:
        super().__init__()
        self.title_text = title
        self.placeholder = placeholder
        self.value = value
        self.validate_fn = validate
        self.changed_fn = changed

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="prompt") as box:
            box.border_title = self.title_text
            yield Input(value=self.value, placeholder=self.placeholder, id="prompt-input")
            yield Static("", id="prompt-error")
            yield Static(Content.from_markup("[$text-muted]Enter: OK · Esc: cancel[/]"), classes="hint")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Changed)
    def edited(self, event: Input.Changed) -> None:
        if self.changed_fn is not None:
            self.changed_fn(event.value.strip())

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        problem = self.validate_fn(text) if self.validate_fn else (None if text else "type something first")
        if problem:
            self.query_one("#prompt-error", Static).update(Content.from_markup("[$error]$p[/]", p=problem))
            return
        self.dismiss(text)

    def action_cancel(self) -> None:
        self.dismiss(None)


class HelpScreen(ModalScreen[None]):
    """The keys of the screen it was opened from, grouped, with what they do."""

    BINDINGS = [Binding("escape,question_mark,q", "close", "Close")]

    def __init__(self, title: str, sections: list[tuple[str, list[tuple[str, str]]]]) -> None:
        super().__init__()
        self.title_text = title
        self.sections = sections

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog", classes="help") as box:
            box.border_title = self.title_text
            for heading, keys in self.sections:
                yield Static(Content.from_markup("[b $accent]$h[/]", h=heading), classes="help-heading")
                width = max((len(k) for k, _ in keys), default=4)
                body = Content("\n").join(
                    Content.from_markup("  [b]$k[/]  $d", k=k.ljust(width), d=d) for k, d in keys
                )
                yield Static(body, classes="help-keys")
            yield Static(Content.from_markup("[$text-muted]ctrl+p: command palette · Esc: close[/]"), classes="hint")

    def action_close(self) -> None:
        self.dismiss(None)


def help_sections_from(screen: Any) -> list[tuple[str, list[tuple[str, str]]]]:
    """A screen's `KEY_HELP` (sections of (key, what it does)); screens without one get their bindings."""
    sections = getattr(screen, "KEY_HELP", None)
    if sections:
        return list(sections)
    keys = [(b.key_display or b.key, b.description) for b in getattr(screen, "BINDINGS", []) if isinstance(b, Binding)]
    return [("Keys", keys)]
