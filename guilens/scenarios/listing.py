"""What `guilens scenarios list` shows of each pack, and the built-in packs' listing kept across processes.

Why: once the packs' parse is cached (`packcache`), listing them still imports the scenario model (about
fifty pydantic classes, each building its validator at import) and validates seven packs from their kept
data: together about 110 ms of a `scenarios list` whose goal is 300 ms. A pack's listing (id, title, kind,
apps, levels, task ids, its stats) is a pure function of the checked pack, so it is kept beside the parse,
under the same key (the pack's text and path, guilens's modules, the versions). When every built-in pack
has a listing kept, this module lists them from plain data and never imports the model; otherwise it loads
the packs the ordinary way (which reports their problems, with lines) and keeps their listings.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from guilens.scenarios import packcache
from guilens.scenarios.files import builtin_files

if TYPE_CHECKING:
    from guilens.scenarios.model import Scenario

PART = "listing"


def pack_listing(s: Scenario) -> dict[str, Any]:
    """One pack as `scenarios list --json` prints it (the table shows some of these fields)."""
    from guilens.scenarios.stats import pack_stats

    return {"id": s.id, "title": s.title, "kind": s.kind, "device": s.device, "apps": list(s.apps),
            "levels": list(s.levels), "tasks": [t.id for t in s.tasks],
            "templates": [t.id for t in s.tasks if t.params],
            "stats": pack_stats(s).to_json(), "source": str(s.source) if s.source else None}


def _builtin_texts() -> list[tuple[Path, str]] | None:
    """Each built-in pack file with its text, as the loader finds them; None when one cannot be read
    (the loader then says why)."""
    files = builtin_files()
    try:
        return [(f, f.read_text(encoding="utf-8")) for f in files]
    except (OSError, UnicodeDecodeError):
        return None


def builtin_listing() -> tuple[list[dict[str, Any]], list[str]]:
    """The built-in packs' listings, in the loader's order, and the problems that stop them (none or all)."""
    texts = _builtin_texts()
    if texts is not None:
        kept = [packcache.recall(f, text, PART) for f, text in texts]
        if all(isinstance(k, dict) for k in kept):
            return kept, []  # type: ignore[return-value]  # every entry checked to be a dict
    from guilens.scenarios.errors import ScenarioError
    from guilens.scenarios.loader import load_builtin

    try:
        packs = load_builtin()
    except ScenarioError as err:
        return [], err.problems
    listings = [pack_listing(s) for s in packs]
    if texts is not None and len(texts) == len(listings):  # the loader's files, in its order, every one good
        for (f, text), listing in zip(texts, listings, strict=True):
            packcache.store(f, text, listing, PART)
    return listings, []
