"""Hostile mutants of the built-in scenario files: clean problems naming file, task and field, never a traceback.

Mutations work on the YAML node tree of `guilens/scenarios/builtin/*.yaml`, so
what a dict cannot hold is reachable too: duplicate keys, tags, anchors and
aliases (a node used twice is written as an anchor and its alias), alias bombs
and aliases that contain themselves. Values nested thousands deep are spliced
in as text, since the emitter itself recurses.

Every problem must be one line that starts with the file, and one whose line
falls inside a task must name that task and the field.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from guilens.cli import app
from guilens.scenarios.errors import MAX_PROBLEMS, ScenarioError
from guilens.scenarios.loader import builtin_files, load_text
from guilens.scenarios.model import Scenario
from guilens.scenarios.yamlscan import AliasAtUseLoader

FILES = {p.name: p.read_text(encoding="utf-8") for p in builtin_files()}
TREES = {name: yaml.compose(text, Loader=yaml.SafeLoader) for name, text in FILES.items()}
DEEP = "__deep_value__"
DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
DUMPER_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
LEAKS = ("Traceback", "input_value=", "pydantic", "For further information", "function-after", "constrained-str",
         "RecursionError", "<unicode string>")
MAX_LINE = 700
"""No problem line is longer than this, whatever the file held (1 MB values included)."""


# --- mutating node trees -----------------------------------------------------------------------


def slots(node: yaml.Node, path: tuple = (), seen: set[int] | None = None) -> list[tuple[tuple, yaml.Node, Any]]:
    """Every place a value sits: (path, the collection holding it, its key node or index). A node met
    again (an alias, a value that contains itself) is not entered twice."""
    seen = set() if seen is None else seen
    if id(node) in seen:
        return []
    seen.add(id(node))
    out: list[tuple[tuple, yaml.Node, Any]] = []
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            key = k.value if isinstance(k, yaml.ScalarNode) else "?"
            out.append(((*path, key), node, k))
            out += slots(v, (*path, key), seen)
    elif isinstance(node, yaml.SequenceNode):
        for i, v in enumerate(node.value):
            out.append(((*path, i), node, i))
            out += slots(v, (*path, i), seen)
    return out


def scalar(value: str, tag: str = "tag:yaml.org,2002:str", style: str | None = None) -> yaml.ScalarNode:
    return yaml.ScalarNode(tag, value, style=style)


def get(parent: yaml.Node, where: Any) -> yaml.Node:
    if isinstance(parent, yaml.SequenceNode):
        return parent.value[where]
    return next(v for k, v in parent.value if k is where)


def put(parent: yaml.Node, where: Any, new: yaml.Node) -> None:
    if isinstance(parent, yaml.SequenceNode):
        parent.value[where] = new
    else:
        parent.value = [(k, new if k is where else v) for k, v in parent.value]


def bomb(levels: int = 9) -> yaml.Node:
    """Billion laughs: each level a list holding the level below ten times (written as aliases)."""
    node: yaml.Node = yaml.SequenceNode("tag:yaml.org,2002:seq", [scalar("lol")] * 10)
    for _ in range(levels):
        node = yaml.SequenceNode("tag:yaml.org,2002:seq", [node] * 10)
    return node


REPLACEMENTS: list[Any] = [
    lambda d: scalar("null", "tag:yaml.org,2002:null"),
    lambda d: scalar("0", "tag:yaml.org,2002:int"),
    lambda d: scalar("-7", "tag:yaml.org,2002:int"),
    lambda d: scalar("3.5", "tag:yaml.org,2002:float"),
    lambda d: scalar("true", "tag:yaml.org,2002:bool"),
    lambda d: scalar(""),
    lambda d: scalar("{nope}"),
    lambda d: scalar("L9"),
    lambda d: yaml.SequenceNode("tag:yaml.org,2002:seq", []),
    lambda d: yaml.MappingNode("tag:yaml.org,2002:map", []),
    lambda d: yaml.MappingNode("tag:yaml.org,2002:map", [(scalar("junk"), scalar("1"))]),
    lambda d: scalar(d.draw(st.text(min_size=1, max_size=12))),  # any unicode, control characters included
    lambda d: scalar("x" * d.draw(st.sampled_from([65, 300, 5000, 1_000_000]))),  # long, and a 1 MB value
    lambda d: scalar("word " * 200_000),  # 1 MB of short words
    lambda d: scalar(d.draw(st.sampled_from(["a/b", "..", "a b", "con", "é", "-x", ".hidden", "x" * 300,
                                             "ab\u202ecd", "\U0001f600"]))),  # unsafe in a file name
    lambda d: scalar("x", d.draw(st.sampled_from(["!custom", "tag:yaml.org,2002:python/object:os.system",
                                                  "tag:yaml.org,2002:binary", "tag:yaml.org,2002:timestamp",
                                                  "tag:yaml.org,2002:int", "tag:yaml.org,2002:set"]))),
    lambda d: bomb(),
    lambda d: scalar(DEEP),
]


def clone(node: yaml.Node, memo: dict[int, yaml.Node] | None = None) -> yaml.Node:
    """A copy of a node tree that shares the (immutable) marks: `copy.deepcopy` spends most of its
    time copying them. A node met twice (an alias, a value holding itself) stays one node."""
    memo = {} if memo is None else memo
    if id(node) in memo:
        return memo[id(node)]
    if isinstance(node, yaml.ScalarNode):
        memo[id(node)] = yaml.ScalarNode(node.tag, node.value, node.start_mark, node.end_mark, node.style)
        return memo[id(node)]
    new = copy.copy(node)
    memo[id(node)] = new
    if isinstance(node, yaml.MappingNode):
        new.value = [(clone(k, memo), clone(v, memo)) for k, v in node.value]
    else:
        new.value = [clone(v, memo) for v in node.value]
    return new


def mutate(tree: yaml.Node, d: st.DataObject) -> tuple[yaml.Node, str, tuple]:
    """One mutation of a copy of `tree`: the tree, what was done, and where."""
    tree = clone(tree)
    path, parent, where = d.draw(st.sampled_from(slots(tree)))
    op = d.draw(st.sampled_from(["drop", "duplicate", "retype", "retype", "alias", "self-alias"]))
    if op == "drop":
        if isinstance(parent, yaml.SequenceNode):
            del parent.value[where]
        else:
            parent.value = [(k, v) for k, v in parent.value if k is not where]
    elif op == "duplicate":  # a mapping's key twice, or a list item twice
        if isinstance(parent, yaml.SequenceNode):
            parent.value.insert(where, clone(parent.value[where]))
        else:
            pair = next(p for p in parent.value if p[0] is where)
            parent.value.append((clone(pair[0]), clone(pair[1])))
    elif op == "retype":
        put(parent, where, d.draw(st.sampled_from(REPLACEMENTS))(d))
    elif op == "alias":  # the same node in two places: an anchor and its alias
        _, other_parent, other_where = d.draw(st.sampled_from(slots(tree)))
        put(parent, where, get(other_parent, other_where))
    else:  # a value that contains itself
        node = get(parent, where)
        if isinstance(node, yaml.SequenceNode):
            node.value.append(node)
        elif isinstance(node, yaml.MappingNode):
            node.value.append((scalar("again"), node))
        else:
            put(parent, where, yaml.SequenceNode("tag:yaml.org,2002:seq", [node]))
    return tree, op, path


def text_of(tree: yaml.Node, d: st.DataObject) -> str:
    text = yaml.serialize(tree, Dumper=DUMPER, width=10**9, allow_unicode=d.draw(st.booleans()))
    if DEEP in text:
        n = d.draw(st.sampled_from([70, 1_500, 5_000]))
        text = text.replace(DEEP, "[" * n + "]" * n, 1)
    return text


# --- what a clean problem is --------------------------------------------------------------------


def task_spans(text: str) -> list[tuple[int, tuple[int, int], str]]:
    """(first line, end, id) of each task in a file that composes: 1-based; the end is the (line,
    column) just after the task, where the next thing in the file begins."""
    try:
        root = yaml.compose(text, Loader=AliasAtUseLoader if "*" in text else DUMPER_LOADER)
    except (yaml.YAMLError, RecursionError):
        return []
    tasks = next((v for k, v in getattr(root, "value", []) if getattr(k, "value", None) == "tasks"), None)
    if not isinstance(tasks, yaml.SequenceNode):
        return []
    out = []
    for item in tasks.value:
        if not isinstance(item, yaml.MappingNode):
            continue
        ident = next((v.value for k, v in getattr(item, "value", []) if getattr(k, "value", None) == "id"
                      and isinstance(v, yaml.ScalarNode)), "")
        out.append((item.start_mark.line + 1, (item.end_mark.line + 1, item.end_mark.column + 1), ident))
    return out


def check(text: str, file: str) -> list[str]:
    """Load `text` as `file`; assert every problem is clean; return the problems."""
    try:
        s = load_text(text, file)
    except ScenarioError as err:
        assert err.problems and len(err.problems) <= MAX_PROBLEMS + 1
        spans = task_spans(text)
        for line in err.problems:
            assert line.startswith(f"{file}:") or line.startswith(f"{file} "), line[:300]
            assert "\n" not in line and len(line) <= MAX_LINE, line[:300]
            assert not any(leak in line for leak in LEAKS), line[:300]
            assert re.match(rf"^{re.escape(file)}(:\d+:\d+)?: (task '[^']*': )?\S", line), line[:300]
        for p in err.details:
            inside = [ident for first, end, ident in spans  # below a task's first line, before its end
                      if p.line is not None and first < p.line and (p.line, p.column or 1) < end]
            if inside:  # a problem inside a task names the task and the field
                assert p.task is not None, str(p)[:300]
                assert p.path, str(p)[:300]
        return err.problems
    assert isinstance(s, Scenario)
    return []


# --- the tests ------------------------------------------------------------------------------------


@settings(max_examples=320, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_mutants_of_the_builtin_files_give_clean_problems(d: st.DataObject) -> None:
    name = d.draw(st.sampled_from(sorted(TREES)))
    tree = TREES[name]
    for _ in range(d.draw(st.integers(1, 2))):
        tree, _op, _path = mutate(tree, d)
    check(text_of(tree, d), name)


def test_every_builtin_file_is_valid_as_written_back() -> None:
    for name, tree in TREES.items():
        assert check(yaml.serialize(tree, Dumper=yaml.SafeDumper, width=10**9), name) == []


def test_the_three_reported_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """5,000 levels deep, a 300-character task id, a 1 MB value: `validate` and `run` say so in one line."""
    monkeypatch.setenv("GUILENS_CONFIG_FILE", str(tmp_path / "none.toml"))
    demo = FILES["demo.yaml"]
    first_id = re.search(r"\n  - id: (\S+)", demo)[1]  # type: ignore[index]
    cases = {
        "deep.yaml": (demo.replace("\ntasks:", "\nextra: " + "[" * 5000 + "]" * 5000 + "\ntasks:", 1),
                      r": extra(\[0\])*( \.\.\. \S+ \(\d+ levels\))?: nested more than 64 levels deep"),
        "longid.yaml": (demo.replace(f"- id: {first_id}", "- id: " + "t" * 300, 1),
                        r"task 't{39}… \(300 characters\)': id: 't{50}'… is 300 characters long; at most 64 here"),
        "big.yaml": (demo.replace(f"- id: {first_id}", f"- id: {first_id}\n    mirror_of: " + "x" * 1_000_000, 1),
                     r"\(1,000,000 characters\) in this scenario"),
    }
    runner = CliRunner()
    for fname, (text, expected) in cases.items():
        path = tmp_path / fname
        path.write_text(text, encoding="utf-8")
        for args in (["scenarios", "validate", str(path)],
                     ["run", str(path), "--headless", "--out", str(tmp_path / "runs")]):
            result = runner.invoke(app, args)
            assert result.exception is None or isinstance(result.exception, SystemExit), (args, result.exception)
            out = result.output
            assert result.exit_code in (1, 2) and "Traceback" not in out, (args, out[-500:])
            lines = [ln for ln in out.splitlines() if ln.strip()]
            assert len(lines) == 1 and lines[0].startswith(f"error: {path}:"), (args, out[:500])
            assert re.search(expected, lines[0]) and len(lines[0]) < MAX_LINE, (args, lines[0][:500])
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").rglob("episode.json"))


@pytest.mark.parametrize(("text", "expected"), [
    ("id: x\ntitle: t\ntasks: &t [*t]\n", "task '#1': alias *t refers to a value that contains it"),
    ("id: x\ntitle: t\ntasks:\n  - id: a\n    apps: *nope\n", "task 'a': apps: alias *nope names no anchor"),
    ("id: x\ntitle: t\ntasks:\n  - id: a\n    apps: [shop]\n    apps: [notes]\n",
     "task 'a': apps: YAML syntax: duplicate key 'apps' (first at line 5)"),
    ("id: x\ntitle: t\ntasks:\n  - id: a\n    apps: !!python/object:os.system {}\n",
     "task 'a': apps: YAML syntax: could not determine a constructor"),
    ("id: x\ntitle: t\x07\ntasks: []\n", "f.yaml:2:9: YAML syntax: character #x0007 is not allowed"),
    ("id: x\ntitle: t\ntasks:\n  - {id: Shoes, apps: [notes], instruction: {L0: a}, difficulty: 1, golden_steps: 1}\n"
     "  - {id: shoes, apps: [notes], instruction: {L0: b}, difficulty: 1, golden_steps: 1}\n",
     "task 'shoes': id: task id 'shoes' differs from 'Shoes' only in case"),
])
def test_hostile_yaml_is_named_where_it_is(text: str, expected: str) -> None:
    problems = check(text, "f.yaml")
    assert any(expected in p for p in problems), problems


def test_a_bomb_is_refused_before_it_expands() -> None:
    tree = yaml.compose(FILES["demo.yaml"], Loader=yaml.SafeLoader)
    tree.value.append((scalar("lols"), bomb(12)))  # 10**13 values once expanded
    text = yaml.serialize(tree, Dumper=yaml.SafeDumper)
    (problem,) = check(text, "demo.yaml")
    assert "aliases expand it to more than 200,000 values" in problem and problem.startswith("demo.yaml:")


def test_a_file_broken_everywhere_lists_the_first_problems_and_counts_the_rest() -> None:
    text = "id: x\ntitle: t\ntasks:\n" + "".join(f"  - {{id: t{i}, apps: 5}}\n" for i in range(2000))
    problems = check(text, "f.yaml")
    assert len(problems) == MAX_PROBLEMS + 1 and problems[-1] == (
        f"f.yaml: ... and {8000 - MAX_PROBLEMS:,} more problems (the first {MAX_PROBLEMS} are listed)")
