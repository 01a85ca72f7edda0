"""`guilens cache prune`: trim the LLM response cache by age and size.

The cache (the `cache_dir` setting; `guilens locate` prints it) only grows: every judged screen
and every opted-in agent call adds a file. Pruning removes whole entries, oldest first, so what
stays is what the latest runs would ask again. A removed entry costs one more API call the next
time it is needed, never a wrong answer.
"""

from __future__ import annotations

import re

import typer

cache_app = typer.Typer(name="cache", help="The LLM response cache: prune it by age or size.",
                        no_args_is_help=True)

_DURATION_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 7 * 86_400}
_SIZE_UNITS = {"": 1, "b": 1, "k": 10**3, "kb": 10**3, "m": 10**6, "mb": 10**6, "g": 10**9, "gb": 10**9,
               "t": 10**12, "tb": 10**12, "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}


class BadValue(ValueError):
    """An option value that does not parse; the message names the option and the value."""


def parse_duration(text: str, option: str = "--older-than") -> float:
    """`30d`, `12h`, `90m`, `45s`, `2w` (or several, `1d12h`) as seconds."""
    cleaned = text.strip().lower().replace(" ", "")
    parts = re.findall(r"(\d+(?:\.\d+)?)([smhdw])", cleaned)
    if not parts or "".join(n + u for n, u in parts) != cleaned:
        raise BadValue(f"{option} {text!r}: give a duration such as 30d, 12h, 90m or 2w")
    return sum(float(n) * _DURATION_UNITS[u] for n, u in parts)


def parse_size(text: str, option: str = "--max-size") -> int:
    """`500MB`, `1.5GB`, `200k`, `64MiB` or a number of bytes, as bytes (MB = 10^6, MiB = 2^20)."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([a-z]*)", text.strip().lower())
    if m is None or m.group(2) not in _SIZE_UNITS:
        raise BadValue(f"{option} {text!r}: give a size such as 500MB, 2GB, 800KB or 64MiB")
    return int(float(m.group(1)) * _SIZE_UNITS[m.group(2)])


def human_size(n: int) -> str:
    for unit, factor in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if n >= factor:
            return f"{n / factor:.1f} {unit}"
    return f"{n} B"


@cache_app.command("prune")
def prune_cmd(
    older_than: str = typer.Option(None, "--older-than", metavar="DURATION",
                                   help="Remove entries stored longer ago than this: 30d, 12h, 90m, 2w."),
    max_size: str = typer.Option(None, "--max-size", metavar="SIZE",
                                 help="Then remove the oldest entries until the cache fits: 500MB, 2GB."),
    dry_run: bool = typer.Option(False, "--dry-run", "-n", help="Say what would be removed; remove nothing."),
) -> None:
    """Remove old LLM responses from the cache: by age, then oldest first down to a size."""
    from guilens.cli import UserError
    from guilens.config import load_settings
    from guilens.llm.cache import ResponseCache

    if older_than is None and max_size is None:
        raise UserError("cache prune: give --older-than DURATION, --max-size SIZE, or both")
    try:
        age = parse_duration(older_than) if older_than is not None else None
        cap = parse_size(max_size) if max_size is not None else None
    except BadValue as err:
        raise UserError(str(err)) from None
    cache = ResponseCache(load_settings().cache_dir)
    result = cache.prune(older_than_s=age, max_bytes=cap, dry_run=dry_run)
    verb = "would remove" if dry_run else "removed"
    typer.echo(f"{verb} {len(result.removed)} entr{'y' if len(result.removed) == 1 else 'ies'} "
               f"({human_size(result.removed_bytes)}) from {cache.dir}; "
               f"{result.kept} left ({human_size(result.kept_bytes)})")


def register(app: typer.Typer) -> None:
    app.add_typer(cache_app)
