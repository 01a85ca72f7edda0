"""`settings_file.cache_dir` reads the one setting the pack listing needs without the settings' model:
it must give what `load_settings().cache_dir` gives, from the environment, the file or the default,
and refuse what the model refuses, naming the setting and the file as it does."""

from __future__ import annotations

from pathlib import Path

import pytest

from guilens import settings_file
from guilens.config import ConfigError, load_settings


@pytest.fixture()
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "config.toml"
    monkeypatch.setenv("GUILENS_CONFIG_FILE", str(path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.delenv("GUILENS_CACHE_DIR", raising=False)
    return path


@pytest.mark.parametrize(("text", "env", "want"), [
    (None, None, "default"),
    ('cache_dir = "/srv/guilens-cache"\n', None, "/srv/guilens-cache"),
    ('cache_dir = "/srv/guilens-cache"\n', "/from/env", "/from/env"),
    ('cache_dir = "/srv/guilens-cache"\n', "", "/srv/guilens-cache"),  # an empty variable is unset
    ('cache_dir = "~/not-expanded"\n', None, "~/not-expanded"),
    ('cache_dir = ""\n', None, ""),
    ('theme = "nord"\n', None, "default"),
    ('anthropic_base_url = "http://127.0.0.1:9"\n', None, "default"),
])
def test_the_cache_dir_is_the_settings_own(config: Path, monkeypatch: pytest.MonkeyPatch, text: str | None,
                                            env: str | None, want: str) -> None:
    if text is not None:
        config.write_text(text, encoding="utf-8")
    if env is not None:
        monkeypatch.setenv("GUILENS_CACHE_DIR", env)
    got = settings_file.cache_dir()
    assert got == load_settings().cache_dir
    assert got == (settings_file.default_cache_dir() if want == "default" else Path(want))
    if want == "default":
        assert got.is_relative_to(config.parent / "xdg-cache")


@pytest.mark.parametrize("text", ["cache_dir = 5\n", "cache_dir = [\"a\"]\n", "cache_dir = \n"])
def test_a_bad_cache_dir_or_file_is_refused_as_the_model_refuses_it(config: Path, text: str) -> None:
    config.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as light:
        settings_file.cache_dir()
    with pytest.raises(ConfigError) as full:
        load_settings()
    # The same line up to the reason (the model's reason is pydantic's wording): the setting and the file.
    assert str(light.value).split(": ")[0] == str(full.value).split(": ")[0]
    assert str(config) in str(light.value)


def test_other_settings_bad_values_are_not_the_listings_to_find(config: Path) -> None:
    """The listing needs the cache dir only: a bad value elsewhere is the command's that reads it."""
    config.write_text('cache_dir = "/srv/c"\nstm_size = 0\n', encoding="utf-8")
    assert settings_file.cache_dir() == Path("/srv/c")
    with pytest.raises(ConfigError, match="stm_size"):
        load_settings()


def test_listing_the_packs_never_imports_the_settings_model(tmp_path: Path) -> None:
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "GUILENS_CACHE_DIR": str(tmp_path / "cache"), "GUILENS_CONFIG_FILE": str(tmp_path / "c.toml")}
    code = ("import sys, json; from guilens.scenarios.listing import builtin_listing; builtin_listing(); "
            "listed, problems = builtin_listing(); "
            "print(json.dumps([len(listed), problems, 'guilens.config' in sys.modules]))")
    subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True)  # fills the cache
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True).stdout
    count, problems, config_imported = json.loads(out)
    assert count >= 7 and problems == [] and config_imported is False
