"""The values the scan builds (`yamlbuild`) are what PyYAML's safe load makes of the same text, and
anything it does not build goes the old way, with the old messages."""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path
from typing import Any

import pytest
import yaml

from guilens.scenarios import loader
from guilens.scenarios.errors import ScenarioError
from guilens.scenarios.files import builtin_files
from guilens.scenarios.yamlbuild import NOT_BUILT
from guilens.scenarios.yamlscan import scan

PLAIN = {
    "scalars": """
        a: 1
        b: -0x1F
        c: 0o17
        d: 017
        e: 1_000
        f: 190:20:30
        g: 3.5
        h: .inf
        i: -.Inf
        j: 1e3
        k: 6.8523015e+5
        l: yes
        m: Off
        n: ~
        o:
        p: null
        q: 2026-11-21
        r: 2026-11-21T09:00:00
        s: 2001-12-14t21:59:43.10-05:00
        t: '3'
        u: "yes"
        v: |
          two
          lines
        w: >-
          folded
          text
        x: plain words, a comma, a colon:in a word
        y: 12:30
    """,
    "keys": """
        1: int
        2026-01-02: date
        false: bool
        ~: null key
        "quoted": str
        3.5: float
    """,
    "flow": "{tasks: [{id: a, steps: [1, 2, {x: [], y: {}}]}, [nested, [deep]]], empty: [], none: {}}",
    "root list": "- 1\n- [2, 3]\n- k: v\n",
    "root scalar": "just words",
    "empty": "",
    "only a comment": "# nothing here\n",
    "explicit document": "---\na: 1\n...\n",
    "anchor, never used": "a: &x 1\nb: 2\n",
    "nan": "a: .nan\n",
}


def _safe(text: str) -> Any:
    return yaml.load(text, Loader=yaml.SafeLoader)


def _same(a: Any, b: Any) -> bool:
    """Equal, with NaN equal to NaN and types compared too (1 is not True, a date is not a datetime)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


@pytest.mark.parametrize("name", list(PLAIN))
def test_plain_yaml_is_built_as_a_safe_load_builds_it(name: str) -> None:
    import textwrap

    text = textwrap.dedent(PLAIN[name])
    read = scan(text, "f.yaml")
    assert read.problems == []
    assert read.data is not NOT_BUILT
    assert _same(read.data, _safe(text)), (read.data, _safe(text))


def test_the_scalars_keep_their_types() -> None:
    import textwrap

    got = scan(textwrap.dedent(PLAIN["scalars"]), "f.yaml").data
    assert got["b"] == -31 and got["c"] == "0o17" and got["d"] == 15 and got["e"] == 1000 and got["f"] == 685230
    assert got["h"] == math.inf and got["j"] == "1e3" and got["l"] is True and got["m"] is False
    assert got["n"] is None and got["o"] is None and got["q"] == dt.date(2026, 11, 21)
    assert got["r"] == dt.datetime(2026, 11, 21, 9) and got["s"].utcoffset() == dt.timedelta(hours=-5)
    assert got["t"] == "3" and got["u"] == "yes" and got["v"] == "two\nlines\n" and got["y"] == 750


@pytest.mark.parametrize("path", builtin_files(), ids=lambda p: p.name)
def test_every_builtin_pack_is_built_as_a_safe_load_builds_it(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    read = scan(text, str(path))
    assert read.problems == [] and read.data is not NOT_BUILT
    assert _same(read.data, _safe(text))


GIVE_UP = {
    "an alias": "a: &x {k: 1}\nb: *x\n",
    "a merge key": "a: &x {k: 1}\nb:\n  <<: *x\n  j: 2\n",
    "an explicit scalar tag": "a: !!str 3\n",
    "an explicit collection tag": "a: !!set {x, y}\n",
    "a non-specific tag": "a: ! 3\n",
    "a local tag": "a: !thing 3\n",
    "a duplicate key": "a: 1\nb: 2\na: 3\n",
    "1 and true as keys": "1: a\ntrue: b\n",
    "a collection as a key": "? [a, b]\n: c\n",
    "a date that is no date": "a: 2026-13-45\n",
    "a value key": "a: =\n",
    "a second document": "a: 1\n---\nb: 2\n",
}


@pytest.mark.parametrize("name", list(GIVE_UP))
def test_what_is_not_plain_is_left_to_pyyaml(name: str) -> None:
    text = GIVE_UP[name]
    read = scan(text, "f.yaml")
    assert read.problems == []
    assert read.data is NOT_BUILT


@pytest.mark.parametrize("name", ["an alias", "a merge key", "an explicit scalar tag", "a non-specific tag"])
def test_what_pyyaml_builds_the_loader_still_builds(name: str) -> None:
    data, _ = loader.parse_text(GIVE_UP[name], "f.yaml")
    assert _same(data, _safe(GIVE_UP[name]))


@pytest.mark.parametrize(("name", "says"), [
    ("a duplicate key", "duplicate key 'a' (first at line 1)"),
    ("1 and true as keys", "duplicate key True"),
    ("a collection as a key", "a mapping key must be a plain value"),
    ("a date that is no date", "'2026-13-45' is not a valid timestamp"),
    ("a second document", "expected a single document"),
])
def test_what_pyyaml_refuses_is_still_named_with_its_line(name: str, says: str) -> None:
    with pytest.raises(ScenarioError) as err:
        loader.parse_text(GIVE_UP[name], "f.yaml")
    assert says in str(err.value)
    assert "f.yaml:" in str(err.value)


def test_a_file_is_composed_only_when_a_problem_needs_its_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    composed: list[str] = []
    compose = yaml.compose

    def counting(text: str, Loader: Any) -> Any:
        composed.append(text)
        return compose(text, Loader=Loader)

    monkeypatch.setattr(loader.yaml, "compose", counting)
    good = builtin_files()[0].read_text(encoding="utf-8")
    loader.load_text(good, "good.yaml")
    assert composed == []
    bad = good.replace("\ntitle:", "\ntitle: [not, a, title]\nold_title:", 1)
    with pytest.raises(ScenarioError) as err:
        loader.load_text(bad, "bad.yaml")
    assert composed == [bad]
    line = bad[: bad.index("title: [not")].count("\n") + 1
    assert f"bad.yaml:{line}:" in str(err.value)
