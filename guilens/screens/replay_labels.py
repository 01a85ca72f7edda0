"""The replay screen's label (`m`): a person's success or failure, with a reason, for `guilens judge-eval`.

Apart from `guilens.screens.replay_screen` as a mixin so the screen stays about stepping through an
episode; the dialog itself is `guilens.screens.label_modal`, the file `guilens.judge.labels`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

if TYPE_CHECKING:
    from guilens.episode import EpisodeReader
    from guilens.judge.labels import Label


class LabelMixin(Screen[None]):
    """The base of `ReplayScreen`: reads, shows and sets the episode's `label.json`."""

    path: Path
    reader: EpisodeReader
    verdict: dict[str, Any] | None
    label: Label | None
    label_problem: str | None

    def _summary(self) -> Content:
        raise NotImplementedError  # the screen's summary line, which ends with the label
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
