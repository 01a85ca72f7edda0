"""The person's controls when they have taken over (or are the agent).

The element list shows the actionable elements of the current screen, in the
order the runner numbers them, so `Enter` sends `tap #N` and the runner taps
the element's centre; the highlighted element is outlined on the phone. The
command line takes anything `guilens.actions.parse_command` reads (`type`,
`open`, `answer`, `finish`, `wait`, `swipe`, ...), checked before it is sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from guilens.screens.widgets.render import short


@dataclass
class Element:
    number: int
    label: str
    kind: str
    bounds: tuple[int, int, int, int]


def elements_of(ui_xml: str | None) -> list[Element]:
    """The actionable elements of a UI dump, numbered as the runner numbers them."""
    if not ui_xml:
        return []
    from guilens.device.uitree import UITreeError, actionable_elements, parse_ui_xml

    try:
        root = parse_ui_xml(ui_xml)
    except (UITreeError, ValueError):
        return []
    out = []
    for i, node in enumerate(actionable_elements(root)):
        kind = node.cls.rpartition(".")[2] or "view"
        if node.editable:
            kind = "field"
        elif node.scrollable and not node.clickable:
            kind = "scroll"
        out.append(Element(i, node.label() or node.short_id or "(unlabelled)", kind, node.bounds))
    return out


class CommandMessage(Message):
    """A command for the device (`tap #3`, `type hello`), from the element list or the command line."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class HumanPanel(Vertical):
    """Shown while a person is at the controls."""

    BINDINGS = [Binding("escape", "leave", "Back to the phone", show=False)]

    DEFAULT_CSS = """
    HumanPanel { height: auto; max-height: 50%; }
    HumanPanel #human-prompt { padding: 0 1; }
    /* Five rows however small the terminal: with fewer, picking by ↑↓ is guesswork. */
    HumanPanel OptionList { height: auto; min-height: 5; max-height: 16; border: none; padding: 0; }
    """

    @dataclass
    class Highlighted(Message):
        """An element is highlighted in the list (None: nothing is)."""

        bounds: tuple[int, int, int, int] | None

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.elements: list[Element] = []
        self._ui: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(self._prompt_content("", None), id="human-prompt")
        yield OptionList(id="elements")

    @staticmethod
    def _prompt_content(prompt: str, error: str | None) -> Content:
        parts = []
        if error:
            parts.append(Content.from_markup("[b $error]$e[/]", e=error))
        if prompt:
            parts.append(Content(prompt))
        # The keys (b, h, e, :) are in the key bar; this says what only the panel can say.
        parts.append(Content.from_markup(
            "[$text-muted]↑↓ Enter: tap an element · click: tap · drag: swipe · "
            ": type, open, answer, finish, wait[/]"
        ))
        return Content("\n").join(parts)

    def set_prompt(self, prompt: str, error: str | None = None) -> None:
        self.query_one("#human-prompt", Static).update(self._prompt_content(prompt, error))

    def set_ui(self, ui_xml: str | None) -> None:
        if ui_xml == self._ui:
            return
        self._ui = ui_xml
        self.elements = elements_of(ui_xml)
        ol = self.query_one(OptionList)
        ol.clear_options()
        ol.add_options([
            Option(Content.from_markup("[b]#$n[/] $l [$text-muted]$k[/]", n=str(e.number), l=short(e.label, 60),
                                       k=e.kind), id=str(e.number))
            for e in self.elements
        ])
        if self.elements:
            ol.highlighted = 0
        else:
            ol.add_option(Option("no UI tree for this screen: click on the phone or use :", disabled=True))

    @on(OptionList.OptionSelected, "#elements")
    def chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.post_message(CommandMessage(f"tap #{event.option.id}"))

    @on(OptionList.OptionHighlighted, "#elements")
    def highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        idx = int(event.option.id) if event.option.id is not None else None
        bounds = self.elements[idx].bounds if idx is not None and idx < len(self.elements) else None
        self.post_message(self.Highlighted(bounds))

    def action_leave(self) -> None:
        self.post_message(self.Highlighted(None))
        self.screen.set_focus(None)


class CommandLine(Input):
    """`:` opens it; Enter sends the command if it parses, Escape closes it."""

    BINDINGS = [Binding("escape", "close", "Close", show=False)]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(placeholder="type TEXT · open APP · answer TEXT · finish [success|failure] · wait S · "
                         "tap X Y · swipe X1 Y1 X2 Y2 · back · home · enter", **kwargs)

    def check(self, text: str) -> str | None:
        """Why `text` is not a command, or None when it is."""
        from guilens.actions import ActionError, parse_action, parse_command

        try:
            if text.strip().startswith("{"):
                parse_action(text)
            else:
                parse_command(text)
        except ActionError as err:
            return str(err)
        return None

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if not text:
            self.action_close()
            return
        problem = self.check(text)
        if problem:
            self.notify(problem, title="Not a command", severity="error")
            return
        self.value = ""
        self.post_message(CommandMessage(text))
        self.action_close()

    def action_close(self) -> None:
        self.remove_class("-open")
        self.screen.set_focus(None)
