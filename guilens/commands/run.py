"""`guilens run TARGET` and `guilens demo`.

Both plan the run first (every mistake is one `error:` line and exit status 2,
before anything is written; an output folder that cannot be written is such a
mistake), then hand it to the TUI when there is one and `--headless` is not
given, else run it here with the headless printer.

Exit status (`EXIT_*`): 0 the run completed, whatever its episodes' outcomes
(they are data); 1 an episode ended `error` (a broken agent, a phone that did
not come back, a disk that filled: the run stops at the first write that
fails, and says which file and why); 2 a mistake on the command line; 130
interrupted (Ctrl-C).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import typer

from guilens.commands.tui import RENDERER_HELP, check_renderer_option

if TYPE_CHECKING:
    from guilens.run.engine import RunResult
    from guilens.run.plan import RunPlan


EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def exit_status(result: RunResult | None, *, interrupted: bool = False) -> int:
    """The exit status for a finished run (see the module docstring)."""
    if interrupted or (result is not None and result.interrupted):
        return EXIT_INTERRUPTED
    if result is not None and any(ep.status == "error" for ep in result.episodes):
        return EXIT_ERROR
    return EXIT_OK


def _fail(message: str, code: int = 2) -> NoReturn:
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
        plan = plan_run(target, command=command, **kw)
    except (UserError, ConfigError) as err:
        _fail(str(err))
        raise  # unreachable
    _check_out(plan.out, given=kw.get("out") is not None)
    return plan


def _check_out(out: Path, *, given: bool) -> None:
    """Refuse, before a device opens or the terminal changes, an output folder no run can be written in."""
    import os

    from guilens.storage import StorageError, check_output_dir

    try:
        check_output_dir(out)
    except StorageError as err:
        where = "--out " if given else ("GUILENS_RUN_DIR=" if os.environ.get("GUILENS_RUN_DIR") else
                                        "the run_dir setting: ")
        _fail(f"{where}{err}")


def _tui() -> Any:
    """The TUI's entry point, if this install has one."""
    try:
        from guilens.screens.launch import run_tui
    except ImportError:
        return None
    return run_tui


def execute(plan: RunPlan, *, headless: bool, thoughts: bool = False, renderer: str | None = None) -> int:
    """Run a plan to the end; return the exit status."""
    return run_plan(plan, headless=headless, thoughts=thoughts, renderer=renderer)[0]


def run_plan(plan: RunPlan, *, headless: bool, thoughts: bool = False, renderer: str | None = None,
             progress_to_stderr: bool = False) -> tuple[int, RunResult | None]:
    """Run a plan to the end, in the TUI when there is a screen, else with the headless printer;
    return the exit status and the runner's result (None if the run never finished).
    `progress_to_stderr`: the printer's lines go to standard error (`--json` keeps stdout for JSON)."""
    from guilens.screens.graphics.probe import under_web_driver

    # The TUI needs a screen: a terminal on both ends, or textual-serve's web driver (guilens web).
    # With neither (a pipe, CI), print instead.
    if not headless and ((sys.stdin.isatty() and sys.stdout.isatty()) or under_web_driver()):
        run_tui = _tui()
        if run_tui is not None:
            return _run_in_tui(run_tui, plan, renderer)
    from guilens.control import QuestionChannel, RunControl
    from guilens.device.base import DeviceError
    from guilens.headless import ConsoleResponder, HeadlessObserver
    from guilens.run.engine import Runner
    from guilens.run.modes import RunModes

    control, channel = RunControl(), QuestionChannel()
    if plan.agent == "human" or plan.user == "human":
        ConsoleResponder(channel, control)
    from guilens.storage import StorageError

    observer = HeadlessObserver(sys.stderr if progress_to_stderr else None, thoughts=thoughts,
                                parallel=len(plan.devices) > 1, control=control,
                                modes=RunModes.of_settings(plan.settings).describe())
    runner = Runner(plan, observers=[observer], control=control, channel=channel)
    try:
        result = runner.run()
    except DeviceError as err:
        _fail(str(err))
    except KeyboardInterrupt:
        typer.secho("interrupted", err=True, fg="yellow")
        return EXIT_INTERRUPTED, None
    except StorageError as err:
        _storage_fault(runner, err)
        return EXIT_ERROR, None
    _report_unmarked(runner)
    typer.echo(f"episodes in {result.run_dir}", err=progress_to_stderr)
    return exit_status(result), result


def run_summary(result: RunResult | None, code: int) -> dict[str, Any]:
    """`guilens run --json`: what a script needs after a run, without reading the run directory."""
    episodes = [] if result is None else result.episodes
    return {
        "run_dir": str(result.run_dir) if result is not None else None,
        "exit_status": code,
        "interrupted": code == EXIT_INTERRUPTED,
        "episodes": [
            {"scenario": ep.scenario, "task": ep.task, "attempt": ep.attempt, "status": ep.status,
             "steps": ep.steps, "milestones": [m.id for m in ep.milestones],
             "milestones_total": ep.milestones_total}
            for ep in episodes
        ],
    }


def _run_in_tui(run_tui: Any, plan: RunPlan, renderer: str | None) -> tuple[int, RunResult | None]:
    """The run screen; what stopped the run is said in one line once the terminal is back, as headless."""
    from guilens.device.base import DeviceError
    from guilens.storage import StorageError

    try:
        got = run_tui(plan, renderer=renderer)
    except DeviceError as err:
        _fail(str(err))
    except StorageError as err:
        typer.secho(f"error: the run stopped: {err}", err=True, fg="red")
        return EXIT_ERROR, None
    return exit_status(got), got


def _storage_fault(runner: Any, err: OSError) -> None:
    """One line for the write that stopped the run, then where the record is and what it could not mark."""
    if runner.run_dir is None:  # the run directory itself could not be made: nothing was recorded
        typer.secho(f"error: cannot start the run: {err}", err=True, fg="red")
        return
    typer.secho(f"error: the run stopped: {err}", err=True, fg="red")
    typer.secho(f"  what was recorded before is kept in {runner.run_dir}", err=True)
    _report_unmarked(runner)


def _report_unmarked(runner: Any) -> None:
    """The ends the run could not write: those files still say `running` (readers take it as `interrupted`)."""
    for err in runner.unmarked:
        typer.secho(f"  not marked as ended: {err}", err=True, fg="yellow")


@contextmanager
def _on_cluster(address: str | None, plan: RunPlan, wanted: list[str] | None) -> Iterator[None]:
    """`--cluster`: the plan's devices are the cluster's for the run (`guilens.cluster.driver`); what
    stops it before the run starts is one `error:` line (exit 2 for the address or the devices asked,
    1 for a head that does not answer)."""
    if address is None:
        yield
        return
    from guilens.cluster import ClusterError
    from guilens.cluster.driver import on_cluster
    from guilens.device.base import DeviceError

    with ExitStack() as stack:
        try:
            stack.enter_context(on_cluster(address, plan, wanted))
        except ClusterError as err:
            _fail(str(err), err.code)
        except DeviceError as err:
            _fail(str(err), EXIT_ERROR)
        yield


def register(app: typer.Typer) -> None:
    @app.command()
    def run(
        target: str = typer.Argument(
            ..., help="A built-in scenario id, scenario:task, or a scenario file (file.yaml or file.yaml:task)."
        ),
        agent: str = typer.Option("oracle", "--agent", "-a",
                                  help="oracle, claude, openai, human, random or package.module:Class."),
        device: list[str] = typer.Option(
            None, "--device", "-d", help="sim, adb or adb:SERIAL; repeat to spread a batch over devices."
        ),
        user: str = typer.Option("oracle", "--user", "-u", help="Who answers ask_user: oracle, llm or human."),
        user_model: str = typer.Option(None, "--user-model",
                                       help="--user llm: openai:MODEL, anthropic:MODEL or a Claude name "
                                            "(default: the user_model setting, else the model setting)."),
        user_base_url: str = typer.Option(None, "--user-base-url",
                                          help="--user llm: its provider's endpoint (default: the provider's "
                                               "setting, openai_base_url or api_base_url)."),
        level: str = typer.Option("L0", "--level", "-l", help="Instruction level: L0 precise, L1, L2 ambiguous."),
        attempts: int = typer.Option(1, "--attempts", "-k", help="pass@k: attempts per task, stopping at the first success."),
        all_attempts: bool = typer.Option(False, "--all-attempts", help="Run all k attempts even after a success."),
        max_steps: int = typer.Option(None, "--max-steps", help="Step budget (default: the task's, or 1.4 x golden + 1)."),
        out: Path = typer.Option(None, "--out", "-o", help="Where runs go (default: the run_dir setting, ./runs)."),
        model: str = typer.Option(None, "--model", "-m",
                                  help="Model for the claude or openai agent (openai: the name the server serves)."),
        base_url: str = typer.Option(None, "--base-url",
                                     help="The agent's API endpoint (openai: e.g. http://localhost:8000/v1)."),
        format: str = typer.Option(None, "--format",
                                   help="LLM agents: native (tool calls), uitars, qwen or odyssey (text formats)."),
        memory: str = typer.Option(None, "--memory",
                                   help="LLM agents: none, actions, action-thought, multiturn or com "
                                        "(default: com with native, action-thought with a text format)."),
        max_pixels: int = typer.Option(None, "--max-pixels",
                                       help="Pixel budget of the screenshot sent (default: the format's); "
                                            "match the server's max_pixels."),
        history_images: int = typer.Option(None, "--history-images",
                                           help="--memory multiturn: screenshots per request (default 5)."),
        screen_info: bool = typer.Option(None, "--screen-info/--no-screen-info",
                                         help="Chain-of-Memory's ScreenInfo: one more call per step."),
        ask: str = typer.Option(None, "--ask", metavar="on|off",
                                help="ScenDroid's Active (on, the default) or Passive (off) mode: whether the "
                                     "agent may ask the user (ask_user)."),
        max_questions: int = typer.Option(None, "--max-questions", metavar="N",
                                          help="Clarification budget: questions per attempt before a further "
                                               "ask_user is refused (default: none)."),
        context: str = typer.Option(None, "--context", metavar="episodic|augmented",
                                    help="A day of tasks: episodic (default; a fresh agent session per task) "
                                         "or augmented (the agent is given the day's earlier tasks)."),
        seed: int = typer.Option(None, "--seed", help="Seed for agents that draw random numbers, and for the "
                                                      "parameters of task templates (--variants; default 0)."),
        variants: int = typer.Option(None, "--variants", metavar="N",
                                     help="Task templates (tasks with params:): run N variants of each, drawn "
                                          "from the sim's data by --seed (default 1). Fixed tasks run once."),
        anomalies: float = typer.Option(None, "--anomalies", metavar="RATE",
                                        help="After every action, with probability RATE (0-1), the simulated "
                                             "phone shows an anomaly: an ad, a permission dialog, low battery, "
                                             "an app crash (drawn from --seed, else the task and attempt)."),
        headless: bool = typer.Option(False, "--headless", help="No TUI: one line per step on standard output."),
        thoughts: bool = typer.Option(False, "--thoughts", help="Headless: print the agent's thought under each step."),
        renderer: str = typer.Option(None, "--renderer", help=RENDERER_HELP),
        as_json: bool = typer.Option(False, "--json",
                                     help="Headless, with progress on standard error, and a JSON summary of "
                                          "the run (run dir, episodes, exit status) alone on standard output."),
        disconnect_wait: float = typer.Option(
            None, "--disconnect-wait", metavar="SECONDS", min=0, max=86_400,
            help="How long to wait for a phone that goes away mid-run before its tasks end in error "
                 "(default: the disconnect_wait_s setting, 300; 0: do not wait)."),
        cluster: str = typer.Option(
            None, "--cluster", metavar="ADDRESS",
            help="Run on the devices of a Ray cluster: the head's HOST:PORT or ray://HOST:PORT; -d picks "
                 "among the devices its nodes declare (`guilens cluster node`). Needs guilens[cluster]."),
    ) -> None:
        """Run an agent on a scenario or task and record the episodes."""
        check_renderer_option(renderer)
        kw: dict[str, Any] = dict(agent=agent, devices=device or None, user=user, level=level, attempts=attempts,
                                  all_attempts=all_attempts, max_steps=max_steps, out=out, model=model, seed=seed)
        options = {"agent_format": format, "agent_memory": memory, "agent_base_url": base_url,
                   "max_pixels": max_pixels, "history_images": history_images, "screen_info": screen_info,
                   "user_model": user_model, "user_base_url": user_base_url, "disconnect_wait_s": disconnect_wait,
                   "ask": ask, "max_questions": max_questions, "context": context, "anomalies": anomalies,
                   "variants": variants}
        shown = {"user_model": user_model, "user_base_url": user_base_url, "base_url": base_url, "format": format, "memory": memory, "max_pixels": max_pixels,
                 "history_images": history_images, "screen_info": screen_info, "ask": ask,
                 "max_questions": max_questions, "context": context, "anomalies": anomalies, "variants": variants,
                 "cluster": cluster}
        if device and not cluster:  # sims in processes of their own: their fork server starts while we plan
            from guilens.run.workers import warm_hosts

            warm_hosts(list(device))
        plan = _plan(target, command=_command("run", target, {**kw, **shown, "headless": headless or as_json}),
                     options=options, **kw)
        with _on_cluster(cluster, plan, device or None):
            if not as_json:
                raise typer.Exit(execute(plan, headless=headless, thoughts=thoughts, renderer=renderer))
            import json

            code, result = run_plan(plan, headless=True, thoughts=thoughts, progress_to_stderr=True)
            typer.echo(json.dumps(run_summary(result, code), indent=2))
            raise typer.Exit(code)

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
