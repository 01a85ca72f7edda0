"""Entry points the CLI calls to open the TUI: a run, a replay, the runs browser, the home screen.

Each decides how the phone is shown before Textual starts (the terminal is
asked what images it draws, which it cannot be once Textual owns stdin),
builds the app with its first screen, and runs it. `--renderer`, then the
`renderer` setting (`GUILENS_RENDERER` or the settings file) choose: `auto`,
`halfcell`, `sixel`, `tgp` (Kitty graphics), `iterm` or `text`.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from guilens.control import QuestionChannel, RunControl
    from guilens.episode import Episode, EpisodeReader
    from guilens.run.plan import RunPlan
    from guilens.screens.phone_setup import PhoneSetup
    from guilens.users import SimUser, UserContext, UserReply


def pick_renderer(renderer: str | None = None, settings: Any = None) -> PhoneSetup:
    """The phone setup for this terminal: `renderer` if given, else the setting, else `auto`."""
    from guilens.screens.graphics.probe import FULL_RESOLUTION, probe, under_web_driver
    from guilens.screens.phone_setup import check_renderer, choose
    from guilens.screens.widgets.phone import set_cell_size

    wanted = renderer or (getattr(settings, "renderer", None) if settings is not None else None)
    wanted = check_renderer(wanted or os.environ.get("GUILENS_RENDERER") or "auto")
    if wanted in FULL_RESOLUTION and under_web_driver():
        wanted = "auto"  # the browser's terminal draws no images: half cells and the text beside them
    setup = choose(wanted, probe())
    set_cell_size(setup.cell)
    return setup


class ReviewedUser:
    """A simulated user whose every answer a person sees first.

    In the TUI the agent's question opens a modal showing what the simulated user
    (oracle or llm) would say; Enter accepts it, and the answer is recorded as the
    simulated user's. Typing something else records the person's answer, with the
    simulated one kept as the suggestion.
    """

    def __init__(self, simulated: SimUser, channel: QuestionChannel, control: RunControl | None) -> None:
        self.simulated = simulated
        self.channel = channel
        self.control = control
        self.name = simulated.name

    def answer(self, question: str, ctx: UserContext) -> UserReply:
        from guilens.users import UserReply

        hint = self.simulated.answer(question, ctx)
        text = self.channel.ask("question", question, suggestion=hint.text,
                                context={"task": ctx.task_id, "step": ctx.step}, control=self.control).strip()
        if not text or text == hint.text:
            return hint
        return UserReply(text=text, answered_by="human", suggested=hint.text, usage=hint.usage)


def tui_plan(plan: RunPlan) -> RunPlan:
    """The plan as the TUI runs it: a simulated user's answers go past the person first."""
    from guilens.run.plan import RunPlan

    if plan.user == "human":
        return plan

    class _Reviewed(RunPlan):
        def make_user(self, *, channel: QuestionChannel, control: RunControl) -> Any:
            return ReviewedUser(super().make_user(channel=channel, control=control), channel, control)

    return _Reviewed(**{f.name: getattr(plan, f.name) for f in dataclasses.fields(plan)})


def make_run_screen(plan: RunPlan, *, renderer: PhoneSetup | str = "halfcell", paused: bool = False) -> Any:
    """The run screen for `plan`, running the real `Runner` (tests mount it in their own app)."""
    from guilens.run.engine import Runner
    from guilens.screens.run_screen import RunScreen

    plan = tui_plan(plan)
    made: list[Runner] = []

    def factory(observers: list[Any], control: RunControl, channel: QuestionChannel) -> Runner:
        runner = Runner(plan, observers=observers, control=control, channel=channel)
        made.append(runner)
        return runner

    tasks = {t.id: t for t in plan.tasks}

    def dir_lookup(ep: Episode) -> Path | None:
        run_dir = made[-1].run_dir if made else None
        return run_dir / ep.task / f"attempt-{ep.attempt}" if run_dir else None

    return RunScreen(factory, renderer=renderer, task_lookup=lambda ep: tasks.get(ep.task),
                     dir_lookup=dir_lookup, paused=paused, settings=plan.settings)


def run_tui(plan: RunPlan, *, renderer: str | None = None, paused: bool = False) -> Any:
    """Run `plan` in the run screen; returns the runner's `RunResult` (None if it never finished).

    What stopped the run (the worker's error: a full disk, a phone that was never there) is raised
    here, after the terminal is restored, so the command reports it as the headless run does."""
    from guilens.screens.app import GuilensApp

    chosen = pick_renderer(renderer, plan.settings)
    app = GuilensApp(lambda: make_run_screen(plan, renderer=chosen, paused=paused), renderer=chosen,
                     settings=plan.settings)
    app.run()
    if app.run_result is None and app.run_error is not None:
        raise app.run_error
    return app.run_result


def replay_tui(reader: EpisodeReader, *, renderer: str | None = None, settings: Any = None) -> None:
    """The replay of `reader`'s episode, its steps read already (`guilens replay` reads them before
    the terminal changes, so a bad line is a one-line error). The first step's screens start decoding
    now, while the terminal is probed and Textual starts."""
    from guilens.config import load_settings
    from guilens.screens.app import GuilensApp
    from guilens.screens.replay_decode import EpisodeScreens
    from guilens.screens.replay_screen import ReplayScreen

    screens = EpisodeScreens.opening(reader)
    settings = settings if settings is not None else load_settings()
    chosen = pick_renderer(renderer, settings)
    GuilensApp(lambda: ReplayScreen(renderer=chosen, settings=settings, screens=screens),
               renderer=chosen, settings=settings).run()


def runs_tui(directory: Path | str | None = None, *, renderer: str | None = None, settings: Any = None) -> None:
    from guilens.config import load_settings
    from guilens.screens.app import GuilensApp
    from guilens.screens.runs_screen import RunsScreen

    settings = settings if settings is not None else load_settings()
    where = Path(directory) if directory is not None else settings.run_dir
    chosen = pick_renderer(renderer, settings)
    GuilensApp(lambda: RunsScreen(where, renderer=chosen, settings=settings), renderer=chosen,
               settings=settings).run()


def home_tui(settings: Any = None, *, renderer: str | None = None) -> Any:
    """The home screen: pick what to run, then watch it in the run screen."""
    from guilens.config import load_settings
    from guilens.screens.app import GuilensApp
    from guilens.screens.home_screen import HomeScreen

    settings = settings if settings is not None else load_settings()
    chosen = pick_renderer(renderer, settings)
    app = GuilensApp(lambda: HomeScreen(settings, renderer=chosen), renderer=chosen, settings=settings)
    app.run()
    return getattr(app, "run_result", None)
