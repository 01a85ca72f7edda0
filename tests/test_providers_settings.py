"""The provider settings: per-provider base URLs (with `anthropic_base_url` as another name for
`api_base_url`), the price table override, the user's and the describer's models; bad values in one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from guilens.config import ConfigError, load_settings
from guilens.episode_model import Usage
from guilens.llm.prices import priced


def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    monkeypatch.setenv("GUILENS_CONFIG_FILE", str(path))


def test_the_file_sets_every_provider_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config(tmp_path, monkeypatch, '''
anthropic_base_url = "http://127.0.0.1:9999"
openai_base_url = "http://localhost:8000/v1"
openai_tool_calls = false
user_model = "openai:qwen2.5-vl-7b"
describe_model = "anthropic:claude-haiku-4-5"
[prices]
"openai:qwen2.5-vl-7b" = {input = 0.0, output = 0.0}
"my-local" = {input = 0.2, output = 0.6, cache_read = 0.05}
''')
    s = load_settings()
    assert s.api_base_url == "http://127.0.0.1:9999" and s.openai_base_url == "http://localhost:8000/v1"
    assert s.openai_tool_calls is False and s.user_model == "openai:qwen2.5-vl-7b"
    assert s.describe_model == "anthropic:claude-haiku-4-5"
    usage = Usage(input_tokens=1_000_000, output_tokens=1_000_000, cache_read_tokens=1_000_000)
    assert priced("openai", "qwen2.5-vl-7b", usage, s.prices) == (0.0, True)  # a local model at 0, and known
    assert priced("openai", "my-local", usage, s.prices) == (pytest.approx(0.85), True)
    assert priced("openai", "unknown-model", usage, s.prices) == (0.0, False)  # shown as "price unknown"
    assert priced("openai", "gpt-4o-2024-08-06", usage, s.prices)[1]  # OpenAI's own table


def test_prices_from_the_environment_are_json(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GUILENS_CONFIG_FILE", str(tmp_path / "none.toml"))
    monkeypatch.setenv("GUILENS_PRICES", '{"openai:m": {"input": 1.5, "output": 3}}')
    assert load_settings().prices["openai:m"].output == 3
    monkeypatch.setenv("GUILENS_PRICES", '{"openai:m": {"input": -1, "output": 3}}')
    with pytest.raises(ConfigError, match=r"^setting 'prices.openai:m.input'") as info:
        load_settings()
    assert "\n" not in str(info.value)
