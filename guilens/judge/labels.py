"""People's labels: `label.json`, a person's success/failure call on one attempt.

The label sits beside `verdict.json` in the attempt directory, never inside it:
the judge rewrites its verdict whenever the episode, the task or the judge
configuration changes, and a person's call must survive that untouched. It is
the ground truth `guilens judge-eval` scores the judge against (MemGUI-Eval's
F1 against its experts' labels, PSPA-Bench's accuracy and κ against its
annotators').

    {"label": "failure", "reason": "saved 79.99, not 89.99", "by": "ana",
     "at": "2026-11-24T22:10:00+00:00", "guilens_version": "0.1.0", "schema_version": 1}

Written atomically (`guilens.storage.write_atomic`): a reader sees the old label
or the new one. A bad file is refused as one line naming the file and the field
(`LabelError`), never a traceback.
"""

from __future__ import annotations

import getpass
import json
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from guilens.storage import StorageError, write_atomic

__all__ = ["LABEL_FILE", "LABEL_SCHEMA_VERSION", "Label", "LabelError", "clear_label", "find_labelled",
           "labeller", "read_label", "write_label"]

LABEL_FILE = "label.json"
LABEL_SCHEMA_VERSION = 1

LabelValue = Literal["success", "failure"]


class LabelError(ValueError):
    """A `label.json` that cannot be read as a label; the message names the file and the field."""


class Label(BaseModel):
    """A person's call on one attempt. Field order is for people reading the file; keep it."""

    model_config = ConfigDict(extra="allow")

    label: LabelValue
    reason: str = ""
    """Why, in one line (optional): what the person saw that decided it."""
    by: str = ""
    """Who labelled it: the user name from the environment."""
    at: datetime
    guilens_version: str = ""
    schema_version: int = LABEL_SCHEMA_VERSION


def labeller() -> str:
    """The person labelling: the login name from the environment (`LOGNAME`, `USER`, ...), else `unknown`."""
    try:
        return getpass.getuser()
    except Exception:  # no such variable and no passwd entry (a bare container)
        return "unknown"


def read_label(attempt: Path | str) -> Label | None:
    """The label of an attempt directory, or None if nobody labelled it.

    Raises `LabelError` naming the file and the field for a file that is not a label."""
    path = Path(attempt) / LABEL_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as err:
        why = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise LabelError(f"{path}: cannot read: {why}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise LabelError(f"{path}: not JSON ({err.msg} at line {err.lineno} column {err.colno})") from None
    if not isinstance(data, dict):
        raise LabelError(f"{path}: expected a JSON object like {{\"label\": \"success\"}}, got {type(data).__name__}")
    try:
        return Label.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "(top)"
        got = f" (got {first['input']!r})" if first["type"] != "missing" else ""
        raise LabelError(f"{path}: field {field!r}: {first['msg']}{got}") from None


def write_label(attempt: Path | str, label: str, reason: str = "", *, by: str | None = None,
                at: datetime | None = None) -> Label:
    """Label an attempt directory `success` or `failure`, replacing any label it had; return the label.

    Raises `ValueError` for any other word, `StorageError` naming the file when it cannot be written
    (a read-only run), with the old label left as it was."""
    from guilens import __version__

    directory = Path(attempt)
    if not (directory / "episode.json").is_file():
        raise ValueError(f"{directory}: not an attempt directory (no episode.json)")
    if label not in ("success", "failure"):
        raise ValueError(f"label {label!r}: choose success or failure")
    made = Label(label=label, reason=" ".join(reason.split()), by=by if by is not None else labeller(),  # type: ignore[arg-type]
                 at=at or datetime.now().astimezone(), guilens_version=__version__)
    write_atomic(directory / LABEL_FILE, made.model_dump_json(indent=2) + "\n")
    return made


def clear_label(attempt: Path | str) -> bool:
    """Remove an attempt's label; True if there was one. Raises `StorageError` naming the file."""
    path = Path(attempt) / LABEL_FILE
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    except OSError as err:
        raise StorageError.of(path, err) from None
    return True


def find_labelled(paths: Iterable[Path | str]) -> list[tuple[Path, Label]]:
    """Every labelled attempt under `paths` (runs, tasks or attempts), each once, in path order.

    Raises `LabelError` at the first bad `label.json`: a score that silently dropped a person's label
    would be a different score."""
    from guilens.episode import find_episodes

    seen: set[Path] = set()
    out: list[tuple[Path, Label]] = []
    for root in paths:
        for attempt in find_episodes(root):
            key = attempt.resolve()
            if key in seen:
                continue
            seen.add(key)
            lab = read_label(attempt)
            if lab is not None:
                out.append((attempt, lab))
    return out


def register_schemas(schema_kind: Any) -> None:
    """Hook for `guilens schema label` (looked up by `guilens.commands.core`): the file other tools
    (a labelling spreadsheet, another viewer) write for `guilens judge-eval` to read."""

    @schema_kind("label")
    def _label() -> dict[str, Any]:
        return Label.model_json_schema()
