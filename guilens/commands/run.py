"""`guilens run TARGET` and `guilens demo`.

Both plan the run first (every mistake is one `error:` line and exit status 2,
before anything is written), then hand it to the TUI when there is one and
`--headless` is not given, else run it here with the headless printer. The
exit status is 0 when the run completed, whatever its episodes' outcomes.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from guilens.commands.tui import RENDERER_HELP, check_renderer_option

if TYPE_CHECKING:
    from guilens.run.engine import RunResult
    from guilens.run.plan import RunPlan


def _fail(message: str, code: int = 2) -> None:
    typer.secho(f"error: {message}", err=True, fg="red")
    raise typer.Exit(code)


def _command(name: str, target: str | None, kw: dict[str, Any]) -> str:
    """The command as it would be typed to run this again (recorded in run.json)."""
    import shlex

    flags = {"devices": "--device", "all_attempts": "--all-attempts", "max_steps": "--max-steps"}
    parts = ["guilens", name] + ([target] if target else [])
    for key, value in kw.items():
        if value is None or value is False:
            continue
        flag = flags.get(key, f"--{key.replace('_', '-')}")
        for v in value if isinstance(value, list) else [value]:
            parts += [flag] if v is True else [flag, str(v)]
    return " ".join(shlex.quote(p) for p in parts)


def _plan(target: str, *, command: str, **kw: Any) -> RunPlan:
    from guilens.cli import UserError
    from guilens.config import ConfigError
    from guilens.run.plan import plan_run

    try:
        return plan_run(target, command=command, **kw)
    except (UserError, ConfigError) as err:
        _fail(str(err))
        raise  # unreachable


def _tui() -> Any:
    """The TUI's entry point, if this install has one."""
    try:
        from guilens.screens.launch import run_tui  # type: ignore[import-not-found]
    except ImportError:
        return None
    return run_tui


def execute(plan: RunPlan, *, headless: bool, thoughts: bool = False, renderer: str | None = None) -> int:
    """Run a plan to the end; return the exit status."""
    return run_plan(plan, headless=headless, thoughts=thoughts, renderer=renderer)[0]


def run_plan(plan: RunPlan, *, headless: bool, thoughts: bool = False,
             renderer: str | None = None) -> tuple[int, RunResult | None]:
    """Run a plan to the end, in the TUI when there is a screen, else with the headless printer;
    return the exit status and the runner's result (None if the run never finished)."""
    from guilens.screens.graphics.probe import under_web_driver

    # The TUI needs a screen: a terminal on both ends, or textual-serve's web driver (guilens web).
    # With neither (a pipe, CI), print instead.
    if not headless and ((sys.stdin.isatty() and sys.stdout.isatty()) or under_web_driver()):
        run_tui = _tui()
        if run_tui is not None:
            got = run_tui(plan, renderer=renderer)
            return (130 if getattr(got, "interrupted", False) else 0), got
    from guilens.control import QuestionChannel, RunControl
    from guilens.device.base import DeviceError
    from guilens.headless import ConsoleResponder, HeadlessObserver
    from guilens.run.engine import Runner

    control, channel = RunControl(), QuestionChannel()
    if plan.agent == "human" or plan.user == "human":
        ConsoleResponder(channel, control)
    observer = HeadlessObserver(thoughts=thoughts, parallel=len(plan.devices) > 1)
    try:
        result = Runner(plan, observers=[observer], control=control, channel=channel).run()
    except DeviceError as err:
        _fail(str(err))
    except KeyboardInterrupt:
        typer.secho("interrupted", err=True, fg="yellow")
        return 130, None
    typer.echo(f"episodes in {result.run_dir}")
    return (130 if result.interrupted else 0), result


def register(app: typer.Typer) -> None:
    @app.command()
    def run(
        target: str = typer.Argument(
            ..., help="A built-in scenario id, scenario:task, or a scenario file (file.yaml or file.yaml:task)."
        ),
        agent: str = typer.Option("oracle", "--agent", "-a", help="oracle, claude, human, random or package.module:Class."),
        device: list[str] = typer.Option(
            None, "--device", "-d", help="sim, adb or adb:SERIAL; repeat to spread a batch over devices."
        ),
        user: str = typer.Option("oracle", "--user", "-u", help="Who answers ask_user: oracle, llm or human."),
        level: str = typer.Option("L0", "--level", "-l", help="Instruction level: L0 precise, L1, L2 ambiguous."),
        attempts: int = typer.Option(1, "--attempts", "-k", help="pass@k: attempts per task, stopping at the first success."),
        all_attempts: bool = typer.Option(False, "--all-attempts", help="Run all k attempts even after a success."),
        max_steps: int = typer.Option(None, "--max-steps", help="Step budget (default: the task's, or 1.4 x golden + 1)."),
        out: Path = typer.Option(None, "--out", "-o", help="Where runs go (default: the run_dir setting, ./runs)."),
        model: str = typer.Option(None, "--model", "-m", help="Model for the claude agent."),
        seed: int = typer.Option(None, "--seed", help="Seed for agents that draw random numbers."),
        headless: bool = typer.Option(False, "--headless", help="No TUI: one line per step on standard output."),
        thoughts: bool = typer.Option(False, "--thoughts", help="Headless: print the agent's thought under each step."),
        renderer: str = typer.Option(None, "--renderer", help=RENDERER_HELP),
    ) -> None:
        """Run an agent on a scenario or task and record the episodes."""
        check_renderer_option(renderer)
        kw: dict[str, Any] = dict(agent=agent, devices=device or None, user=user, level=level, attempts=attempts,
                                  all_attempts=all_attempts, max_steps=max_steps, out=out, model=model, seed=seed)
        plan = _plan(target, command=_command("run", target, {**kw, "headless": headless}), **kw)
        raise typer.Exit(execute(plan, headless=headless, thoughts=thoughts, renderer=renderer))

    @app.command()
    def demo(
        headless: bool = typer.Option(False, "--headless", help="No TUI: one line per step on standard output."),
        level: str = typer.Option(None, "--level", "-l", help="Instruction level (default: the most ambiguous the demo has)."),
        out: Path = typer.Option(None, "--out", "-o", help="Where the run goes (default: the run_dir setting)."),
        renderer: str = typer.Option(None, "--renderer", help=RENDERER_HELP),
    ) -> None:
        """Watch the oracle agent solve the demo scenario on the simulated phone (no phone, no API key)."""
        check_renderer_option(renderer)
        scenario = _demo_scenario()
        if level is None:
            levels = scenario.levels
            level = levels[-1] if levels else "L0"
        plan = _plan(scenario.id, command=_command("demo", None, {"level": level, "out": out, "headless": headless}),
                     agent="oracle", devices=["sim"], user="oracle", level=level, out=out)
        raise typer.Exit(execute(plan, headless=headless, renderer=renderer))


def _demo_scenario() -> Any:
    from guilens.scenarios.errors import ScenarioError
    from guilens.scenarios.loader import load_builtin

    try:
        found = load_builtin()
    except ScenarioError as err:
        _fail(f"the built-in scenarios do not load: {err}", 1)
    sims = [s for s in found if s.device == "sim" and s.kind == "tasks"]
    for s in sims:
        if s.id == "demo":
            return s
    if not sims:
        _fail("no built-in scenario for the simulated phone to demo", 1)
    return sims[0]
