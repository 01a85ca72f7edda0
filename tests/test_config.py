"""Settings: file, environment, overrides; secrets stay in the environment."""

from __future__ import annotations

from pathlib import Path

import pytest

from guilens.config import ConfigError, Settings, load_settings


def test_environment_beats_file_and_overrides_beat_both(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text('model = "from-file"\nrun_dir = "/tmp/file-runs"\nstm_size = 6\n')
    monkeypatch.setenv("GUILENS_CONFIG_FILE", str(cfg))
    monkeypatch.setenv("GUILENS_MODEL", "from-env")
    s = load_settings()
    assert (s.model, s.run_dir, s.stm_size) == ("from-env", Path("/tmp/file-runs"), 6)
    assert load_settings(model="from-flag").model == "from-flag"


def test_defaults(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GUILENS_CONFIG_FILE", str(tmp_path / "absent.toml"))
    assert load_settings().run_dir == Path("runs")


def test_bad_values_name_the_setting_and_where_it_came_from(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = tmp_path / "config.toml"
    monkeypatch.setenv("GUILENS_CONFIG_FILE", str(cfg))
    cfg.write_text("stm_size = [\n")
    with pytest.raises(ConfigError, match=str(cfg)):
        load_settings()
    cfg.write_text("")
    monkeypatch.setenv("GUILENS_STM_SIZE", "many")
    with pytest.raises(ConfigError, match="stm_size.*GUILENS_STM_SIZE"):
        load_settings()


def test_the_api_key_is_not_a_setting(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GUILENS_CONFIG_FILE", str(tmp_path / "absent.toml"))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret-value")
    monkeypatch.setenv("GUILENS_ANTHROPIC_API_KEY", "sk-ant-secret-value")
    dumped = load_settings().model_dump_json()
    assert "sk-ant-secret-value" not in dumped
    assert not any("key" in name for name in Settings.model_fields)
