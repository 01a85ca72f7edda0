"""`guilens scenarios list|show|validate|verify|stats|import-memgui`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from guilens.scenarios.model import Scenario, Task

scenarios_app = typer.Typer(
    name="scenarios",
    help="List, show, validate, verify and count scenarios; import MemGUI-Bench's task table.",
    no_args_is_help=True,
)


def _fail(problems: list[str], code: int) -> None:
    for p in problems:
        typer.secho(f"error: {p}", err=True, fg="red")
    raise typer.Exit(code)


def _load(spec: str) -> tuple[Scenario, Task | None]:
    from guilens.scenarios.errors import ScenarioError
    from guilens.scenarios.loader import find_task

    try:
        return find_task(spec)
    except ScenarioError as err:
        _fail(err.problems, 2)
        raise  # unreachable: _fail exits


@scenarios_app.command("list")
def list_cmd(paths: list[Path] = typer.Argument(None, help="Scenario files or folders (default: the built-in pack)."),
             as_json: bool = typer.Option(False, "--json", help="Print a JSON list (problems still go to stderr).")
             ) -> None:
    """The scenarios: id, kind, tasks, apps, levels."""
    from guilens.scenarios.listing import builtin_listing, pack_listing

    if paths:
        from guilens.scenarios.loader import validate_paths

        found, problems = validate_paths(paths)
        for p in problems:
            typer.secho(f"error: {p}", err=True, fg="red")
        listed = [pack_listing(s) for s in found]
    else:
        listed, problems = builtin_listing()
        if problems:
            _fail(problems, 1)
    if as_json:
        import json

        typer.echo(json.dumps(listed, indent=2))
        return
    rows = [("SCENARIO", "KIND", "TASKS", "APPS", "LEVELS", "TITLE")]
    for s in listed:
        apps = ", ".join(s["apps"])
        rows.append((s["id"], s["kind"], str(len(s["tasks"])), apps if len(apps) <= 40 else apps[:37] + "...",
                     "/".join(s["levels"]) or "-", s["title"]))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    for r in rows:
        typer.echo("  ".join(c.ljust(w) for c, w in zip(r[:5], widths, strict=True)) + "  " + r[5])


def _show_scenario(s: Scenario) -> None:
    typer.secho(f"{s.id}: {s.title}", bold=True)
    if s.description:
        typer.echo(s.description)
    typer.echo(f"kind: {s.kind}   device: {s.device}   tasks: {len(s.tasks)}   apps: {', '.join(s.apps)}")
    if s.kind == "sequence":
        typer.echo(f"start: {s.start}")
    for p in s.preferences:
        typer.echo(f"preference {p.id} (stated in {p.stated_in}): {p.text}")
    typer.echo("")
    for t in s.tasks:
        extra = f"{t.clock}  " if t.clock else ""
        mirror = f"  mirror of {t.mirror_of}" if t.mirror_of else ""
        mirror += f"  template ({len(t.params)} params)" if t.params else ""
        typer.echo(f"  {extra}{t.id:<28} d{t.difficulty} {t.golden_steps:>3} steps  {t.memory:<14} "
                   f"{', '.join(t.apps)}{mirror}")


def _show_task(s: Scenario, t: Task) -> None:
    from guilens.scenarios.model import Milestone, MilestoneAlternatives, MilestoneGroup
    from guilens.scenarios.spec_checks import check_to_data
    from guilens.scenarios.spec_reference import count_steps

    typer.secho(f"{s.id}:{t.id}" + (f": {t.title}" if t.title else ""), bold=True)
    typer.echo(f"apps: {', '.join(t.apps)}   memory: {t.memory}" + (f" ({t.output})" if t.output else "")
               + f"   difficulty: {t.difficulty}   golden steps: {t.golden_steps}   budget: {t.budget}"
               + ("   no copy-paste" if t.forbid_copy else ""))
    if t.categories:
        typer.echo(f"categories: {', '.join(t.categories)}")
    if t.mirror_of:
        typer.echo(f"mirror of: {t.mirror_of}")
    if t.clock:
        day = f"   day: {s.day_of(t):%a %Y-%m-%d}" if s.kind == "sequence" else ""
        typer.echo(f"clock: {t.clock}{day}" + (f"   at: {t.location}" if t.location else ""))
    if t.depends_on:
        typer.echo(f"depends on: {', '.join(t.depends_on)}")
    if t.constrained_by:
        typer.echo(f"constrained by: {', '.join(t.constrained_by)}")
    if t.narration:
        typer.echo(f"narration: {t.narration}")
    from guilens.scenarios.params_show import param_lines

    for line in param_lines(s, t):
        typer.echo(line)
    typer.secho("\ninstruction", bold=True)
    for lv in t.levels:
        typer.echo(f"  {lv}: {t.instruction.at(lv)}")
    filled = t.instruction_at("L0", {**s.expected_values(t), **t.user.values})
    if filled != t.instruction.L0:
        typer.echo(f"  L0, filled: {filled}")
    typer.secho("\nmilestones", bold=True)
    n = 0
    for item in t.milestones:
        if isinstance(item, MilestoneAlternatives):
            typer.echo(f"  [{item.id}] {item.text}  ({item.kind}, any one path)"
                       + (f"  after: {', '.join(item.depends_on)}" if item.depends_on else ""))
            group: list[Milestone] = []
            for way in item.any_of:
                typer.echo(f"    path {way.id}" + (f": {way.text}" if way.text else "")
                           + (f"  (its own reference, {count_steps(list(way.reference))} steps)" if way.reference else ""))
                for m in way.milestones:
                    n += 1
                    at = f", step {m.golden_step}" if m.golden_step else ""
                    typer.echo(f"      {n}. [{m.id}] {m.text}  ({m.kind}{at})")
                    if m.check is not None:
                        typer.echo(f"         check: {check_to_data(m.check)}")
            continue
        grouped = isinstance(item, MilestoneGroup)
        group = list(item.unordered) if isinstance(item, MilestoneGroup) else [item]
        if grouped:
            typer.echo("  any order:")
        for m in group:
            n += 1
            pad = "    " if grouped else "  "
            at = f", step {m.golden_step}" if m.golden_step else ""
            typer.echo(f"{pad}{n}. [{m.id}] {m.text}  ({m.kind}{at})")
            if m.check is not None:
                typer.echo(f"{pad}   check: {check_to_data(m.check)}")
            if m.depends_on:
                typer.echo(f"{pad}   after: {', '.join(m.depends_on)}")
    if t.success.check is not None or t.success.milestones != "all":
        typer.echo(f"  success: milestones {t.success.milestones}"
                   + (f", and {check_to_data(t.success.check)}" if t.success.check is not None else ""))
    if t.answer is not None:
        typer.echo(f"  answer: {t.answer.model_dump(exclude_defaults=True) or 'required (judged by the LLM)'}")
    u = t.user
    if u.slots or u.profile or u.preferences or u.facts:
        typer.secho("\nuser knowledge", bold=True)
        for k, slot in u.slots.items():
            typer.echo(f"  {k}: {slot.value}")
        if u.profile:
            typer.echo(f"  profile: {u.profile}")
        for p in u.preferences:
            typer.echo(f"  prefers: {p}")
        for f in u.facts:
            typer.echo(f"  knows: {f}")
    if t.reference:
        typer.secho(f"\nreference ({t.reference_steps} steps at L0)", bold=True)
        from guilens.scenarios.spec_reference import step_runs_at, step_to_data

        n = 0
        for st in t.reference:
            counted = step_runs_at(st, "L0")
            n += counted
            typer.echo(f"  {str(n) + '.' if counted else '':>4} {_step_text(step_to_data(st))}")


def _step_text(data: object) -> str:
    """`tap: id='save'` for `{tap: {id: save}}`; bare words as they are."""
    if not isinstance(data, dict):
        return str(data)
    parts = []
    for k, v in data.items():
        if isinstance(v, dict):
            parts.append(f"{k}: " + ", ".join(f"{a}={b!r}" for a, b in v.items()))
        else:
            parts.append(f"{k}: {v}")
    return "; ".join(parts)


@scenarios_app.command("show")
def show_cmd(spec: str = typer.Argument(..., help="SCENARIO, SCENARIO:TASK, or a file (FILE:TASK)."),
             as_json: bool = typer.Option(False, "--json", help="Print the scenario (or the task) as JSON: "
                                                                  "every field, as `guilens schema scenario` describes.")
             ) -> None:
    """A scenario's tasks, or one task: instructions per level, milestones, user knowledge, reference."""
    s, t = _load(spec)
    if as_json:
        import json

        data = (s.model_dump(mode="json", by_alias=True) if t is None
                else {"scenario": s.id, "task": t.model_dump(mode="json", by_alias=True)})
        typer.echo(json.dumps(data, indent=2, ensure_ascii=False))
        return
    if t is None:
        _show_scenario(s)
    else:
        _show_task(s, t)


@scenarios_app.command("validate")
def validate_cmd(paths: list[Path] = typer.Argument(None, help="Files or folders (default: the built-in pack).")) -> None:
    """Check scenario files; exit 0 when all are valid, 1 with every problem otherwise."""
    from guilens.scenarios.loader import BUILTIN_DIR, scenario_files, validate_paths

    targets = list(paths) if paths else [BUILTIN_DIR]
    files = scenario_files(targets)
    if not files:
        _fail([f"no scenario files in {', '.join(map(str, targets))}"], 1)
    good, problems = validate_paths(targets)
    for s in good:
        typer.echo(f"ok  {s.id}: {len(s.tasks)} task(s)")
    if problems:
        _fail(problems, 1)
    typer.echo(f"{len(good)} scenario file(s) valid")


@scenarios_app.command("verify")
def verify_cmd(
    spec: str = typer.Argument(None, help="SCENARIO, SCENARIO:TASK or a file (default: every built-in sim scenario)."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Show every finding, not only failures."),
    variants: int = typer.Option(None, "--variants", metavar="N",
                                 help="Task templates: verify N variants of each, drawn by --seed (default 1)."),
    seed: int = typer.Option(None, "--seed", help="The seed task templates are drawn with (default 0)."),
    level: str = typer.Option(None, "--level", "-l",
                              help="Play the reference at this level only (L0 is always played); default: every "
                                   "level a task declares."),
) -> None:
    """Play each task's reference on a fresh sim and prove its checks right (exit 1 on any failure)."""
    from guilens.scenarios.loader import load_builtin
    from guilens.scenarios.verify import verify_scenario

    if level is not None and level not in ("L0", "L1", "L2"):
        _fail([f"--level {level!r}: choose L0, L1 or L2"], 2)
    if spec:
        s, t = _load(spec)
        if s.device != "sim":
            _fail([f"{s.id}: a scenario for real devices has no rule checks to verify (its tasks are judged by the LLM)"], 2)
        jobs = [_drawn(s, t.id if t else None, variants, seed)]
    else:
        jobs = [_drawn(s, None, variants, seed) for s in load_builtin() if s.device == "sim"]
    bad = 0
    total = 0
    for s, ids in jobs:
        wanted: list[str | None] = list(ids) if ids else [None]
        for v in (x for only in wanted for x in verify_scenario(s, only, level)):
            total += 1
            mark = "ok  " if v.ok else "FAIL"
            typer.secho(f"{mark} {v.scenario}:{v.task}", fg=None if v.ok else "red")
            for f in v.findings:
                if verbose or not f.ok:
                    typer.echo(f"     {'ok' if f.ok else 'no'}  {f.name}: {f.detail}")
            bad += not v.ok
    typer.echo(f"{total - bad}/{total} task(s) verified")
    if bad:
        raise typer.Exit(1)


def _drawn(s: Scenario, only: str | None, variants: int | None, seed: int | None) -> tuple[Scenario, list[str] | None]:
    """A scenario with its task templates drawn (`--variants`, `--seed`), and the task ids `only` stands for."""
    from guilens.scenarios.params import ParamError, has_templates, instantiate, tasks_of

    if not has_templates(s):
        return s, [only] if only else None
    try:
        drawn = instantiate(s, 1 if variants is None else variants, seed or 0)
    except ParamError as err:
        _fail([str(err)], 2)
    return drawn, [t.id for t in tasks_of(drawn, only)] if only else None


@scenarios_app.command("stats")
def stats_cmd(
    packs: list[str] = typer.Argument(None, metavar="[PACK]...", help="Built-in pack ids or files (default: every built-in pack)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON: each pack and the total."),
    variants: int = typer.Option(None, "--variants", metavar="N",
                                 help="Also instantiate task templates, N variants each, and count the distinct tasks."),
    seed: int = typer.Option(0, "--seed", help="The seed templates are drawn with (with --variants)."),
) -> None:
    """The pack summary: tasks by tier (MemGUI's golden-step ranges), memory kind, app count, golden steps; days."""
    from guilens.scenarios.errors import ScenarioError
    from guilens.scenarios.loader import find_scenario, load_builtin
    from guilens.scenarios.stats import pack_stats, stats_table, total_stats

    try:
        found = [find_scenario(p) for p in packs] if packs else load_builtin()
    except ScenarioError as err:
        _fail(err.problems, 2)
    try:
        each = [pack_stats(s, variants, seed) for s in found]
    except ValueError as err:  # a template that cannot be drawn (ParamError), or a bad --variants
        _fail([str(err)], 2)
    total = total_stats(each)
    if as_json:
        import json

        typer.echo(json.dumps({"packs": [p.to_json() for p in each], "total": total.to_json()}, indent=2))
        return
    for line in stats_table(each, total if len(each) > 1 else None):
        typer.echo(line)


@scenarios_app.command("import-memgui")
def import_memgui_cmd(
    csv_file: Path = typer.Argument(..., help="MemGUI-Bench's task table (memgui-tasks-all.csv)."),
    out: Path = typer.Option(..., "--out", "-o", help="The scenario file to write (YAML)."),
) -> None:
    """Turn MemGUI-Bench's task table into a scenario for real devices (LLM-judged)."""
    from guilens.scenarios.errors import ScenarioError
    from guilens.scenarios.memgui import import_memgui, scenario_yaml

    try:
        s = import_memgui(csv_file)
    except ScenarioError as err:
        _fail(err.problems, 2)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(scenario_yaml(s), encoding="utf-8")
    except OSError as err:
        _fail([f"{out}: cannot write: {err.strerror or err}"], 2)
    memory = sum(t.memory != "none" for t in s.tasks)
    cross = sum(len(t.apps) > 1 for t in s.tasks)
    typer.echo(f"wrote {out}: {len(s.tasks)} tasks ({memory} memory, {cross} cross-app, "
               f"{sum(1 for t in s.tasks if t.mirror_of)} mirror pairs)")


def register(app: typer.Typer) -> None:
    app.add_typer(scenarios_app)
