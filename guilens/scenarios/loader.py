"""Loading and validating scenario files.

`load_scenario` reads a YAML (or JSON) file and returns a `Scenario`, or raises
one `ScenarioError` listing every problem found: YAML syntax (line and column),
the schema (unknown keys with the allowed ones, wrong types, bad values), and
what a schema cannot see: duplicate ids, dangling references (`mirror_of`,
`depends_on`, milestone dependencies, slots, preferences), golden steps that
disagree with the reference, apps the simulated phone does not have and sim
setups that do not fit an app's state. Never a traceback: a file too big, too
deeply nested or with aliases that explode is refused by a flat scan of its
YAML events (`yamlscan`) before anything recursive reads it, and values echoed
in messages are cut to a readable length.

Each file is parsed and validated once per process: `load_scenario` keeps what it built, keyed by
the file's resolved path and its text (so an edit, even one that keeps the size and the mtime, is
read again), and every way in (`load_builtin`, `find_task`, a path, `validate_paths`) goes through
it. The text is read each time: 0.1 ms against 30 ms to parse and validate the built-in packs, and
no staleness to reason about. libyaml does the parsing wherever PyYAML was built with it
(`yamlscan.FAST_LOADER`). Across processes, the built-in packs' checked parse is kept in the cache
dir (`packcache`), so listing them needs neither the YAML nor the simulated phone.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from guilens.scenarios import packcache
from guilens.scenarios.errors import (
    Problem,
    ScenarioError,
    clip,
    make_problem,
    path_at,
    problems_from_validation,
)
from guilens.scenarios.files import BUILTIN_DIR, SUFFIXES, builtin_files, scenario_files
from guilens.scenarios.model import Scenario, Task
from guilens.scenarios.semantics import semantic_problems
from guilens.scenarios.yamlbuild import NOT_BUILT
from guilens.scenarios.yamlscan import MAX_BYTES, scan, yaml_error_text

_PLAIN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


class _UniqueKeyLoader(yaml.SafeLoader):
    """A safe loader that refuses duplicate keys (PyYAML silently keeps the last one), and turns a
    scalar its tag cannot build (`!!int x`, `!!timestamp soon`: a bare `ValueError`, `KeyError` or
    `TypeError` from PyYAML) into a YAML error at that value."""

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, KeyError, TypeError, AttributeError, IndexError) as err:
            if isinstance(err, yaml.YAMLError):
                raise
            # PyYAML composes only three kinds of node; the stubs give `id` to each kind, not to Node.
            kind = "mapping" if isinstance(node, yaml.MappingNode) else "sequence"
            what = f"{node.value!r}" if isinstance(node, yaml.ScalarNode) else f"this {kind}"
            raise yaml.constructor.ConstructorError(
                None, None, f"{clip(what)} is not a valid {node.tag.rsplit(':', 1)[-1]}", node.start_mark
            ) from None


def _construct_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
    loader.flatten_mapping(node)
    seen: dict[Any, yaml.Node] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        try:
            hash(key)
        except TypeError:
            raise yaml.constructor.ConstructorError(
                None, None, "a mapping key must be a plain value", key_node.start_mark
            ) from None
        if key in seen:
            first = seen[key].start_mark
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r} (first at line {first.line + 1})", key_node.start_mark
            )
        seen[key] = key_node
    return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _construct(nodes: yaml.Node) -> Any:
    """The values of a composed document, refusing duplicate keys."""
    return _UniqueKeyLoader("").construct_document(nodes)


Nodes = Callable[[], yaml.Node | None]
"""A file's node tree, composed when it is first asked for: only a problem needs its lines."""


def parse_text(text: str, file: str) -> tuple[Any, Nodes]:
    """Parse YAML text into data, and a way to its node tree (for positions); problems become a ScenarioError.

    The scan (`yamlscan`) runs first: a file too big, too deep or with exploding aliases is
    refused before anything recursive touches it, and a syntax error is named with its task.
    The scan builds the values too (`yamlbuild`); only a file it cannot build (aliases, tags,
    a duplicate key) is composed and constructed here, which says what is wrong with it.
    """
    problems, loader, data = scan(text, file)
    if problems:
        raise ScenarioError(problems)
    if data is not NOT_BUILT:
        return data, functools.cache(lambda: _compose(text, loader))
    nodes: yaml.Node | None = None
    try:
        nodes = yaml.compose(text, Loader=loader)
        data = _construct(nodes) if nodes is not None else None
    except yaml.YAMLError as err:  # a duplicate key, a tag no safe loader builds, a second document
        mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
        if mark is None:
            raise ScenarioError([Problem(file=file, message=yaml_error_text(err))]) from None
        path = path_at(nodes, mark.line, mark.column)
        raise ScenarioError([make_problem(file, None, nodes, path, yaml_error_text(err),
                                          mark=(mark.line + 1, mark.column + 1))]) from None
    except (RecursionError, MemoryError) as err:  # the scan's limits should make this unreachable
        raise ScenarioError([Problem(file=file, message=f"too large or too deeply nested to read "
                                                        f"({type(err).__name__})")]) from None
    return data, lambda: nodes


def _compose(text: str, loader: Any) -> yaml.Node | None:
    """The node tree of a file the scan has built already (so it composes): for a problem's line."""
    try:
        return yaml.compose(text, Loader=loader)
    except (yaml.YAMLError, RecursionError, MemoryError):  # not expected after the scan; then no lines
        return None


def scenario_from_data(data: Any, file: str = "<scenario>", nodes: yaml.Node | Nodes | None = None) -> Scenario:
    """Validate already-parsed data as a scenario; every problem goes into one ScenarioError.

    `nodes` (the tree, or a way to it) gives the problems their lines; it is asked for only when there are any."""
    if not isinstance(data, dict):
        got = "an empty file" if data is None else f"a {type(data).__name__}"
        raise ScenarioError([Problem(file=file, message=f"a scenario file is a mapping (id, title, tasks, ...), not {got}")])
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as err:
        raise ScenarioError(problems_from_validation(err, Scenario, data, file, _tree(nodes))) from None
    found = semantic_problems(scenario)
    if found:
        tree = _tree(nodes)
        raise ScenarioError([make_problem(file, data, tree, path, msg, key_pos=key) for path, msg, key in found])
    return scenario


def _tree(nodes: yaml.Node | Nodes | None) -> yaml.Node | None:
    return nodes() if callable(nodes) else nodes


def load_text(text: str, file: str = "<scenario>") -> Scenario:
    data, nodes = parse_text(text, file)
    return scenario_from_data(data, file, nodes)


def _read(p: Path) -> str:
    """A scenario file's text; what stops it being read is a ScenarioError naming the file."""
    try:
        size = p.stat().st_size if p.is_file() else 0
        if size > MAX_BYTES:  # refused before it is read into memory
            raise ScenarioError([Problem(file=str(p), message=f"is {size / 1e6:.1f} MB; a scenario file is at most "
                                                            f"{MAX_BYTES // (1024 * 1024)} MB")])
        return p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError([Problem(file=str(p), message="no such file")]) from None
    except IsADirectoryError:
        raise ScenarioError([Problem(file=str(p), message="is a directory, not a scenario file")]) from None
    except (OSError, UnicodeDecodeError) as err:
        raise ScenarioError([Problem(file=str(p), message=f"cannot read: {err}")]) from None


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate one scenario file (once per process for the same text)."""
    p = Path(path)
    text = _read(p)
    key = (str(p.resolve()), text)
    hit = _recall(_loaded, key)
    if hit is not None:
        return hit
    data, nodes = parse_text(text, str(p))
    scenario = scenario_from_data(data, str(p), nodes)  # a file with problems raises here, and is never kept
    _keep(_loaded, key, scenario)
    if p.parent.resolve() == BUILTIN_DIR.resolve():
        packcache.store(p, text, data)
    return scenario


_LOADED_MAX = 64
"""Scenario files kept per process (the built-in packs are seven); the oldest goes first."""
_loaded: dict[tuple[str, str], Scenario] = {}
"""Files validated in this process, by resolved path and text."""
_recalled: dict[tuple[str, str], Scenario] = {}
"""Built-in packs taken from the cache across processes (`packcache`), by resolved path and text."""
_lock = threading.Lock()  # the runner loads from one thread per device


def _recall(memo: dict[tuple[str, str], Scenario], key: tuple[str, str]) -> Scenario | None:
    with _lock:
        return memo.get(key)


def _keep(memo: dict[tuple[str, str], Scenario], key: tuple[str, str], scenario: Scenario) -> None:
    with _lock:
        if len(memo) >= _LOADED_MAX:
            memo.pop(next(iter(memo)))
        memo[key] = scenario


def _load_builtin_file(p: Path) -> Scenario:
    """A built-in pack: from this process, else from the cache across processes, else read and validated.

    Only the packs shipped with guilens go through the cache across processes: they are what
    `scenarios list`, `show` and the home screen read on every start, and there are seven, so
    the cache stays seven small files. `validate` never takes a pack from it (`validate_paths`).
    """
    text = _read(p)
    key = (str(p.resolve()), text)
    hit = _recall(_loaded, key) or _recall(_recalled, key)
    if hit is not None:
        return hit
    data = packcache.recall(p, text)
    if data is not None:
        try:
            scenario = Scenario.model_validate(data)
        except ValidationError:  # the model changed under the entry: read the file
            pass
        else:
            _keep(_recalled, key, scenario)
            return scenario
    return load_scenario(p)


def validate_paths(paths: Iterable[str | Path]) -> tuple[list[Scenario], list[str]]:
    """Load every file; return the good scenarios and every problem of the bad ones (and duplicate ids)."""
    return _load_all(scenario_files(paths), load_scenario)


def _load_all(files: list[Path], load: Callable[[Path], Scenario]) -> tuple[list[Scenario], list[str]]:
    good: list[Scenario] = []
    problems: list[str] = []
    where: dict[str, Path] = {}
    for f in files:
        try:
            s = load(f)
        except ScenarioError as err:
            problems += err.problems
            continue
        if s.id in where:
            problems.append(f"{f}: scenario id {s.id!r} is already used by {where[s.id]}")
            continue
        where[s.id] = f
        good.append(s)
    return good, problems


def load_builtin() -> list[Scenario]:
    """The scenarios shipped with guilens (`guilens/scenarios/builtin/`)."""
    good, problems = _load_all(builtin_files(), _load_builtin_file)
    if problems:
        raise ScenarioError(problems)
    return good


def find_scenario(spec: str) -> Scenario:
    """A scenario by built-in id or by file path."""
    p = Path(spec)
    if p.suffix in SUFFIXES or p.is_file():
        return load_scenario(p)
    named = BUILTIN_DIR / f"{spec}.yaml"
    if _PLAIN_ID.fullmatch(spec) and named.is_file():
        # A built-in pack lives in the file named by its id: `guilens run demo` reads demo.yaml, not
        # the 74 kB memory pack too. Only a file that says so is taken; anything else looks at all.
        s = _load_builtin_file(named)
        if s.id == spec:
            return s
    for s in load_builtin():
        if s.id == spec:
            return s
    ids = ", ".join(s.id for s in load_builtin())
    raise ScenarioError([f"{spec}: no built-in scenario or file by that name (built-in: {ids})"])


def find_task(spec: str) -> tuple[Scenario, Task | None]:
    """`scenario:task`, `scenario`, `path.yaml` or `path.yaml:task` -> the scenario and the task (if named)."""
    head, sep, tail = spec.rpartition(":")
    if sep and head and not Path(spec).exists() and "/" not in tail and "\\" not in tail:
        scenario = find_scenario(head)
        try:
            return scenario, scenario.task(tail)
        except KeyError as err:
            found = _variant(scenario, tail)
            if found is not None:
                return found
            raise ScenarioError([str(err.args[0])]) from None
    return find_scenario(spec), None


def _variant(scenario: Scenario, tid: str) -> tuple[Scenario, Task] | None:
    """A template's variant named by its id (`two-prices-note~s7.3`, `guilens.scenarios.params`): the
    scenario with that variant (and its mirror's, for verify) in place of the templates, and the variant."""
    from guilens.scenarios.params import ParamError, one_variant

    try:
        task = one_variant(scenario, tid)
    except ParamError as err:
        raise ScenarioError([str(err)]) from None
    if task is None:
        return None
    keep = [task]
    if task.mirror_of and task.mirror_of != tid:  # a mirror variant too, so verify can play it against this one
        mirror = one_variant(scenario, task.mirror_of)
        keep += [mirror] if mirror is not None else []
    fixed = [t for t in scenario.tasks if not t.params]
    return scenario.model_copy(update={"tasks": [*keep, *fixed]}), task
