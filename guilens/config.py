"""Settings from `GUILENS_*` environment variables and an optional TOML file.

The file lives in the platform config directory (`guilens locate` prints it) or
wherever `GUILENS_CONFIG_FILE` points. The environment wins over the file.
Secrets (API keys) are read from the environment only, are not settings
fields, and so can never be written into anything guilens produces.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, ValidationError

APP_NAME = "guilens"


class ConfigError(ValueError):
    """A config file or variable with a bad value; the message names it."""


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    run_dir: Path = Path("runs")
    """Where runs are written (`--out` overrides it)."""
    model: str = "claude-sonnet-5-5"
    """Model for the claude agent and the llm user."""
    judge_model: str = "claude-sonnet-5-5"
    """Model for the judge's LLM stages (the grader role)."""
    device: str = "sim"
    """Default device: `sim` or `adb[:SERIAL]`."""
    screen_width: int = Field(default=1080, ge=240, le=4096)
    screen_height: int = Field(default=2400, ge=240, le=4096)
    stm_size: int = Field(default=4, ge=1, le=50)
    """Chain-of-Memory short-term memory length."""
    judge_concurrency: int = Field(default=4, ge=1, le=32)
    cache_dir: Path = Field(default_factory=lambda: Path(platformdirs.user_cache_dir(APP_NAME)))
    """LLM response cache (the judge's, and agents' when opted in)."""
    api_base_url: str | None = None
    """Anthropic API base URL override (tests point it at a loopback server)."""
    request_timeout_s: float = Field(default=120.0, gt=0)
    max_retries: int = Field(default=4, ge=0, le=20)
    screenshot_dir: Path | None = None
    """Where the TUI's screenshots (palette: Screenshot) go. Unset: beside the run in view
    (`<run>/screenshots/`), else `<run_dir>/screenshots/`; the folder is made when needed."""
    renderer: Literal["auto", "halfcell", "sixel", "tgp", "iterm", "text"] = "auto"
    """How the TUI draws the phone: `auto` picks Kitty graphics, Sixel or iTerm2 images where the
    terminal draws them, else half cells with the text of the UI tree beside them (`--renderer`
    overrides it)."""


def config_file() -> Path:
    override = os.environ.get("GUILENS_CONFIG_FILE")
    if override:
        return Path(override)
    return Path(platformdirs.user_config_dir(APP_NAME)) / "config.toml"


def _env_values() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in Settings.model_fields:
        value = os.environ.get(f"GUILENS_{name.upper()}")
        if value is not None and value != "":
            out[name] = value
    return out


def load_settings(**overrides: Any) -> Settings:
    """File, then environment, then explicit overrides (command-line options)."""
    data: dict[str, Any] = {}
    path = config_file()
    if path.is_file():
        try:
            data.update(tomllib.loads(path.read_text(encoding="utf-8")))
        except tomllib.TOMLDecodeError as err:
            raise ConfigError(f"{path}: {err}") from None
    data.update(_env_values())
    data.update({k: v for k, v in overrides.items() if v is not None})
    try:
        return Settings.model_validate(data)
    except ValidationError as err:
        e = err.errors()[0]
        field = ".".join(str(p) for p in e["loc"])
        raise ConfigError(
            f"setting {field!r} (config file {path} or GUILENS_{field.upper()}): {e['msg']}"
        ) from None


def api_key() -> str | None:
    """The Anthropic API key, from the environment only."""
    return os.environ.get("ANTHROPIC_API_KEY") or None
