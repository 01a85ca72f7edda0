"""Start-up stays cheap (issue 14): what `guilens --help` imports, and how often a scenario file is parsed.

Not timed: `benchmarks/bench_startup.py` measures the times, side by side. These check the causes, in fresh
processes, since this test process may have imported or loaded anything already.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from guilens.scenarios import loader
from guilens.scenarios.errors import ScenarioError

HEAVY = ("pydantic", "textual", "PIL", "anthropic", "openai", "numpy", "yaml", "adbutils", "ray", "guilens.scenarios",
         "guilens.device", "guilens.run")
"""What `--help` must not import: each costs tens of ms, and none is needed to print the help."""


def fresh(code: str, tmp_path: Path) -> str:
    """Run `code` in a new interpreter (config and cache of its own); its stdout."""
    env = {**os.environ, "GUILENS_CONFIG_FILE": str(tmp_path / "none.toml"),
           "GUILENS_CACHE_DIR": str(tmp_path / "cache"), "NO_COLOR": "1"}
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


# Only the top level: a command's `--help` may import what its options' defaults and choices name.
@pytest.mark.parametrize("args", [["--help"], ["-V"]])
def test_help_imports_no_heavy_module(args: list[str], tmp_path: Path) -> None:
    out = fresh(f"""
        import contextlib, io, json, sys
        sys.argv = ["guilens", *{args!r}]
        from guilens.cli import main
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            try:
                main()
            except SystemExit as e:
                code = e.code
        heavy = sorted(m for m in sys.modules if any(m == h or m.startswith(h + ".") for h in {HEAVY!r}))
        print(json.dumps({{"code": code, "out": buf.getvalue(), "heavy": heavy}}))
    """, tmp_path)
    got = json.loads(out)
    assert got["code"] in (0, None)
    assert "Usage" in got["out"] or got["out"].startswith("guilens ")  # it did print the help (or version)
    assert got["heavy"] == []


COUNT = """
    import collections, json, sys
    from guilens.scenarios import loader
    parses = collections.Counter()
    parse_text = loader.parse_text

    def counting(text, file):
        parses[loader.Path(file).name] += 1
        return parse_text(text, file)

    loader.parse_text = counting
"""


def test_builtin_files_are_parsed_once_per_process(tmp_path: Path) -> None:
    """Every way in (the list, a task by name, a pack by id, the file by path, `validate`, the CLI) shares
    one load of each file."""
    out = fresh(COUNT + """
    from typer.testing import CliRunner
    from guilens.cli import app
    loader.load_builtin()
    loader.load_builtin()
    loader.find_task("memory:portfolio-value")
    loader.find_task("demo")
    loader.find_scenario(str(loader.BUILTIN_DIR / "memory.yaml"))
    loader.validate_paths([loader.BUILTIN_DIR])
    for args in (["scenarios", "list"], ["scenarios", "list", "--json"], ["scenarios", "show", "memory:portfolio-value"],
                 ["scenarios", "validate"]):
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, (args, result.output)
    print(json.dumps(parses))
    """, tmp_path)
    files = sorted(p.name for p in loader.builtin_files())
    assert json.loads(out) == dict.fromkeys(files, 1)


def test_a_pack_by_id_reads_its_own_file_only(tmp_path: Path) -> None:
    """`guilens run demo` need not parse and validate the 74 kB memory pack to find the demo."""
    out = fresh(COUNT + """
    scenario, task = loader.find_task("demo")
    assert scenario.id == "demo" and task is None
    print(json.dumps(parses))
    """, tmp_path)
    assert json.loads(out) == {"demo.yaml": 1}


def test_the_next_process_lists_the_packs_from_the_cache(tmp_path: Path) -> None:
    """Once checked, a pack is rebuilt from its kept parse: no YAML, no sim imported, the same scenario;
    `validate` still reads and checks every file."""
    dump = """
    from guilens.scenarios.model import Scenario
    dumps = {s.id: s.model_dump(mode="json") for s in loader.load_builtin()}
    sim = "guilens.device.sim" in sys.modules
    """
    first = json.loads(fresh(COUNT + dump + "print(json.dumps([parses, dumps, sim]))", tmp_path))
    second = json.loads(fresh(COUNT + dump + """
    loader.find_task("memory:portfolio-value")
    listed = dict(parses)
    loader.validate_paths([loader.BUILTIN_DIR])
    print(json.dumps([listed, dumps, sim, parses]))
    """, tmp_path))
    files = sorted(p.name for p in loader.builtin_files())
    assert first[0] == dict.fromkeys(files, 1) and first[2] is True
    assert second[0] == {} and second[2] is False  # nothing parsed, the sim never imported
    assert second[1] == first[1]
    assert second[3] == dict.fromkeys(files, 1)  # validate: every file read and checked


LIST = """
    import contextlib, io, json, sys
    sys.argv = ["guilens", "scenarios", "list", *{extra!r}]
    from guilens.cli import main
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        try:
            main()
        except SystemExit as e:
            assert e.code in (0, None), e.code
    print(json.dumps({{"out": buf.getvalue(), "model": "guilens.scenarios.model" in sys.modules,
                      "yaml": "yaml" in sys.modules, "pydantic": "pydantic" in sys.modules}}))
"""


@pytest.mark.parametrize("extra", [[], ["--json"]])
def test_the_next_process_lists_the_packs_without_the_model(extra: list[str], tmp_path: Path) -> None:
    """`scenarios list` keeps each pack's listing beside its parse: the next process prints the same
    lines from it without importing the scenario model, PyYAML or pydantic; an edited pack is listed afresh."""
    first = json.loads(fresh(LIST.format(extra=extra), tmp_path))
    second = json.loads(fresh(LIST.format(extra=extra), tmp_path))
    assert first["model"] is True and second["model"] is False and second["yaml"] is False
    assert second["pydantic"] is False  # not for the settings (`settings_file`), nor Typer's parsing (pyproject)
    assert second["out"] == first["out"] and "memory" in second["out"]
    if extra:
        listed = json.loads(second["out"])
        by_id = {s.id: s for s in loader.load_builtin()}
        assert [p["id"] for p in listed] == list(by_id)
        assert all(p["tasks"] == [t.id for t in by_id[p["id"]].tasks] for p in listed)
    from guilens.scenarios import listing, packcache

    demo = loader.BUILTIN_DIR / "demo.yaml"  # a listing kept for another text of the pack is not used
    cache = {"GUILENS_CONFIG_FILE": str(tmp_path / "none.toml"), "GUILENS_CACHE_DIR": str(tmp_path / "cache")}
    with pytest.MonkeyPatch.context() as mp:
        for k, v in cache.items():
            mp.setenv(k, v)
        kept = packcache.recall(demo, demo.read_text(encoding="utf-8"), listing.PART)
        assert isinstance(kept, dict) and kept["id"] == "demo"
        packcache.store(demo, demo.read_text(encoding="utf-8") + "# edited\n", {**kept, "title": "stale"},
                        listing.PART)
    third = json.loads(fresh(LIST.format(extra=extra), tmp_path))
    assert third["model"] is True and third["out"] == first["out"] and "stale" not in third["out"]


def test_a_stale_corrupt_or_foreign_entry_is_a_miss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pickle

    from guilens.scenarios import packcache

    monkeypatch.setenv("GUILENS_CONFIG_FILE", str(tmp_path / "none.toml"))
    monkeypatch.setenv("GUILENS_CACHE_DIR", str(tmp_path / "cache"))
    pack = tmp_path / "pack.yaml"
    packcache.store(pack, "id: a\n", {"id": "a"})
    assert packcache.recall(pack, "id: a\n") == {"id": "a"}
    assert packcache.recall(pack, "id: b\n") is None  # another text
    assert packcache.recall(tmp_path / "other" / "pack.yaml", "id: a\n") is None  # another file
    entry = tmp_path / "cache" / "scenarios" / "pack.pickle"
    entry.write_bytes(entry.read_bytes()[:20])
    assert packcache.recall(pack, "id: a\n") is None  # truncated
    entry.write_bytes(pickle.dumps((packcache._key(pack, "id: a\n"), os.getcwd)))  # names a function
    assert packcache.recall(pack, "id: a\n") is None
    monkeypatch.setenv("GUILENS_CACHE_DIR", str(pack))  # a file where the folder would go
    pack.write_text("x", encoding="utf-8")
    packcache.store(pack, "id: a\n", {"id": "a"})  # skipped, no error
    assert packcache.recall(pack, "id: a\n") is None


SCENARIO = """\
id: {ident}
title: A scenario
device: sim
tasks:
  - id: home
    apps: [settings]
    instruction: {{L0: "Go to the home screen."}}
    difficulty: 1
    golden_steps: 1
    milestones:
      - {{id: home, text: "The home screen is shown"}}
    reference: [home]
"""


def test_an_edited_file_is_read_again_even_with_its_size_and_mtime(tmp_path: Path) -> None:
    f = tmp_path / "s.yaml"
    f.write_text(SCENARIO.format(ident="first"), encoding="utf-8")
    stat = f.stat()
    assert loader.load_scenario(f).id == "first"
    f.write_text(SCENARIO.format(ident="other"), encoding="utf-8")  # the same size
    os.utime(f, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # and the same mtime
    assert f.stat().st_size == stat.st_size
    assert loader.load_scenario(f).id == "other"
    assert loader.load_scenario(f) is loader.load_scenario(f)  # unchanged: the same load


def test_a_file_with_problems_is_never_kept(tmp_path: Path) -> None:
    f = tmp_path / "bad.yaml"
    f.write_text(SCENARIO.format(ident="bad").replace("[settings]", "[no-such-app]"), encoding="utf-8")
    for _ in range(2):
        with pytest.raises(ScenarioError, match="no-such-app"):
            loader.load_scenario(f)
    f.write_text(SCENARIO.format(ident="good"), encoding="utf-8")
    assert loader.load_scenario(f).id == "good"


@pytest.mark.skipif(not hasattr(yaml, "CSafeLoader"), reason="PyYAML built without libyaml")
def test_builtin_files_are_parsed_by_libyaml() -> None:
    from guilens.scenarios.yamlscan import FAST_LOADER, scan

    assert FAST_LOADER is yaml.CSafeLoader
    for f in loader.builtin_files():
        read = scan(f.read_text(encoding="utf-8"), str(f))
        assert read.problems == [] and read.loader is yaml.CSafeLoader, f


def test_main_says_each_kind_of_error_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """The error types `main` catches are found among the imported modules: still caught, still
    with their exit status, without importing anything at start."""
    from guilens import cli
    from guilens.actions import ActionError
    from guilens.config import ConfigError
    from guilens.storage import StorageError

    assert cli._exit_code(cli.UserError("x")) == 2
    assert cli._exit_code(ConfigError("x")) == 2
    assert cli._exit_code(ActionError("x")) == 2
    assert cli._exit_code(StorageError("/r/x", "disk full")) == 1
    assert cli._exit_code(PermissionError(13, "Permission denied", "/r/y")) == 1
    assert cli._exit_code(RuntimeError("a bug")) is None
    assert cli._message(PermissionError(13, "Permission denied", "/r/y")).startswith("/r/y: ")
    monkeypatch.delitem(sys.modules, "guilens.settings_file")  # never imported: nothing of it can be raised
    assert cli._exit_code(ConfigError("x")) is None


def test_checking_a_pack_imports_neither_the_sim_device_nor_urllib(tmp_path: Path) -> None:
    """The checks need the sim's apps and state models: not `SimDevice` (the package imports each of its names
    when first asked for), nor `urllib`/`ssl` (which `xml.sax.saxutils` brings; the UI tree imports it late)."""
    out = fresh("""
        import json, sys
        from guilens.scenarios.files import builtin_files
        from guilens.scenarios import loader
        loader.load_scenario(builtin_files()[0])  # a fresh cache dir: parsed and checked against the sim
        import guilens.device.sim as sim
        held = [m for m in ("guilens.device.sim.device", "guilens.device.sim.anomalies", "urllib.request", "ssl")
                if m in sys.modules]
        got = sim.SimDevice.__module__, "guilens.device.sim.device" in sys.modules
        print(json.dumps({"held": held, "got": got, "all": sorted(sim.__all__) == sorted(sim._WHERE)}))
    """, tmp_path)
    got = json.loads(out)
    assert got == {"held": [], "got": ["guilens.device.sim.device", True], "all": True}


def test_a_tree_with_a_value_to_escape_still_dumps_it_escaped() -> None:
    from guilens.device.uitree import UINode, parse_ui_xml, to_ui_xml

    xml = to_ui_xml(UINode(children=[UINode(text='a "quoted" <b> & c', bounds=(0, 0, 10, 10))]))
    assert "&lt;b&gt; &amp; c" in xml
    assert parse_ui_xml(xml).children[0].text == 'a "quoted" <b> & c'
