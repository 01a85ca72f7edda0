"""How the oracle clears an anomaly as a careful person would, and finds its place again after a crash.

AndroidLens's agents fail on interruptions: they miss the small pale close button of an ad, grant
permissions they do not need, and loop on pages they did not expect. The oracle is the yardstick of
what a task takes, so it recovers the way a careful person does, reading the screen's UI tree with
the ids Android itself gives these windows (so the same rules hold on a real phone):

- an ad: its close button (`ad_close`, "Close ad"), never the call to action;
- a permission dialog: "Deny" (`permission_deny_button`): the task did not ask for it (a task that
  needs the permission grants it in its own reference, which the oracle then plays as written);
- the low-battery warning: "Close";
- "<App> keeps stopping": "Close app" (`aerr_close`); the app starts afresh, so the oracle reopens it
  and plays its reference again from the step that brought that app to the front (`after_crash`),
  redoing the navigation and the input the crash threw away (a save made before the crash is made
  again too: the oracle cannot tell a save from any other tap).

`interruption(ui)` finds one; the oracle asks it before every step and prefers its reference when
the reference's next step is a tap on the interruption itself (a golden path that already handles
it, as AndroidLens's annotated trajectories do).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from guilens.actions import Tap

if TYPE_CHECKING:
    from guilens.device.uitree import UINode


@dataclass(frozen=True)
class Interruption:
    """An anomaly on screen and the control a careful person taps to clear it."""

    kind: str
    """`ad`, `permission`, `battery` or `crash`."""
    control: UINode
    app: str | None = None
    """For a crash: the app that stopped, as its notice names it (`Notes`)."""

    @property
    def label(self) -> str:
        return self.control.label() or self.control.short_id

    def covers(self, action: Any) -> bool:
        """Whether `action` (a reference's next step) is a tap on this interruption's control."""
        if not isinstance(action, Tap) or action.x is None or action.y is None:
            return False
        x1, y1, x2, y2 = self.control.bounds
        return x1 <= action.x < x2 and y1 <= action.y < y2

    def action(self) -> Tap:
        x, y = self.control.center
        return Tap(x=x, y=y, target=self.label)

    def why(self) -> str:
        """The oracle's thought as it clears it."""
        return {
            "ad": f"An ad covers the screen. I close it with its small close button ({self.label!r}), "
                  "not its button, and go on where I was.",
            "permission": "A permission dialog I did not ask for: my task does not need it, so I deny it "
                          "and go on where I was.",
            "battery": "The low-battery warning covers the screen: I close it and go on where I was.",
            "crash": f"{self.app or 'The app'} stopped. I close it; it will start afresh, so I reopen it and "
                     "do again what the crash threw away.",
        }[self.kind]


def interruption(ui: UINode | None) -> Interruption | None:
    """The anomaly on screen, read from the UI tree, or None."""
    if ui is None:
        return None
    by_id: dict[str, UINode] = {}
    title = ""
    for n in ui.iter():
        sid = n.short_id
        if sid and sid not in by_id:
            by_id[sid] = n
        if sid == "alertTitle" and not title:
            title = n.text
    if "ad_close" in by_id:
        return Interruption("ad", by_id["ad_close"])
    if "permission_deny_button" in by_id:
        return Interruption("permission", by_id["permission_deny_button"])
    if "aerr_close" in by_id:
        app = title.removesuffix(" keeps stopping").removesuffix(" has stopped").strip() or None
        return Interruption("crash", by_id["aerr_close"], app=app)
    if title.casefold().startswith("battery low"):
        close = next((n for n in ui.iter() if n.clickable and n.text.casefold() == "close"), None)
        if close is not None:
            return Interruption("battery", close)
    return None


def after_crash(played: list[tuple[int, str, bool]], app: str) -> tuple[int, str | None] | None:
    """Where the plan goes on after `app` crashed: the reference step to play again and the app to
    reopen first (None: that step opens its app itself); None when nothing was played.

    `played` is what the oracle played, in order: (reference index, the app in front before it, whether
    it opened an app). The step to play again is the one that brought `app` to the front: an `open`,
    or a tap in another app that handed over to it (Contacts' "Message" opens Messages), which needs
    that other app reopened first (it resumes where it was; only the crashed app lost its screens).
    """
    from guilens.scenarios.checks import app_matches

    if not played:
        return None

    def is_app(pkg: str) -> bool:
        return app_matches(app, pkg) or app_matches(pkg, app)

    k = len(played) - 1
    while k >= 0 and is_app(played[k][1]):
        k -= 1
    if k < 0:  # the app was in front from the first step: start it again and play everything
        return played[0][0], app
    index, before, opens = played[k]
    return index, (None if opens else before)


def rewind(player: Any, index: int) -> None:
    """Set a `ReferencePlayer` back so that reference step `index` is the next it plays: a crash is
    the one time a plan must go back rather than on."""
    player.seek(index)


CONTROLS = {
    "ad": {"id:ad_close", "close ad"},
    "permission": {"deny", "allow", "id:permission_deny_button", "id:permission_allow_button"},
    "battery": {"close", "battery saver", "id:button1", "id:button2"},
    "crash": {"close app", "app info", "id:aerr_close", "id:aerr_app_info"},
}
"""How a reference names the controls of each kind's window (selector text, case-folded)."""


def control_kind(step: Any) -> str | None:
    """The anomaly kind whose control a reference step taps (a golden path's recovery step), or None."""
    from guilens.scenarios.spec_reference import TapStep, selector_text

    if not isinstance(step, TapStep):
        return None
    said = selector_text(step.tap).strip().casefold()
    return next((kind for kind, names in CONTROLS.items() if said in names), None)


def skip_to_crash_recovery(player: Any) -> bool:
    """When an app crashed where the golden path expects it a little later (in the same app, before it
    opens another): move the player on to the path's own "Close app" step; what it would have done in
    between is lost with the app anyway. False when no such step is ahead."""
    from guilens.scenarios.spec_reference import OpenStep

    steps = player.task.reference
    for i in range(player.position, len(steps)):
        if isinstance(steps[i], OpenStep):
            return False
        if control_kind(steps[i]) == "crash":
            player.seek(i)
            return True
    return False


def skip_unneeded_recovery(player: Any) -> bool:
    """When the golden path's next step clears an anomaly that is not on screen (it came earlier, and
    was cleared already): step over it. False when the next step is no such step."""
    steps = player.task.reference
    i = player.position
    if i < len(steps) and control_kind(steps[i]) is not None:
        player.seek(i + 1)
        return True
    return False
