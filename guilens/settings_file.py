"""Where guilens's settings live and what the file says, without the settings' model.

Apart from `guilens.config` because that module is pydantic's: importing it builds the `Settings`
model (about 110 M instructions, an eighth of a `guilens scenarios list`, under callgrind), and the
one thing listing the built-in packs needs of the settings is the cache dir, where their checked
parse is kept (`guilens.scenarios.packcache`). `cache_dir` reads that one setting by the same rules
as `load_settings` (the environment over the file over the default); `tests/test_settings_file.py`
holds the two to the same answer.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

import platformdirs

APP_NAME = "guilens"


class ConfigError(ValueError):
    """A config file or variable with a bad value; the message names it."""


def config_file() -> Path:
    """The config file: `GUILENS_CONFIG_FILE`, else `config.toml` in the platform's config dir."""
    override = os.environ.get("GUILENS_CONFIG_FILE")
    if override:
        return Path(override)
    return Path(platformdirs.user_config_dir(APP_NAME)) / "config.toml"


def read_file(path: Path) -> dict[str, Any]:
    """The file's table (empty when there is no file), with `anthropic_base_url` read as the
    `api_base_url` it is another spelling of; a file that is not TOML is a `ConfigError` naming it."""
    data: dict[str, Any] = {}
    if path.is_file():
        try:
            data.update(tomllib.loads(path.read_text(encoding="utf-8")))
        except tomllib.TOMLDecodeError as err:
            raise ConfigError(f"{path}: {err}") from None
    return respelled(data)


def respelled(data: dict[str, Any]) -> dict[str, Any]:
    """The file's table with `anthropic_base_url`, the provider-named spelling, read as `api_base_url`
    (which wins where both are given); `data` itself, changed."""
    if "anthropic_base_url" in data:
        data.setdefault("api_base_url", data.pop("anthropic_base_url"))
    return data


def default_cache_dir() -> Path:
    return Path(platformdirs.user_cache_dir(APP_NAME))


def cache_dir() -> Path:
    """The `cache_dir` setting as `load_settings().cache_dir` gives it, the other settings unread.

    A value that is not a path is a `ConfigError`, as the model would make it; other settings' bad
    values are not this function's to find (the command that needs them says so)."""
    value: Any = os.environ.get("GUILENS_CACHE_DIR") or None
    if value is None:
        path = config_file()
        value = read_file(path).get("cache_dir")
        if value is None:
            return default_cache_dir()
        if not isinstance(value, str):
            raise ConfigError(f"setting 'cache_dir' (config file {path} or GUILENS_CACHE_DIR): "
                              "Input is not a valid path")
    return Path(value)
