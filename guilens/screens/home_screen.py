"""The home screen (`guilens` with no arguments): pick a scenario, task, level, agent, user and
device, and start. The run is planned with the same `plan_run` the CLI uses, so a bad choice
(a level the task lacks, the claude agent without an API key) is the same one-line error,
shown here before anything runs.

The Start button has the focus when the screen opens, so Enter starts what is
shown at once (the first scenario, all its tasks); Tab and shift+Tab reach the
choices. The run and the runs browser open on top of home, and `q`/Esc there
come back to it.

A task template (a task with `params:`, `guilens.scenarios.params`) is shown as
one: its parameters and the instruction of an example variant drawn at the
chosen seed, never its raw `{first_item}` text. For a scenario with templates
the screen offers what `guilens run --variants N --seed S` offers, and passes
them to `plan_run` as the CLI does (`variants` a run option, `seed` an argument)."""

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
from guilens.scenarios.milestones import checklist
from guilens.scenarios.params import variant_id
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

    DEFAULT_CSS = """
    HomeScreen #variants, HomeScreen #seed { width: 16; }
    """

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
                    yield Label("Task templates: variants of each · seed", classes="field-label",
                                id="variants-label")
                    with Horizontal(classes="device-row", id="variants-row"):
                        yield Input(value="1", id="variants", type="integer", max_length=4)
                        yield Input(value="0", id="seed", type="integer", max_length=9)
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
        self._show_variants()
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
        opts = [(f"{t.id}: {short(t.title or _example_instruction(scenario, t, 'L0', 0), 50)}", t.id)
                for t in scenario.tasks]
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
        self._show_variants()
        self._fill_tasks()

    @on(Select.Changed, "#task")
    @on(Select.Changed, "#level")
    @on(Input.Changed, "#seed")
    def _task_changed(self) -> None:
        self._describe()

    def _templates(self) -> bool:
        from guilens.scenarios.params import has_templates

        scenario = self._chosen_scenario()
        return scenario is not None and has_templates(scenario)

    def _show_variants(self) -> None:
        """The variants and seed choices, for a scenario with task templates only (`plan_run` refuses
        `variants` for one without, as the CLI does)."""
        shown = self._templates()
        self.query_one("#variants-label").display = shown
        self.query_one("#variants-row").display = shown

    def _seed(self) -> int:
        text = self.query_one("#seed", Input).value.strip()
        return int(text) if text.isdigit() else 0

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
        what = (_example_instruction(scenario, task, level, self._seed()) if level in levels
                else f"(no {level} instruction: it has {', '.join(levels)})")
        ms = len(checklist(task))
        text = Content.from_markup(
            "[b]$id[/] [$text-muted]$apps · difficulty $d · $ms milestones · about $g steps[/]",
            id=task.id, apps=", ".join(task.apps), d=str(task.difficulty), ms=str(ms), g=str(task.golden_steps))
        if task.params:
            text += Content.from_markup("\n[b $accent]template[/] [$text-muted]· each variant draws these from "
                                        "the sim's data by seed:[/]")
            for line in _param_lines(scenario, task):
                text += Content.from_markup("\n[$text-muted]$l[/]", l=line)
            text += Content.from_markup("\n[$text-muted]e.g. variant $v:[/] [i]$what[/]",
                                        v=variant_id(task.id, self._seed(), 0), what=short(what, 500))
        else:
            text += Content.from_markup("\n[i]$what[/]", what=short(what, 500))
        info.update(text)

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
        variants_text = self.query_one("#variants", Input).value.strip() or "1"
        templates = self._templates()
        try:
            from guilens.cli import UserError
            from guilens.run.plan import plan_run

            # the CLI's own path: `variants` is a run option, `seed` an argument of the plan
            plan = plan_run(target, agent=value("#agent", "oracle"), user=value("#user", "oracle"),
                            level=value("#level", "L0"), devices=[self.query_one("#device", Input).value.strip()],
                            attempts=int(attempts_text) if attempts_text.isdigit() else 0,
                            seed=self._seed() if templates else None,
                            options={"variants": int(variants_text) if variants_text.isdigit() else 0}
                            if templates else None,
                            settings=self.settings, command=f"guilens (home) {target}"
                            + (f" --variants {variants_text} --seed {self._seed()}" if templates else ""))
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


def _example_instruction(scenario: Any, task: Any, level: str, seed: int) -> str:
    """The instruction at `level`, filled; a template's as its first variant at `seed` has it."""
    from guilens.scenarios.params import ParamError, one_variant

    if task.params:
        try:
            example = one_variant(scenario, variant_id(task.id, seed, 0))
        except ParamError as err:
            return f"(no variant can be drawn: {err})"
        if example is not None:
            return instruction_for(example, level)
    return instruction_for(task, level)


def _param_lines(scenario: Any, task: Any) -> list[str]:
    """A template's parameters as `guilens scenarios show` words them, without its CLI hint and
    example (the screen draws its own example at the chosen seed and level)."""
    from guilens.scenarios.params_show import param_lines

    return [line for line in param_lines(scenario, task)[1:] if not line.lstrip().startswith(("e.g. ", "(cannot"))]
