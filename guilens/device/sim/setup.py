"""The setup a scenario seeds the phone with, validated against each app's state model.

`SimSetup` is built from the app registry, so adding an app adds its state to the
schema, and a typo in a scenario (an unknown app, a missing note title) is an
error that names its path: `apps.notes.notes[2].title: Field required`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    create_model,
    field_validator,
)

from guilens.device.sim.events import ScheduledEvent, check_events
from guilens.device.sim.registry import APPS, STATE_MODELS, resolve_app

DEFAULT_CLOCK = datetime(2026, 11, 21, 9, 0, 0)


class Anomaly(BaseModel):
    """An interruption a scenario injects over an app (see `guilens.device.sim.anomalies`): an ad
    pop-up, a permission dialog, the low-battery warning, or the app crashing ("keeps stopping")."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["ad", "permission", "battery", "crash"]
    app: str
    at: Literal["open"] | int = "open"
    """`open`: the first time the app comes to the front; an int: the first step at or after it with the app in front."""
    screen: str | None = None
    """Only on this screen of the app (`notes/edit`, as the device state's `screen` names it): mid-form, before a save."""
    text: str | None = None
    """The ad's headline, the permission asked for (e.g. `location`), or the battery level (`15%`)."""

    @field_validator("app")
    @classmethod
    def _known_app(cls, v: str) -> str:
        short = resolve_app(v)
        if short in APPS:
            return short
        raise ValueError(f"unknown app {v!r}; one of {', '.join(APPS)}")

    @field_validator("at")
    @classmethod
    def _non_negative(cls, v: str | int) -> str | int:
        if isinstance(v, int) and v < 0:
            raise ValueError("a step number is 0 or more")
        return v


# One optional field per app, built from STATE_MODELS. mypy cannot type a model made at run time:
# `create_model` with `**fields` matches none of pydantic's overloads, and the result is no valid
# annotation below; the ignores say only that, pydantic validates the fields.
AppsSetup: type[BaseModel] = create_model(  # type: ignore[call-overload]
    "AppsSetup",
    __config__=ConfigDict(extra="forbid"),
    **{short: (model | None, None) for short, model in STATE_MODELS.items()},
)


class SimSetup(BaseModel):
    """The initial state of the simulated phone. Apps left out start with their defaults."""

    model_config = ConfigDict(extra="forbid")

    clock: datetime = DEFAULT_CLOCK
    apps: AppsSetup = Field(default_factory=AppsSetup)  # type: ignore[valid-type]
    anomalies: list[Anomaly] = Field(default_factory=list)
    events: list[ScheduledEvent] = Field(default_factory=list)
    """What arrives at clock times: messages, calendar invitations, price changes (`guilens.device.sim.events`)."""

    @field_validator("events")
    @classmethod
    def _events_fit(cls, v: list[Any], info: ValidationInfo) -> list[Any]:
        return check_events(v, info.data.get("apps"))


def _path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def setup_errors(err: ValidationError) -> list[str]:
    msgs = []
    for e in err.errors():
        loc = tuple(p for p in e["loc"] if not (isinstance(p, str) and ("[" in p or p.startswith("function"))))
        msg = e["msg"].removeprefix("Value error, ")
        msg = msg[:1].lower() + msg[1:]
        msgs.append(f"{_path(loc)}: {msg}" if loc else msg)
    return msgs


def parse_setup(setup: dict[str, Any] | None) -> SimSetup:
    """A validated setup; raises ValueError listing every problem with its path."""
    if setup is None:
        return SimSetup()
    if not isinstance(setup, dict):
        raise ValueError(f"a sim setup is a mapping, not {type(setup).__name__}")
    try:
        return SimSetup.model_validate(setup)
    except ValidationError as err:
        raise ValueError("invalid sim setup: " + "; ".join(setup_errors(err))) from None


def validate_setup(setup: dict[str, Any]) -> list[str]:
    """Human-readable problems with a setup, each starting with its path; empty when it is valid."""
    if not isinstance(setup, dict):
        return [f"a sim setup is a mapping, not {type(setup).__name__}"]
    try:
        SimSetup.model_validate(setup)
    except ValidationError as err:
        return setup_errors(err)
    return []
