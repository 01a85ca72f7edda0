"""Running without the TUI: a one-line-per-step printer and a console that answers for a person.

`HeadlessObserver` implements the runner's observer protocol with rich: one
line per step, numbered from 1 as the trace and the replay number them (action,
what the device said, milestones reached, the user's answer, a person's time),
a summary line per attempt with its time split by who spent it, and a progress
bar when a run holds several tasks and the output is a terminal. Piped, it
prints plain lines.

A phone that goes away mid-run is printed as it happens (what the device said,
how long the run waits); given the run's control, the observer then takes Enter
on standard input, when that is a terminal, as the resume key: the run asks the
phone at once (`guilens.run.reconnect`). It reads only while the run waits for
the phone, and only lines already typed (`select`), so it never holds a line a
`ConsoleResponder` prompt is waiting for.

`ConsoleResponder` answers the run's question channel from standard input:
the human agent's actions and the human user's answers. End of input while a
request is open cancels the run (the episode is recorded as `aborted`).
"""

from __future__ import annotations

import select
import sys
import threading
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from guilens.config import color_wanted
from guilens.describe import action_text, outcome_bits, retries_text, seconds, short, step_number

if TYPE_CHECKING:
    from guilens.control import QuestionChannel, Request, RunControl
    from guilens.episode import Episode, Step
    from guilens.scenarios.model import Scenario, Task

_STATUS_STYLE = {
    "success": "bold green",
    "failure": "bold red",
    "timeout": "bold yellow",
    "error": "bold red",
    "aborted": "bold magenta",
    "blocked": "yellow",
}


def step_line(step: Step) -> str:
    """The plain text of one step: what was done, what came of it."""
    what = action_text(step.action)
    if step.target and step.target.get("label"):
        what += f" [{short(step.target['label'], 30)}]"
    parts = [short(what, 60)]
    kind = (step.action or {}).get("type")
    said = step.action_description.strip()
    if (said and kind in ("tap", "long_press", "swipe", "scroll") and not (step.target or {}).get("label")
            and said.casefold() != what.casefold()):  # a description that only repeats the action adds nothing
        parts.append(f"({short(said, 50)})")
    if step.ask is not None:
        parts.append(f"← {short(step.ask.answer or '', 60)!r} ({step.ask.answered_by})")
    elif step.device_result:
        parts.append(f"→ {short(step.device_result, 50)}")
    if step.error:
        parts.append(f"✗ {short(step.error, 80)}")
    if step.milestones:
        parts.append("✓ " + ", ".join(step.milestones))
    if step.usage.retries:
        parts.append(f"↻ {short(retries_text(step.usage.retries), 160)}")
    for gap in step.gaps:
        parts.append(f"⚡ phone gone {gap.seconds:.1f} s" + ("" if gap.outcome == "back" else ", lost"))
    if step.by == "human":  # a baseline's annotator sees how long they took
        parts.append(f"(human, {seconds(step.timings.person_s)})" if step.timings else "(human)")
    return "  ".join(parts)


def run_scenario(run_dir: Path) -> Scenario | None:
    """The run's own copy of its scenario (`scenario.json`, written before the run starts: templates
    drawn, a day's tasks as run), schema-checked only, as the judge reads it; None when unreadable."""
    from guilens.run.store import SCENARIO_COPY
    from guilens.scenarios.model import Scenario

    try:
        return Scenario.model_validate_json((run_dir / SCENARIO_COPY).read_text(encoding="utf-8"))
    except (OSError, ValueError):  # no copy (an older run layout), or a damaged one: counts stay flat
        return None


def milestones_text(task: Task, episode: Episode) -> str:
    """`milestones 3/4` as AndroidLens' ATP counts them: an alternatives item once, complete by any
    one path; the milestones of the paths not taken are not counted."""
    from guilens.scenarios.milestones import checklist_progress

    reached = {h.id for h in episode.milestones}
    done, total = checklist_progress(task, lambda m: m in reached)
    return f"milestones {done}/{total}"


def day_text(scenario: Scenario, task: Task) -> str:
    """`day 2 of 5 · Tue 24 Nov 08:00` for a task of a multi-day sequence (`day:`); empty otherwise."""
    if task.day is None:
        return ""
    days = sorted({scenario.day_of(t) for t in scenario.tasks})
    day = scenario.day_of(task)
    when = scenario.when(task)
    return f"day {days.index(day) + 1} of {len(days)} · " + (f"{when:%a %d %b %H:%M}" if when else f"{day:%a %d %b}")


class HeadlessObserver:
    """Prints the run as it goes. Thread-safe: a batch reports from one thread per device.

    On a terminal it uses rich (colour, a progress bar for several tasks); piped
    or with `color=False` it writes plain lines straight to the stream, which
    keeps its cost per step far below the phone's. `NO_COLOR` (or `guilens --no-color`) means plain.
    """

    def __init__(
        self,
        stream: IO[str] | None = None,
        *,
        color: bool | None = None,
        progress: bool | None = None,
        thoughts: bool = False,
        parallel: bool = False,
        control: RunControl | None = None,
        keys: IO[str] | None = None,
        modes: str = "",
    ) -> None:
        self.stream = stream if stream is not None else sys.stdout
        self.modes = modes
        """ScenDroid's modes for the start line when they are not the defaults (`RunModes.describe`)."""
        tty = bool(getattr(self.stream, "isatty", lambda: False)())
        # NO_COLOR (or --no-color, which sets it) means plain lines, not just Rich without colour: Rich
        # keeps bold and the progress bar's cursor moves, and no-color.org asks for no colour codes.
        self.plain = (not tty or not color_wanted()) if color is None else not color
        self.console = Console(file=self.stream, force_terminal=not self.plain, no_color=self.plain,
                               highlight=False, soft_wrap=True)
        self.show_progress = (tty and not self.plain) if progress is None else progress
        self.thoughts = thoughts
        self._lock = threading.RLock()
        self._progress: Progress | None = None
        self._bar: Any = None
        self._many = parallel
        """Several devices at once: lines interleave, so each names its task."""
        self._done: set[str] = set()
        self.control = control
        """The run's control: Enter resumes it while it waits for a phone (None: no key)."""
        self.keys = keys if keys is not None else sys.stdin
        self._gone: set[str] = set()
        """Devices whose phone the run is waiting for now."""
        self._watching = False
        self._run_dir: Path | None = None
        self._scenario: Scenario | None = None
        """The run's scenario copy, read on the first attempt."""
        self._scenario_read = False

    # -- output -----------------------------------------------------------------------------
    def _print(self, text: str, style: str = "") -> None:
        with self._lock:
            if self.plain:
                self.stream.write(text + "\n")
                self.stream.flush()
                return
            target = self._progress.console if self._progress is not None else self.console
            target.print(text, style=style or None, markup=False, highlight=False)

    def _tag(self, ep: Episode) -> str:
        tag = f"{ep.scenario}:{ep.task}" if ep.scenario else ep.task
        if ep.attempts > 1:
            tag += f"#{ep.attempt}"
        return tag

    # -- run --------------------------------------------------------------------------------
    def on_run_started(self, run_dir: Path, total: int) -> None:
        self._run_dir = run_dir
        modes = self.modes
        self._print(f"run {run_dir}  ({total} task{'s' if total != 1 else ''})" + (f"  · {modes}" if modes else ""),
                    "bold")
        with self._lock:
            if self.show_progress and total > 1:
                self._progress = Progress(
                    TextColumn("[progress.description]{task.description}"),
                    BarColumn(),
                    MofNCompleteColumn(),
                    TimeElapsedColumn(),
                    console=self.console,
                    transient=True,
                )
                self._progress.start()
                self._bar = self._progress.add_task("tasks", total=total)

    def on_task_finished(self, task_key: str, status: str) -> None:
        with self._lock:
            if self._progress is not None and task_key not in self._done:
                self._done.add(task_key)
                self._progress.advance(self._bar)

    def on_run_finished(self, episodes: list[Episode]) -> None:
        with self._lock:
            if self._progress is not None:
                self._progress.stop()
                self._progress = None
        counts: dict[str, int] = {}
        for ep in episodes:
            counts[ep.status] = counts.get(ep.status, 0) + 1
        summary = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
        self._print(f"done: {len(episodes)} episode{'s' if len(episodes) != 1 else ''}: {summary}", "bold")

    # -- attempts ---------------------------------------------------------------------------
    def _task_of(self, ep: Episode) -> tuple[Scenario, Task] | None:
        """The attempt's task in the run's scenario copy (its milestone list, its day), if there is one."""
        with self._lock:
            if not self._scenario_read and self._run_dir is not None:
                self._scenario, self._scenario_read = run_scenario(self._run_dir), True
            scenario = self._scenario
        if scenario is None:
            return None
        task = next((t for t in scenario.tasks if t.id == ep.task), None)
        return (scenario, task) if task is not None else None

    def on_attempt_started(self, episode: Episode) -> None:
        ep = episode
        found = self._task_of(ep)
        day = day_text(*found) if found is not None else ""
        self._print(f"▶ {self._tag(ep)} {ep.level} · {ep.agent} · {ep.device} · budget {ep.budget}"
                    + (f" · {day}" if day else ""), "bold cyan")
        self._print(f"  {short(ep.instruction, 110)}", "dim")

    def on_step(self, episode: Episode, step: Step) -> None:
        prefix = f"{self._tag(episode)} " if self._many else ""
        self._print(f"  {prefix}{step_number(step.index):>3} {step_line(step)}", "red" if step.error else "")
        if self.thoughts and step.thought:
            self._print(f"        {short(step.thought, 120)}", "dim italic")

    def on_state(self, episode: Episode, state: str) -> None:
        if state == "disconnected":
            self._disconnected(episode)
        elif episode.device in self._gone:
            with self._lock:
                self._gone.discard(episode.device)
            if state == "running":
                self._print(f"  {episode.device}: the phone answers again, going on", "green")
        if state in ("paused", "human"):
            self._print(f"  {state}", "yellow")

    # -- a phone gone -----------------------------------------------------------------------
    def _key_works(self) -> bool:
        try:
            return self.control is not None and self.keys.isatty() and self.keys.fileno() >= 0
        except (AttributeError, ValueError, OSError):  # a stream with no file behind it
            return False

    def _disconnected(self, episode: Episode) -> None:
        key = self._key_works()
        hint = " · Enter: try it now" if key else ""
        self._print(f"  ⚡ {episode.error or episode.device + ': the phone went away'}{hint}", "bold yellow")
        with self._lock:
            self._gone.add(episode.device)
            start = key and not self._watching
            self._watching = self._watching or start
        if start:
            threading.Thread(target=self._watch_keys, name="disconnect-keys", daemon=True).start()

    def _watch_keys(self) -> None:
        """While a phone is gone: a line typed on the terminal resumes the run (the run asks the
        phone at once, and pauses again if it is still gone)."""
        assert self.control is not None
        try:
            while True:
                with self._lock:
                    if not self._gone or self.control.cancelled:
                        self._watching = False
                        return
                ready, _, _ = select.select([self.keys], [], [], 0.2)
                if ready and self.keys.readline():
                    self.control.resume()
        except (OSError, ValueError):  # the terminal went away: the wait goes on without the key
            with self._lock:
                self._watching = False

    def on_attempt_finished(self, episode: Episode) -> None:
        ep = episode
        found = self._task_of(ep) if ep.milestones_total else None
        # the episode counts every milestone of every path; the task's checklist counts as ATP does
        bits = outcome_bits(ep, milestones=milestones_text(found[1], ep) if found is not None else None)
        self._print(f"■ {self._tag(ep)} {ep.status} · " + " · ".join(bits), _STATUS_STYLE.get(ep.status, "bold"))
        if ep.error and ep.status != "success":
            self._print(f"  {short(ep.error, 160)}", "dim")


class ConsoleResponder:
    """Answers the question channel from a text stream (standard input by default).

    Action requests (the human agent, a take-over) read a command line; question
    requests (the human user) show the suggestion and take an empty line as
    accepting it. Reading happens on the responder's own thread, so the runner's
    wait stays cancellable.
    """

    def __init__(
        self,
        channel: QuestionChannel,
        control: RunControl | None = None,
        *,
        stdin: IO[str] | None = None,
        stdout: IO[str] | None = None,
        echo: bool | None = None,
    ) -> None:
        self.channel = channel
        self.control = control
        self.stdin = stdin if stdin is not None else sys.stdin
        self.stdout = stdout if stdout is not None else sys.stderr
        tty = bool(getattr(self.stdin, "isatty", lambda: False)())
        self.echo = (not tty) if echo is None else echo
        """Print what was read when input is piped, so a transcript shows it."""
        self._wake = threading.Condition()
        self._opened: list[Request] = []
        self.closed = False
        channel.on_change(self._on_change)
        self._thread = threading.Thread(target=self._loop, name="console-responder", daemon=True)
        self._thread.start()

    def _on_change(self, req: Request, event: str) -> None:
        with self._wake:
            if event == "opened":
                self._opened.append(req)
            else:
                self._opened = [r for r in self._opened if r.id != req.id]
            self._wake.notify_all()

    def _write(self, text: str) -> None:
        self.stdout.write(text)
        self.stdout.flush()

    def _loop(self) -> None:
        while True:
            with self._wake:
                while not self._opened:
                    self._wake.wait()
                req = self._opened.pop(0)
            if req.future.done():
                continue
            if req.kind == "question":
                hint = f" [Enter: {req.suggestion}]" if req.suggestion else ""
                at = req.context.get("step")
                where = f" (step {step_number(at)})" if isinstance(at, int) else ""
                self._write(f"? the agent asks{where}: {req.text}{hint}\n> ")
            else:
                self._write(f"{req.text}\n> ")
            line = self.stdin.readline()
            if not line:
                self.closed = True
                self._write("(end of input: cancelling the run)\n")
                if self.control is not None:
                    self.control.cancel()
                self.channel.withdraw_all()
                return
            text = line.rstrip("\n")
            if self.echo:
                self._write(text + "\n")
            if not self.channel.answer(req.id, text):
                self._write("(that request was withdrawn)\n")
