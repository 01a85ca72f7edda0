"""The LLM response cache: `guilens cache prune` by age and size, and the `cache_max_mb` cap."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from guilens.cli import app
from guilens.commands.cache import BadValue, parse_duration, parse_size
from guilens.llm.cache import ResponseCache

DAY = 86_400.0


def fill(cache: ResponseCache, n: int, *, size: int = 1000, now: float | None = None) -> list[str]:
    """`n` entries of about `size` bytes, entry i stored i days ago."""
    now = time.time() if now is None else now
    keys = []
    for i in range(n):
        key = cache.key({"i": i})
        cache.put(key, {"content": [{"type": "text", "text": "x" * size}]}, role="judge")
        os.utime(cache.path(key), (now - i * DAY, now - i * DAY))
        keys.append(key)
    return keys


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("GUILENS_CONFIG_FILE", str(tmp_path / "none.toml"))
    monkeypatch.setenv("GUILENS_CACHE_DIR", str(tmp_path / "cache"))
    return CliRunner()


def test_durations_and_sizes() -> None:
    assert parse_duration("30d") == 30 * DAY
    assert parse_duration("12h") == 12 * 3600
    assert parse_duration("1d12h") == 1.5 * DAY
    assert parse_duration("2w") == 14 * DAY
    assert parse_size("500MB") == 500_000_000
    assert parse_size("1.5GB") == 1_500_000_000
    assert parse_size("64MiB") == 64 * 2**20
    assert parse_size("4096") == 4096
    for bad in ("", "30", "d", "3x", "-1d", "1d x"):
        with pytest.raises(BadValue, match="--older-than"):
            parse_duration(bad)
    for bad in ("", "MB", "5zz", "-3MB"):
        with pytest.raises(BadValue, match="--max-size"):
            parse_size(bad)


def test_prune_by_age_then_oldest_first_down_to_a_size(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    now = time.time()
    keys = fill(cache, 10, now=now)
    size = max(e.size for e in cache.entries())  # a byte or two apart: `stored_at` is in them
    dry = cache.prune(older_than_s=5.5 * DAY, dry_run=True, now=now)
    assert len(dry.removed) == 4 and all(cache.path(k).is_file() for k in keys)  # a dry run removes nothing
    gone = cache.prune(older_than_s=5.5 * DAY, max_bytes=3 * size, now=now)
    # days 6-9 by age, then days 5 and 4 and 3 (the oldest left) until three entries fit
    assert sorted(e.path.stem for e in gone.removed) == sorted(keys[3:])
    assert [k for k in keys if cache.path(k).is_file()] == keys[:3]
    assert gone.kept == 3 and gone.kept_bytes == sum(e.size for e in cache.entries()) <= 3 * size
    assert cache.get(keys[0]) is not None and cache.get(keys[9]) is None


def test_a_capped_cache_trims_its_oldest_entries_when_a_write_passes_the_cap(tmp_path: Path) -> None:
    probe = ResponseCache(tmp_path / "probe")
    fill(probe, 1)
    size = probe.entries()[0].size
    cap = 10 * size + 100  # room for 10 entries (they differ by a few bytes: `stored_at`), not for 11
    cache = ResponseCache(tmp_path / "capped", max_bytes=cap)
    keys = fill(cache, 10)  # entry i is i days old: the last ones written are the oldest
    assert len(cache.entries()) == 10  # at the cap, not past it
    newest = cache.key({"new": 1})
    cache.put(newest, {"content": [{"type": "text", "text": "x" * 1000}]}, role="judge")
    left = cache.entries()
    assert sum(e.size for e in left) <= 0.9 * cap and 8 <= len(left) <= 9
    assert cache.path(newest).is_file() and cache.path(keys[0]).is_file()
    assert not cache.path(keys[9]).is_file()  # the oldest went first


def test_the_cap_comes_from_the_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from guilens.config import load_settings
    from guilens.llm.client import LLMClient

    monkeypatch.setenv("GUILENS_CONFIG_FILE", str(tmp_path / "none.toml"))
    monkeypatch.setenv("GUILENS_CACHE_MAX_MB", "2.5")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "not-used: no call is made")
    client = LLMClient("claude-sonnet-5-5", role="judge", settings=load_settings(cache_dir=tmp_path))
    assert client.cache is not None and client.cache.max_bytes == 2_500_000


def test_the_command_says_what_it_removed(cli: CliRunner, tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache")
    keys = fill(cache, 6)
    dry = cli.invoke(app, ["cache", "prune", "--older-than", "84h", "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert dry.output.startswith("would remove 2 entries") and "4 left" in dry.output
    assert all(cache.path(k).is_file() for k in keys)
    done = cli.invoke(app, ["cache", "prune", "--older-than", "84h"])
    assert done.output.startswith("removed 2 entries") and "4 left" in done.output
    assert [k for k in keys if cache.path(k).is_file()] == keys[:4]
    empty = cli.invoke(app, ["cache", "prune", "--max-size", "0"])
    assert empty.output.startswith("removed 4 entries") and cache.entries() == []


@pytest.mark.parametrize(("args", "says"), [
    (["--older-than", "soon"], "--older-than 'soon'"),
    (["--max-size", "lots"], "--max-size 'lots'"),
    ([], "give --older-than"),
])
def test_bad_values_are_one_line(args: list[str], says: str, tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess
    import sys

    env = {**os.environ, "GUILENS_CONFIG_FILE": str(tmp_path / "none.toml"), "GUILENS_CACHE_DIR": str(tmp_path)}
    got = subprocess.run([sys.executable, "-m", "guilens", "cache", "prune", *args], capture_output=True, text=True,
                         env=env)
    assert got.returncode == 2 and got.stdout == ""
    assert got.stderr.count("\n") == 1 and got.stderr.startswith("error: ") and says in got.stderr
