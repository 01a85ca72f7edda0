"""Settings from `GUILENS_*` environment variables and an optional TOML file.

The file lives in the platform config directory (`guilens locate` prints it) or
wherever `GUILENS_CONFIG_FILE` points. The environment wins over the file.
Secrets (API keys) are read from the environment only, are not settings
fields, and so can never be written into anything guilens produces. Where the
file is and how it is read is `guilens.settings_file`'s, which reads the cache
dir alone for a command that needs nothing else (listing the built-in packs).
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from guilens.settings_file import APP_NAME, ConfigError, config_file, default_cache_dir, read_file, respelled

__all__ = ["APP_NAME", "ConfigError", "ModelPrice", "Settings", "api_key", "color_wanted", "config_file",
           "load_settings", "save_setting"]


class ModelPrice(BaseModel):
    """A model's price in USD per million tokens (the `prices` setting)."""

    model_config = ConfigDict(extra="forbid")

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cache_read: float | None = Field(default=None, ge=0)
    """Unset: the input price."""
    cache_write: float | None = Field(default=None, ge=0)
    """Unset: the input price."""


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
    agent_format: Literal["native", "uitars", "qwen", "odyssey"] = "native"
    """How the built-in LLM agents talk to their model (`--format`): `native` tool calls (the act
    tool), or a paper's text format: `uitars` (UI-TARS), `qwen` (Qwen2.5-VL mobile_use), `odyssey`
    (GUI Odyssey / Chain-of-Memory commands)."""
    agent_memory: Literal["none", "actions", "action-thought", "multiturn", "com"] | None = None
    """The LLM agents' short-term memory design (`--memory`), for ablations: unset means `com` with
    the native format and `action-thought` with a text format (see guilens.agents.memory)."""
    history_images: int = Field(default=5, ge=1, le=50)
    """`--memory multiturn`: screenshots per request, the current one included (UI-TARS's 5)."""
    screen_info: bool = False
    """Chain-of-Memory's ScreenInfo (`--screen-info`): one more model call per step that writes down
    the task-relevant information on screen, which the decision then reads."""
    max_pixels: int | None = Field(default=None, ge=784)
    """Pixel budget of the screenshot sent (`--max-pixels`); unset: the format's default. For a
    Qwen2.5-VL-based model it must match the server's `max_pixels`."""
    agent_base_url: str | None = None
    """Endpoint of the LLM agent's API (`--base-url`): an OpenAI-compatible server for `--agent
    openai` (vLLM: http://localhost:8000/v1), the Anthropic API for `--agent claude`."""
    openai_model: str | None = None
    """Model for `--agent openai` when `--model` is not given: the name the server serves."""
    cache_dir: Path = Field(default_factory=default_cache_dir)
    """LLM response cache (the judge's, and agents' when opted in)."""
    cache_max_mb: float | None = Field(default=None, gt=0)
    """Size cap of the LLM response cache in MB: past it, a write removes the oldest entries until the
    cache is under 90% of the cap (the slack keeps every write from rescanning). Unset: no cap;
    `guilens cache prune` trims it by hand."""
    theme: str | None = None
    """The TUI's Textual theme (`textual-dark`, `nord`, `gruvbox`, ...): the palette's theme picker
    saves the choice here, and the app starts with it. Unset: Textual's default."""
    api_base_url: str | None = None
    """Anthropic API base URL override (tests point it at a loopback server); unset:
    `ANTHROPIC_BASE_URL`, else the Anthropic API. `anthropic_base_url` is the same setting."""
    openai_base_url: str | None = None
    """Base URL of the OpenAI-compatible server `openai:MODEL` specs talk to (vLLM, SGLang,
    llama.cpp, LM Studio: `http://localhost:8000/v1`); unset: `OPENAI_BASE_URL`, else the OpenAI API.
    A loopback or private address needs no `OPENAI_API_KEY`."""
    openai_tool_calls: bool = True
    """Whether the OpenAI-compatible server does tool calling (vLLM needs `--enable-auto-tool-choice`
    and a `--tool-call-parser`); false: callers must use a text format instead of tools."""
    user_model: str | None = None
    """Model of the llm user (`--user-model`): `anthropic:MODEL`, `openai:MODEL` or a bare Claude
    model name; unset: the `model` setting."""
    user_base_url: str | None = None
    """Base URL for the llm user's provider (`--user-base-url`); unset: the provider's own setting."""
    describe_model: str | None = None
    """Model for the judge's step descriptions (`--describe-model`), which MemGUI-Eval gives a cheaper
    model than the decisions; unset: the judge model."""
    prices: dict[str, ModelPrice] = Field(default_factory=dict)
    """Prices per million tokens by model (`"openai:qwen2.5-vl-7b" = {input = 0.0, output = 0.0}`),
    over guilens's own table: a local model priced at 0 or at its GPU cost. Keys are model specs or
    bare model names."""
    request_timeout_s: float = Field(default=120.0, gt=0)
    max_retries: int = Field(default=4, ge=0, le=20)
    disconnect_wait_s: float = Field(default=300.0, ge=0, le=86_400)
    """How long a run waits for a phone that went away mid-run (a cable pulled, `adb` lost it)
    before the attempt ends `error` and the tasks left for that phone are not run. The run is
    paused meanwhile and goes on by itself as soon as the phone answers again (or at once on
    the resume key). 0: do not wait."""
    screenshot_dir: Path | None = None
    """Where the TUI's screenshots (palette: Screenshot) go. Unset: beside the run in view
    (`<run>/screenshots/`), else `<run_dir>/screenshots/`; the folder is made when needed."""
    ask: Literal["on", "off"] = "on"
    """ScenDroid's Active (`on`) or Passive (`off`) mode (`--ask`): whether the agent may ask the
    user (`ask_user`). Off, the action is not offered to the agent, and one it emits anyway is
    refused as an invalid action, never reaching the user."""
    max_questions: int | None = Field(default=None, ge=0)
    """ScenDroid's per-task clarification budget (`--max-questions`): questions an attempt may ask
    before a further `ask_user` is refused. Unset: no budget (the paper never gives its value)."""
    anomalies: float = Field(default=0.0, ge=0, le=1)
    """AndroidLens's environmental anomalies on demand (`--anomalies RATE`): after every action the
    simulated phone shows, with this probability, one anomaly (an ad, a permission dialog, the
    low-battery warning, an app crash), drawn from the run's seed (or the task and attempt). 0: none.
    The sim only: guilens cannot draw over a real phone's apps."""
    variants: int | None = Field(default=None, ge=1, le=1000)
    """Parametric tasks (`--variants N`): how many variants of each task template a run or a
    verify instantiates, drawn by `--seed` from the sim's data (`guilens.scenarios.params`). Unset:
    one variant per template; tasks with fixed values run once either way."""
    context: Literal["episodic", "augmented"] = "episodic"
    """ScenDroid's modes for a day of tasks (`--context`): `episodic` starts each task with a fresh
    agent session; `augmented` gives the agent the context pack of the day's earlier tasks
    (instruction, outcome, answer and values, and the actions taken)."""
    renderer: Literal["auto", "halfcell", "sixel", "tgp", "iterm", "text"] = "auto"
    """How the TUI draws the phone: `auto` picks Kitty graphics, Sixel or iTerm2 images where the
    terminal draws them, else half cells with the text of the UI tree beside them (`--renderer`
    overrides it)."""


def _env_values() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in Settings.model_fields:
        value = os.environ.get(f"GUILENS_{name.upper()}")
        if value is not None and value != "":
            out[name] = _json_or_text(value) if name == "prices" else value
    return out


def _json_or_text(value: str) -> Any:
    """`GUILENS_PRICES='{"openai:m": {"input": 0, "output": 0}}'`: a table in a variable is JSON."""
    import json

    try:
        return json.loads(value)
    except ValueError:
        return value  # validation names the setting


def load_settings(**overrides: Any) -> Settings:
    """File, then environment, then explicit overrides (command-line options)."""
    path = config_file()
    data = read_file(path)
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


def save_setting(name: str, value: Any) -> Path:
    """Write one top-level setting into the config file (made if missing), keeping the rest of the
    file, its comments and layout, as it was: the file is the person's, guilens only edits a line.

    The new text is validated before it replaces the file, so a bad value never lands there.
    """
    import tomlkit

    if name not in Settings.model_fields:
        raise ConfigError(f"no setting {name!r}")
    path = config_file()
    try:
        doc = tomlkit.parse(path.read_text(encoding="utf-8")) if path.is_file() else tomlkit.document()
    except tomlkit.exceptions.ParseError as err:
        raise ConfigError(f"{path}: {err}") from None
    doc[name] = value
    text = tomlkit.dumps(doc)
    data = respelled(tomllib.loads(text))
    try:
        Settings.model_validate(data)
    except ValidationError as err:
        e = err.errors()[0]
        raise ConfigError(f"setting {'.'.join(str(p) for p in e['loc'])!r} in {path}: {e['msg']}") from None
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return path


def color_wanted() -> bool:
    """Whether output may be coloured: not when `NO_COLOR` holds any non-empty value (no-color.org).
    `guilens --no-color` sets it, so Rich, click and Textual, here and in child processes, all agree."""
    return not os.environ.get("NO_COLOR")


def api_key(provider: str = "anthropic") -> str | None:
    """A provider's API key (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`), from the environment only."""
    return os.environ.get(f"{provider.upper()}_API_KEY") or None
