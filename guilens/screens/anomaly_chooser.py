"""The run screen's chooser of an anomaly to show on the phone now (the `i` key).

A modal of four buttons, one key each: the run screen hands the choice to the run's control
(`RunControl.inject`), and the step loop shows it on the phone before the agent looks again.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label

CHOICES = [("ad", "Ad"), ("permission", "Permission"), ("battery", "Low battery"), ("crash", "Crash")]
"""The kinds the simulated phone draws (`guilens.device.sim.anomalies.KINDS`), as the chooser names them."""


class AnomalyChooser(ModalScreen[str | None]):
    """Pick the anomaly to show: 1 ad, 2 permission dialog, 3 low battery, 4 app crash; Esc: none."""

    BINDINGS = [
        *[Binding(str(i), f"choose({kind!r})", name, show=False) for i, (kind, name) in enumerate(CHOICES, 1)],
        Binding("escape,i", "choose(None)", "Cancel"),
    ]

    def __init__(self, where: str = "") -> None:
        super().__init__()
        self.where = where

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="confirm"):
            yield Label(f"Show an anomaly{self.where} before the agent's next step", id="message")
            with Horizontal(classes="buttons"):
                for i, (kind, name) in enumerate(CHOICES, 1):
                    yield Button(f"{name} ({i})", id=f"anomaly-{kind}", variant="primary" if i == 1 else "default")

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        self.dismiss((event.button.id or "").removeprefix("anomaly-") or None)

    def action_choose(self, kind: str | None) -> None:
        self.dismiss(kind)
