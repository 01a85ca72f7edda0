"""Mutated scenario files give clean problems, never a traceback."""

from __future__ import annotations

import copy
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scenarios_helpers import SEQUENCE_YAML, TASKS_YAML, data, dump

from guilens.scenarios.errors import Problem, ScenarioError
from guilens.scenarios.loader import builtin_files, load_text
from guilens.scenarios.model import Scenario

SEEDS = [data(TASKS_YAML), data(SEQUENCE_YAML)]
for _f in builtin_files()[:4]:
    SEEDS.append(data(_f.read_text()))

CLEAN = re.compile(r"^f\.yaml(:\d+:\d+)?: (task '[^']*': )?\S.*")
LEAKS = ("Traceback", "input_value=", "pydantic", "For further information", "function-after", "constrained-str")
REPLACEMENTS: list[Any] = [None, 0, -1, 3.5, True, "", "x", "{nope}", [], {}, [1, "a"], {"a": 1}, "L9", 10**9]


def paths(obj: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix] if prefix else []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += paths(v, (*prefix, i))
    return out


def parent_of(root: Any, path: tuple) -> Any:
    cur = root
    for p in path[:-1]:
        cur = cur[p]
    return cur


def mutate(doc: Any, op: str, path: tuple, new: Any, suffix: str) -> Any:
    d = copy.deepcopy(doc)
    parent, last = parent_of(d, path), path[-1]
    if op == "drop":
        del parent[last]
    elif op == "rename" and isinstance(parent, dict):
        parent[f"{last}{suffix}"] = parent.pop(last)
    elif op == "duplicate" and isinstance(parent, list):
        parent.append(copy.deepcopy(parent[last]))
    else:
        parent[last] = new
    return d


def assert_clean(text: str) -> None:
    try:
        s = load_text(text, "f.yaml")
    except ScenarioError as err:
        assert err.problems, "a ScenarioError lists at least one problem"
        for p in err.problems:
            assert CLEAN.match(p), p
            assert not any(leak in p for leak in LEAKS), p
            assert "\n" not in p, p
    else:
        assert isinstance(s, Scenario)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_structural_mutations_give_clean_problems(draw: st.DataObject) -> None:
    doc = draw.draw(st.sampled_from(SEEDS))
    for _ in range(draw.draw(st.integers(1, 3))):
        all_paths = paths(doc)
        path = draw.draw(st.sampled_from(all_paths))
        op = draw.draw(st.sampled_from(["drop", "rename", "retype", "duplicate"]))
        new = draw.draw(st.sampled_from(REPLACEMENTS) | st.text(max_size=8))
        suffix = draw.draw(st.sampled_from(["x", "_", "s", "2"]))
        doc = mutate(doc, op, path, new, suffix)
    assert_clean(dump(doc))


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_text_mutations_give_clean_problems(draw: st.DataObject) -> None:
    text = draw.draw(st.sampled_from([TASKS_YAML, SEQUENCE_YAML]))
    i = draw.draw(st.integers(0, len(text) - 1))
    j = draw.draw(st.integers(i, min(len(text), i + 12)))
    junk = draw.draw(st.sampled_from(["", ":", "- ", "  ", "\t", "[", "{", "'", '"', "&a", "*b", "!!python/object", "\n  x"]))
    assert_clean(text[:i] + junk + text[j:])


def test_every_seed_is_valid() -> None:
    for doc in SEEDS:
        assert isinstance(load_text(dump(doc), "f.yaml"), Scenario)


def test_a_long_place_leaves_the_message_less_room_not_a_longer_line() -> None:
    """The hard pack's mutant: a path twelve levels deep and a 1,258-character message gave 702 characters."""
    path = tuple(x for i in range(6) for x in (f"branch-{i}-" + "k" * 30, i))
    line = str(Problem(file="hard.yaml", message="op 'approx' needs a number value, not " + "{'id': 'x'} " * 100,
                       path=path, task="shoe-shortlist-share", line=151, column=12))
    assert len(line) <= 700 and line.endswith("characters)") and "(the message is 1,238 characters)" in line
    assert line.startswith("hard.yaml:151:12: task 'shoe-shortlist-share': branch-0-")
