"""The home screen (`guilens` with no arguments): pick a scenario, task, level, agent, user and
device, and start. The run is planned with the same `plan_run` the CLI uses, so a bad choice
(a level the task lacks, the claude agent without an API key) is the same one-line error,
shown here before anything runs.

The Start button has the focus when the screen opens, so Enter starts what is
shown at once (the first scenario, all its tasks); Tab and shift+Tab reach the
choices. The run and the runs browser open on top of home, and `q`/Esc there
come back to it."""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, Label, Select, Static

from guilens.run.types import instruction_for
from guilens.screens.widgets.phone import Renderer
from guilens.screens.widgets.render import short

AGENTS = [("oracle: follows the task's reference", "oracle"), ("claude: the Anthropic API", "claude"),
          ("human: you, at the controls", "human"), ("random: random taps (a baseline)", "random")]
USERS = [("oracle: answers from the task", "oracle"), ("llm: a model plays the user", "llm"),
         ("human: you answer", "human")]
ALL_TASKS = "__all__"


class HomeScreen(Screen[None]):
    HELP_TITLE = "home"
    KEY_HELP = [
        ("Home", [("tab / shift+tab", "move between the choices"), ("Enter, s", "start the run (Start has the focus)"),
                  ("r", "browse recorded runs"), ("q", "quit")]),
        ("Everywhere", [("?", "this help"), ("ctrl+p", "command palette")]),
    ]
    BINDINGS = [
        Binding("s", "start", "Start"),
        Binding("r", "runs", "Runs"),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(self, settings: Any, *, renderer: Renderer = "halfcell") -> None:
        super().__init__()
        self.settings = settings
        self.renderer: Renderer = renderer
        self.scenarios: dict[str, Any] = {}
        self.load_error: str | None = None
        try:
            from guilens.scenarios.loader import load_builtin

            self.scenarios = {s.id: s for s in load_builtin()}
        except Exception as err:  # a broken built-in must not stop the person from starting something
            self.load_error = str(err)

    def compose(self) -> ComposeResult:
        first = next(iter(self.scenarios), None)
        with VerticalScroll(id="home"):
            yield Static(Content.from_markup("[b $accent]guilens[/] [$text-muted]· a terminal lab for mobile GUI "
                                             "agents: pick a task and watch an agent do it[/]"))
            with Horizontal(classes="home-row"):
                with Vertical():
                    yield Label("Scenario", classes="field-label")
                    yield Select([(f"{s.id}: {s.title or s.description[:40]}", s.id) for s in self.scenarios.values()],
                                 value=first if first else Select.BLANK, allow_blank=not first,
                                 id="scenario")
                    yield Label("Task", classes="field-label")
                    options = self._task_options(self.scenarios.get(first) if first else None)
                    yield Select(options, id="task", allow_blank=not options,
                                 value=options[0][1] if options else Select.BLANK, prompt="no tasks")
                    yield Label("Level: L0 precise · L1 a detail left out · L2 indirect", classes="field-label")
                    yield Select([("L0", "L0"), ("L1", "L1"), ("L2", "L2")], value="L0", allow_blank=False,
                                 id="level")
                with Vertical():
                    yield Label("Agent", classes="field-label")
                    yield Select(AGENTS, value="oracle", allow_blank=False, id="agent")
                    yield Label("User: who answers the agent's questions", classes="field-label")
                    yield Select(USERS, value="oracle", allow_blank=False, id="user")
                    yield Label("Device (sim, adb, adb:SERIAL) · attempts", classes="field-label")
                    with Horizontal(classes="device-row"):
                        yield Input(value=str(self.settings.device), id="device")
                        yield Input(value="1", id="attempts", type="integer", max_length=2)
            yield Static(id="task-info")
            yield Static(id="home-error")
            yield Button("Start (s)", variant="primary", id="start")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        if self.load_error:
            self._error(f"could not load the built-in scenarios: {self.load_error}")
        self._describe()
        self.query_one("#start", Button).focus()

    def _chosen_scenario(self) -> Any:
        value = self.query_one("#scenario", Select).value
        return self.scenarios.get(value) if isinstance(value, str) else None

    def _chosen_task(self) -> Any:
        scenario = self._chosen_scenario()
        value = self.query_one("#task", Select).value
        if scenario is None or not isinstance(value, str) or value == ALL_TASKS:
            return None
        return next((t for t in scenario.tasks if t.id == value), None)

    @staticmethod
    def _task_options(scenario: Any) -> list[tuple[str, str]]:
        """The task choices of a scenario: each task, after one "all N tasks" entry when there are
        several (or they are one persistent day). The list has no blank entry: "all" is a choice."""
        if scenario is None or not scenario.tasks:
            return []
        opts = [(f"{t.id}: {short(t.title or instruction_for(t, 'L0'), 50)}", t.id) for t in scenario.tasks]
        if scenario.kind == "sequence" or len(opts) > 1:
            opts.insert(0, (f"all {len(scenario.tasks)} tasks" + (" (one persistent day)"
                            if scenario.kind == "sequence" else ""), ALL_TASKS))
        return opts

    def _fill_tasks(self) -> None:
        opts = self._task_options(self._chosen_scenario())
        if opts:  # every scenario has a task (the loader sees to it); none chosen keeps the old list
            task_select = self.query_one("#task", Select)
            task_select.set_options(opts)
            task_select.value = opts[0][1]
        self._describe()

    @on(Select.Changed, "#scenario")
    def _scenario_changed(self) -> None:
        self._fill_tasks()

    @on(Select.Changed, "#task")
    @on(Select.Changed, "#level")
    def _task_changed(self) -> None:
        self._describe()

    def _describe(self) -> None:
        info = self.query_one("#task-info", Static)
        scenario, task = self._chosen_scenario(), self._chosen_task()
        level = self.query_one("#level", Select).value
        level = level if isinstance(level, str) else "L0"
        if scenario is None:
            info.update(Content.from_markup("[$text-muted]no scenarios found[/]"))
            return
        if task is None:
            info.update(Content.from_markup("[b]$t[/]\n$d", t=scenario.title or scenario.id,
                                            d=short(scenario.description, 400) or f"{len(scenario.tasks)} tasks"))
            return
        levels = task.levels
        what = instruction_for(task, level) if level in levels else f"(no {level} instruction: it has {', '.join(levels)})"
        ms = len(task.all_milestones())
        info.update(Content.from_markup(
            "[b]$id[/] [$text-muted]$apps · difficulty $d · $ms milestones · about $g steps[/]\n[i]$what[/]",
            id=task.id, apps=", ".join(task.apps), d=str(task.difficulty), ms=str(ms), g=str(task.golden_steps),
            what=short(what, 500),
        ))

    def _error(self, text: str) -> None:
        self.query_one("#home-error", Static).update(Content.from_markup("[b $error]$e[/]", e=text) if text else "")

    @on(Button.Pressed, "#start")
    def _start_pressed(self) -> None:
        self.action_start()

    def action_start(self) -> None:
        from guilens.screens.launch import make_run_screen

        scenario = self._chosen_scenario()
        if scenario is None:
            self._error("pick a scenario first")
            return
        task = self._chosen_task()
        target = f"{scenario.id}:{task.id}" if task is not None else scenario.id

        def value(sel: str, default: str) -> str:
            v = self.query_one(sel, Select).value
            return v if isinstance(v, str) else default

        attempts_text = self.query_one("#attempts", Input).value.strip() or "1"
        try:
            from guilens.cli import UserError
            from guilens.run.plan import plan_run

            plan = plan_run(target, agent=value("#agent", "oracle"), user=value("#user", "oracle"),
                            level=value("#level", "L0"), devices=[self.query_one("#device", Input).value.strip()],
                            attempts=int(attempts_text) if attempts_text.isdigit() else 0,
                            settings=self.settings, command=f"guilens (home) {target}")
        except (UserError, ValueError) as err:
            self._error(str(err))
            return
        except Exception as err:  # a missing API key and the like: say it, do not crash the home screen
            self._error(f"{type(err).__name__}: {err}")
            return
        self._error("")
        self.app.push_screen(make_run_screen(plan, renderer=self.renderer))

    def action_runs(self) -> None:
        from guilens.screens.runs_screen import RunsScreen

        self.app.push_screen(RunsScreen(self.settings.run_dir, renderer=self.renderer, settings=self.settings))

    async def action_quit(self) -> None:
        await self.app.action_quit()
