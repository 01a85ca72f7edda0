"""How fast the replay screen shows an episode's first step and each jump, at 21 and at 200 steps.

Usage: python benchmarks/bench_replay.py [--rounds 3] [--jumps 10] [--size 200x60] [--view both|pixels]
                                        [--baseline DIR] [--long N]

`--baseline DIR`: DIR holds another guilens package (`DIR/guilens`, e.g. the last commit's:
`git archive HEAD guilens | tar -x -C DIR`); its sessions run interleaved with this tree's (same
episodes, same rounds, same machine; the baseline's first in odd rounds, this tree's first in even
ones), and a second table sets its medians beside this tree's.

Records two episodes from the simulated phone with the real `Recorder` (21 and
200 steps, in a temporary folder), then, in interleaved rounds (21, 200, 21,
200, ...) so both see the same machine, opens each in the replay screen
headless (`App.run_test()` at a real terminal size; half-cell phones beside the
UI's text, as a terminal without graphics shows them, or with `--view pixels`
the half cells alone), each time in a fresh Python process as `guilens replay`
would be (one process replaying many episodes would carry the last one's
garbage into the next one's collections), and measures:

- first step: from the moment the app is ready to draw (it asks for its first
  screen: `GuilensApp.on_mount` calls the screen factory) to the first step
  shown. The episode is opened before the app starts, as `guilens replay` opens
  it (`launch.replay_tui`): its steps read (so a bad line is a one-line error
  before the terminal changes) and its first step's screens decoding on other
  threads while Textual starts. That opening's time on the main thread is
  reported on a line of its own, "opened before the app", with the time from
  the opening to the first step, Textual's start included; a baseline tree is
  opened as its own command opened it (a tree from before
  `EpisodeScreens.opening` read the steps and started the decodes in the
  screen, inside the time to the first step);
- next, warm: → after the screen has been idle (its neighbours prepared);
- far, cold: `g` to a step far from every step seen lately, so its screens
  are not decoded yet (the table says how many of these really decoded), timed
  from Enter. The replay starts on the step whose number is typed so far while
  the prompt is open, so how the number is typed matters, and both ways are
  reported: "typed", as a person types (a digit every `TYPING` seconds, Enter
  as long after the last), and "typed at once" (each key as soon as the last
  one was handled: no time to work ahead). Half the far jumps go each way;
- far, warm: End / Home between two steps already seen.

"Shown" means: the screen is at the step, its list row is highlighted, its
detail panel says "step N of M", both phone views have received the frame
made from that step's screens (before, with the action drawn, and after), their
text views (with `--view both`) hold that step's UI laid out for their size, and
the compositor has finished a render that started after all of that was true
(the frame reached the screen's lines). Timing ends when that render ends.

Each round also opens, the same way, Textual's floor: a bare Textual screen of the replay's shape
and size (a summary line, a list, two bordered boxes, a bordered text panel and Textual's footer,
all static text in Textual's own widgets, no guilens code), timed from the moment the app asks for
that screen to the end of the render that shows it: what opening a screen of that shape costs under
Textual on the machine at hand, against which the first step is also given as a ratio.

Targets (issue 14): first step <= 100 ms; any jump <= 50 ms; the 200-step
episode no slower than the 21-step one (ratio <= 1.2). Medians decide
PASS/FAIL; p90 is printed beside them. On a loaded machine every figure grows;
the ratios between the two episodes stay meaningful.

`--long N` (e.g. 1000) adds an N-step episode to the same rounds, with a table of its own
against the 200-step one. At 21 steps the list fits its panel and a far jump never scrolls it;
at 200 every far jump does (its rows and its bar repaint: 4-6 ms at 200x60). Between 200 and N
steps both scroll, so that table is the episode's length alone: reading `steps.jsonl` on opening,
and anything else that would grow with the steps.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import baseline  # benchmarks/baseline.py, beside this file
from textual._compositor import Compositor
from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from guilens.actions import parse_action
from guilens.device.sim import SimDevice
from guilens.episode import Episode, Memory, Recorder, Step, Timings
from guilens.screens.app import GuilensApp
from guilens.screens.modals import PromptScreen
from guilens.screens.phone_setup import fixed
from guilens.screens.replay_screen import ReplayScreen
from guilens.screens.widgets.phone import PhoneView, set_cell_size
from guilens.screens.widgets.step_list import StepList

APPS = ["notes", "calculator", "contacts", "calendar", "clock", "messages", "settings", "shop", "maps", "expense"]
FIRST_MS, JUMP_MS, GROWTH = 100.0, 50.0, 1.2
TYPING = 0.15
"""Seconds between a person's keys when typing a step number (brisk: 150-250 ms is usual)."""


def record(out: Path, steps: int) -> Path:
    """An episode of `steps` steps on the sim: apps opened, tapped in, and left, so screens differ."""
    dev = SimDevice()
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    ep = Episode(task=f"bench-{steps}", scenario="bench", instruction="Wander through the apps", level="L0",
                 agent="oracle", device="sim", screen_size=dev.size, timings=Timings(started_at=t0))
    rec = Recorder(out, ep)
    for i in range(steps):
        obs = dev.observe()
        if i % 3 == 0:
            action: dict[str, Any] = {"type": "open_app", "app": APPS[(i // 3) % len(APPS)]}
        elif i % 3 == 1:
            action = {"type": "tap", "x": 540, "y": 600 + (i * 37) % 1400}
        else:
            action = {"type": "key", "key": "home"}
        dev.act(parse_action(action))
        rec.record_step(Step(index=i, started_at=t0 + timedelta(seconds=i), ended_at=t0 + timedelta(seconds=i + 1),
                             app=obs.app, clock=obs.clock, thought=f"Step {i}: on to the next app.", action=action,
                             action_description=action["type"], memory=Memory(stm=[f"step {i} done"])),
                        obs.screenshot, obs.ui_xml)
    final = dev.observe()
    rec.finish("success", final_screen=final.screenshot, final_ui=final.ui_xml)
    return out


class RenderWatch:
    """Hooks the compositor: notes when a render that began with `cond()` true has ended."""

    def __init__(self) -> None:
        self.cond: Callable[[], bool] | None = None
        self.done_at: float | None = None
        for name in ("render_full_update", "render_partial_update"):
            original = getattr(Compositor, name)
            setattr(Compositor, name, self._wrap(original))

    def _wrap(self, original: Any) -> Any:
        def render(compositor: Any, *args: Any, **kwargs: Any) -> Any:
            hit = self.cond is not None and self.done_at is None and self.cond()
            result = original(compositor, *args, **kwargs)
            if hit:
                self.done_at = time.perf_counter()
            return result
        return render

    def arm(self, cond: Callable[[], bool]) -> None:
        self.cond, self.done_at = cond, None

    async def wait(self, t0: float, timeout: float = 20.0) -> float:
        """Milliseconds from `t0` to the end of the render that showed it."""
        end = time.perf_counter() + timeout
        while self.done_at is None:
            if time.perf_counter() > end:
                raise TimeoutError("the step was never shown")
            await asyncio.sleep(0.0005)
        done, self.cond = self.done_at, None
        return (done - t0) * 1000


def shown(app: GuilensApp, i: int) -> Callable[[], bool]:
    def check() -> bool:
        screen = app.screen
        if not isinstance(screen, ReplayScreen) or screen.index != i or not screen.is_mounted:
            return False
        before, after = screen.query_one("#before", PhoneView), screen.query_one("#after", PhoneView)
        want_b, want_a = screen.screens.ready(i), screen.screens.ready(i + 1)
        return (want_b is not None and want_a is not None
                and before.shown.image is want_b.image and after.shown.image is want_a.image
                and before.canvas is not None and after.canvas is not None
                and before.canvas.frame is not None and after.canvas.frame is not None
                and before._frame_for is want_b.image and after._frame_for is want_a.image
                and before.canvas.frame.action == screen.steps[i].action
                and text_shown(before) and text_shown(after)
                and screen.query_one("#step-list", StepList).highlighted == i
                and screen.query_one("#detail-box").border_title == f"step {i + 1} of {len(screen.steps)}")
    return check


def text_shown(phone: PhoneView) -> bool:
    """The phone's text view, where it has one, laid out for the size it has on screen: a text made
    before the view knew its size is empty (no layout), and is laid out again at the resize."""
    if phone.view == "pixels":
        return True
    text = phone.text
    return (text is not None and text.text_layout is not None and text.action is phone.shown.action
            and text.cells == (text.size.width, text.size.height))


def far_targets(n: int, count: int, seed: int, start: int) -> list[int]:
    """Steps each far from the last few visited (not decoded, not prepared: a cold cache), and
    neither end (End/Home must move afterwards)."""
    rng, out, recent = random.Random(seed), [], [0, start, n - 1]
    for _ in range(count):
        best = max(rng.sample(range(1, n - 1), min(n - 2, 12)), key=lambda s: min(abs(s - r) for r in recent))
        out.append(best)
        recent = (recent + [best])[-4:]
    return out


def opening(path: Path) -> dict[str, Any]:
    """What `guilens replay` hands the replay screen, made as it makes it before the app starts
    (`launch.replay_tui`): the episode's screens, its steps read and its first step's screens
    decoding (which name their episode's directory). A tree from before `EpisodeScreens.opening`
    gets the episode's path and reader only, its steps unread, as its command gave them."""
    from guilens.episode import EpisodeReader
    from guilens.screens import replay_decode

    reader = EpisodeReader(path)
    if not hasattr(replay_decode.EpisodeScreens, "opening"):
        return {"path": path, "reader": reader}
    return {"screens": replay_decode.EpisodeScreens.opening(reader)}  # which reads the steps


async def session(path: Path, size: tuple[int, int], jumps: int, seed: int, watch: RenderWatch,
                  view: str = "both") -> dict[str, Any]:
    t0 = [0.0]
    app: GuilensApp
    began = time.perf_counter()
    opened = opening(path)
    out: dict[str, Any] = {"opening": (time.perf_counter() - began) * 1000,
                           "next": [], "cold": [], "cold_at_once": [], "warm": [], "decoded": 0}

    def first() -> ReplayScreen:
        t0[0] = time.perf_counter()
        watch.arm(shown(app, 0))
        return ReplayScreen(renderer=fixed("halfcell", view=view, cell=(10, 20)), **opened)  # type: ignore[arg-type]

    app = GuilensApp(first)
    async with app.run_test(size=size) as pilot:
        out["first"] = await watch.wait(t0[0])
        out["whole"] = (t0[0] - began) * 1000 + out["first"]
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        n = len(screen.steps)

        async def jump(keys: list[str], target: int) -> float:
            await pilot.pause(0.25)  # idle: the loader has prepared the neighbours
            watch.arm(shown(app, target))
            t = time.perf_counter()
            await pilot.press(*keys)
            return await watch.wait(t)

        for k in range(jumps):  # → from the start
            out["next"].append(await jump(["right"], k + 1))

        async def go_to(target: int, interval: float | None) -> float:
            """`g`, the step's number, Enter: typed as a person types (a key every `interval` s, and
            as long again before Enter), or at once (None: each key as soon as the last is handled).
            Timed from Enter."""
            await pilot.pause(0.25)
            await pilot.press("g")
            while not isinstance(app.screen, PromptScreen):
                await pilot.pause(0.01)
            for digit in str(target + 1):
                await pilot.press(digit)
                if interval is not None:
                    await pilot.pause(interval)
            watch.arm(shown(app, target))
            t = time.perf_counter()
            await pilot.press("enter")
            return await watch.wait(t)

        for k, target in enumerate(far_targets(n, 2 * jumps, seed, start=screen.index)):
            decodes = screen.screens.decodes
            typed_at_once = k % 2 == 1
            out["cold_at_once" if typed_at_once else "cold"].append(
                await go_to(target, None if typed_at_once else TYPING))
            out["decoded"] += screen.screens.decodes > decodes  # really cold: it had to decode
        await jump(["end"], n - 1)
        await jump(["home"], 0)
        for k in range(jumps):
            out["warm"].append(await jump(["end"] if k % 2 == 0 else ["home"], n - 1 if k % 2 == 0 else 0))
        await pilot.press("q")
    return out


class FloorScreen(Screen[None]):
    """The replay's layout in plain Textual widgets: what opening any screen of its shape costs."""

    def compose(self) -> ComposeResult:
        yield Static("bench:bench-200 · success · L0 · attempt 1/1 · oracle · sim · 200 steps\nlabel: none")
        with Horizontal(id="floor-body"):
            with Vertical(classes="floor-box floor-list"):
                yield Static("\n".join(f"{i:>3} open_app notes" for i in range(1, 60)))
            for name in ("before", "after"):
                with Vertical(classes="floor-box floor-phone") as box:
                    box.border_title = name
                    yield Static("\n".join("▀▄" * 27 for _ in range(56)))
            with VerticalScroll(classes="floor-box"):
                yield Static("\n".join(f"step {i} · thought, action, memory, milestones" for i in range(70)))
        yield Footer(compact=True)


class FloorApp(App[None]):
    CSS = """
    #floor-body { height: 1fr; }
    .floor-box { border: round $accent; width: 1fr; }
    .floor-list { width: 34; }
    .floor-phone { width: 58; }
    """

    def __init__(self, watch: RenderWatch) -> None:
        super().__init__()
        self.render_watch, self.t0 = watch, 0.0

    def get_default_screen(self) -> Screen[None]:
        self.t0 = time.perf_counter()
        self.render_watch.arm(lambda: isinstance(self.screen, FloorScreen) and self.screen.is_mounted)
        return FloorScreen()


async def floor_session(size: tuple[int, int], watch: RenderWatch) -> dict[str, Any]:
    app = FloorApp(watch)
    async with app.run_test(size=size) as pilot:
        first = await watch.wait(app.t0)
        await pilot.press("q")
    return {"floor": first}


def p90(xs: list[float]) -> float:
    return sorted(xs)[max(0, round(0.9 * len(xs)) - 1)]


def floor_time(size: tuple[int, int]) -> float:
    """Textual's floor (`FloorScreen`) in a fresh process, as the replay sessions run: its first paint, ms."""
    cmd = [sys.executable, __file__, "--floor", "--size", f"{size[0]}x{size[1]}"]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the floor session failed:\n{done.stderr.strip()}")
    return float(json.loads(done.stdout.strip().splitlines()[-1])["floor"])


def one_session(path: Path, size: tuple[int, int], jumps: int, seed: int, view: str,
                root: Path | None = None) -> dict[str, Any]:
    """One replay session in a fresh process (this file, `--session`): its figures as JSON. `root`:
    the folder whose `guilens` the session imports (first on its path), else this environment's."""
    cmd = [sys.executable, __file__, "--session", str(path), "--size", f"{size[0]}x{size[1]}",
           "--jumps", str(jumps), "--seed", str(seed), "--view", view]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, env=baseline.environ(root),
                          cwd=baseline.cwd(root))
    if done.returncode != 0:
        raise SystemExit(f"a replay session failed ({path}):\n{done.stderr.strip()}")
    got: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    baseline.check_imported(got["guilens"], root)
    return got


ROWS = [("first step shown", "first", FIRST_MS), ("next step (→), warm", "next", JUMP_MS),
        ("far jump (g), cold, typed", "cold", JUMP_MS), ("  the same, typed at once", "cold_at_once", JUMP_MS),
        ("far jump (End/Home), warm", "warm", JUMP_MS)]


def judged(short: float, long: float, timed: list[float], target: float) -> tuple[float, str]:
    """The longer episode's median over the shorter's, and the verdict: PASS when every median in
    `timed` is within `target` and the ratio within `GROWTH`."""
    growth = long / short if short else float("nan")
    if max(timed) <= target and growth <= GROWTH:
        return growth, "PASS"
    why = [w for w, bad in (("too slow", max(timed) > target), (f"grows > {GROWTH}x", growth > GROWTH)) if bad]
    return growth, "FAIL: " + ", ".join(why)


def collect(acc: dict[int, dict[str, list[float]]], n: int, got: dict[str, Any]) -> None:
    into = acc.setdefault(n, {"first": [], "opening": [], "whole": [], "next": [], "cold": [], "cold_at_once": [],
                              "warm": [], "decoded": []})
    for key in ("first", "opening", "whole"):
        into[key].append(got[key])
    for key in ("next", "cold", "cold_at_once", "warm"):
        into[key] += got[key]
    into["decoded"].append(got["decoded"])


def side_by_side(base: dict[int, dict[str, list[float]]], this: dict[int, dict[str, list[float]]]) -> None:
    """The baseline's medians beside this tree's, measured in the same interleaved rounds."""
    print("\nthe baseline beside this tree, same rounds (ms; median; this/baseline)")
    print(f"{'':28}{'baseline 21':>13}{'this 21':>9}{'ratio':>7}{'baseline 200':>14}{'this 200':>10}{'ratio':>7}")
    for label, key, _ in [*ROWS, ("opened before the app", "opening", 0.0), ("opening to first step", "whole", 0.0)]:
        cells = ""
        for n, width in ((21, 13), (200, 14)):
            b, t = statistics.median(base[n][key]), statistics.median(this[n][key])
            cells += f"{b:>{width}.1f}{t:>{9 if n == 21 else 10}.1f}{t / b if b else float('nan'):>7.2f}"
        print(f"{label:28}{cells}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--jumps", type=int, default=10, help="jumps of each kind per round")
    ap.add_argument("--size", default="200x60", help="terminal columns x rows")
    ap.add_argument("--view", choices=["both", "pixels"], default="both",
                    help="the phones' view: half cells beside the UI's text (what a terminal without graphics "
                         "gets), or the half cells alone (what `v` gives)")
    ap.add_argument("--baseline", type=Path, help="a folder holding another guilens package, run interleaved")
    ap.add_argument("--long", type=int, default=0, metavar="N",
                    help="also an N-step episode, this tree only, set against the 200-step one")
    ap.add_argument("--session", type=Path, help=argparse.SUPPRESS)  # one session, in this process
    ap.add_argument("--floor", action="store_true", help=argparse.SUPPRESS)  # Textual's floor, in this process
    ap.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    cols, rows = (int(v) for v in args.size.lower().split("x"))
    if args.floor:
        print(json.dumps(asyncio.run(floor_session((cols, rows), RenderWatch()))))
        return
    if args.session is not None:
        set_cell_size((10, 20))  # the phones' geometry, without asking a terminal
        got = asyncio.run(session(args.session, (cols, rows), args.jumps, args.seed, RenderWatch(), args.view))
        import guilens

        print(json.dumps({**got, "guilens": guilens.__file__}))
        return
    baseline.check(args.baseline)
    results: dict[int, dict[str, list[float]]] = {}
    base_results: dict[int, dict[str, list[float]]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-replay-") as tmp:
        paths = {n: record(Path(tmp) / f"steps-{n}", n) for n in (21, 200, *([args.long] if args.long else []))}
        floors: list[float] = []
        for r in range(args.rounds):
            floors.append(floor_time((cols, rows)))
            print(f"  round {r + 1}, Textual's floor: {floors[-1]:.0f} ms", file=sys.stderr)
            for n, path in paths.items():
                for root in baseline.turns(args.baseline if n in (21, 200) else None, r):
                    got = one_session(path, (cols, rows), args.jumps, r, args.view, root=root)
                    collect(base_results if root is not None else results, n, got)
                    print(f"  round {r + 1}, {n:>3} steps{', baseline' if root is not None else ''}: "
                          f"first {got['first']:.0f} ms", file=sys.stderr)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"replay at {cols}x{rows}, {args.rounds} rounds interleaved, load average {load:.1f} on "
          f"{os.cpu_count()} cores (ms; median / p90; target: PASS when the median is within it)")
    print(f"{'':28}{'21 steps':>18}{'200 steps':>18}{'target':>9}{'200/21':>9}   verdict")
    for label, key, target in ROWS:
        a, b = results[21][key], results[200][key]
        ma, mb = statistics.median(a), statistics.median(b)
        growth, verdict = judged(ma, mb, [ma, mb], target)
        print(f"{label:28}{ma:>9.1f} /{p90(a):>6.1f}{mb:>10.1f} /{p90(b):>6.1f}{target:>9.0f}{growth:>9.2f}   "
              f"{verdict}  ({mb / target:.2f}x target)")
    opened, whole = ({n: statistics.median(results[n][key]) for n in (21, 200)} for key in ("opening", "whole"))
    print(f"opened before the app (main thread, as `guilens replay` opens it): 21 steps {opened[21]:.1f} ms, "
          f"200 steps {opened[200]:.1f} ms; from opening to the first step, Textual's start included: "
          f"{whole[21]:.1f} and {whole[200]:.1f} ms")
    floor = statistics.median(floors)
    firsts = {n: statistics.median(results[n]["first"]) for n in (21, 200)}
    print(f"Textual's floor (a bare screen of this shape and size, static text): {floor:.1f} ms median; "
          f"first step / floor: 21 steps {firsts[21] / floor:.2f}x, 200 steps {firsts[200] / floor:.2f}x")
    cold = {n: sum(results[n]['decoded']) for n in (21, 200)}
    jumps = {n: len(results[n]["cold"]) + len(results[n]["cold_at_once"]) for n in (21, 200)}
    print(f"cold jumps that decoded a screen after `g`: 21 steps {cold[21]}/{jumps[21]}, "
          f"200 steps {cold[200]}/{jumps[200]}; typed: a digit every {TYPING * 1000:.0f} ms, Enter as long "
          "after; at once: each key as soon as the last was handled")
    if args.long:
        longer(results, args.long)
    if base_results:
        side_by_side(base_results, results)


def longer(results: dict[int, dict[str, list[float]]], n: int) -> None:
    """The N-step episode against the 200-step one: both lists scroll, so only the length differs."""
    print(f"\n{n} steps beside 200, same rounds (ms; median / p90): the length alone, both lists scrolling")
    print(f"{'':28}{'200 steps':>18}{f'{n} steps':>18}{f'{n}/200':>9}   verdict")
    for label, key, target in ROWS:
        a, b = results[200][key], results[n][key]
        ma, mb = statistics.median(a), statistics.median(b)
        growth, verdict = judged(ma, mb, [mb], target)  # the 200-step speed is the first table's
        print(f"{label:28}{ma:>9.1f} /{p90(a):>6.1f}{mb:>10.1f} /{p90(b):>6.1f}{growth:>9.2f}   {verdict}")


if __name__ == "__main__":
    main()
