"""Text editing and scrolling on the simulated phone: `type` with `clear`, the `delete` key, `scroll`.

Text editing works as on a phone whose cursor sits at the end of the field: the
`delete` key removes the last character, `type` with `clear` empties the field
first, and a newline typed into a one-line field is the Enter key (as `input
text` over ADB sends it). A `scroll` moves the scrollable container under its
point, or the screen's main list, by the distance `guilens.actions.scroll_gesture`
moves a finger on a real phone, so the sim and a phone over ADB agree on what
one scroll shows.

A mixin of `SimDevice`, kept apart so the device module stays about observing
and dispatching; it uses the device's tree, context and key handling.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from guilens.actions import OPPOSITE, Scroll, scroll_distance
from guilens.device.sim.kit import Field, View, scroll_at
from guilens.device.sim.kit import Scroll as ScrollView

if TYPE_CHECKING:
    from guilens.device.sim.core import Ctx


class Editing:
    """What `SimDevice` does for scroll, type-with-clear and delete."""

    _size: tuple[int, int]

    if TYPE_CHECKING:
        def _covered(self) -> bool: ...
        def _tree(self) -> View: ...
        def _ctx(self) -> Ctx: ...
        def _focused(self) -> Field | None: ...
        def _key(self, key: str) -> str: ...
        def _changed(self) -> None: ...

    def _scroll(self, a: Scroll) -> str:
        """Scroll the container under the point, or the main list, the way `a.direction` says."""
        if self._covered():
            return "nothing to scroll here"
        root = self._tree()
        if a.direction in ("left", "right"):
            ctx = self._ctx()
            fn = getattr(ctx.app, "swipe", None)  # apps that page sideways take the finger's direction
            out = fn(ctx, OPPOSITE[a.direction]) if fn is not None else None
            return str(out) if out else f"nothing to scroll {a.direction} here"
        s = scroll_at(root, a.x, a.y) if a.x is not None and a.y is not None else main_list(root)
        if s is None or not s.scrollable:
            return "nothing to scroll here"
        amount = scroll_distance(a.direction, self._size)
        return s.scroll_by(amount if a.direction == "down" else -amount)

    def _type(self, text: str, *, clear: bool = False) -> str:
        f = self._focused()
        if f is None:
            return "no text field is focused"
        said: list[str] = []
        if clear:
            self._set_text(f, "")
            said.append(f"cleared {f.hint}")
        if f.multiline or "\n" not in text:
            if text:
                said.append(f.on_type(text))
            return "; ".join(said)
        for i, part in enumerate(text.split("\n")):  # in a one-line field a newline is the Enter key
            if i:
                said.append(self._key("enter"))
                self._changed()
                f = self._focused()
            if part:
                if f is None:
                    said.append("no text field is focused")
                    break
                said.append(f.on_type(part))
        return "; ".join(said)

    def _set_text(self, f: Field, value: str) -> None:
        """Make the focused field hold `value` (emptied, or one character shorter).

        A field takes text only by typing, which appends; so the draft is emptied
        and `value` typed again through the field's own input path, which runs its
        filter and its change hook as a keystroke would (a picked recipient or a
        shown route is dropped when the text under it changes). An app whose field
        mirrors its own state (the calculator's display) edits it in `set_field`.
        """
        ctx = self._ctx()
        hook = getattr(ctx.app, "set_field", None)
        if hook is not None and hook(ctx, f.key, value):
            return
        ctx.route.fields[f.key] = ""
        f.on_type(value)

    def _delete(self) -> str:
        """The delete key (KEYCODE_DEL): the character before the cursor, which is at the end."""
        f = self._focused()
        if f is None:
            return "pressed delete; no text field is focused"
        if not f.value:
            return f"pressed delete; {f.hint} is empty"
        self._set_text(f, f.value[:-1])
        return f"deleted {f.value[-1]!r} from {f.hint}"


def main_list(root: View) -> ScrollView | None:
    """The screen's main list: of the containers that can scroll, the one showing the most."""
    lists = [v for v in root.walk() if isinstance(v, ScrollView) and v.scrollable]

    def area(v: ScrollView) -> int:
        x1, y1, x2, y2 = v.clip
        return (x2 - x1) * (y2 - y1)

    return max(lists, key=area, default=None)
