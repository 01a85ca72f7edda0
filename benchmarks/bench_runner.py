"""What the runner adds to a step beyond the phone's own time: recording, observers, live checks.

Usage: python benchmarks/bench_runner.py [--rounds 3] [--scenario memory] [--level L0] [--tasks 4]

Plays the same tasks (the oracle on the simulated phone) two ways in one run,
interleaved round by round because these machines are noisy:

- bare: a loop that only observes and acts: the reference's actions straight
  on a `SimDevice`, nothing recorded or checked. Its wall time is the device
  time of those steps.
- runner: `Runner.run()` with the oracle agent and oracle user, recording every
  step (PNG screens, UI trees, steps.jsonl, episode.json, final state), the
  headless observer printing into a buffer, and the live milestone checks.

The runner times itself (episode `timings`): `runner_s` is the step loop's own
time, `record_s` the part spent handing steps to the recorder (it blocks when
the PNG encoders fall behind), `drain_s` the wait for the last screens at the
end. Reported, as medians over rounds:

- the loop's own work (checks, observers, step records; not the recorder) over
  device time in the same run: the target, <= 10%;
- the recorder's hand-off and drain, and one PNG encode for scale: on the sim
  a step takes a few ms and a 1080x2400 PNG tens of ms, so recording, not the
  loop, bounds how fast the oracle can run on the sim;
- all extra wall time against the bare loop.
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def bare(scenario, tasks, level: str, on_screen=None) -> tuple[float, int]:
    """Observe and act only; returns (seconds, steps). `on_screen(task_id, observation)` hears of every
    screen shown (`bench_pack.py` checks the recording against them, in a pass it does not time)."""
    from guilens.actions import Answer, AskUser, Finish
    from guilens.device.sim import SimDevice
    from guilens.scenarios.reference import ReferencePlayer

    total, steps = 0.0, 0
    for task in tasks:
        device = SimDevice(setup=scenario.setup_for(task))
        player = ReferencePlayer(task, level)
        t = time.perf_counter()
        obs = device.observe()
        if on_screen is not None:
            on_screen(task.id, obs)
        while True:
            ra = player.next_step(obs)
            if ra is None:
                break
            steps += 1
            if isinstance(ra.action, AskUser):
                player.answered(task.user.answer(ra.action.question) or "")
            elif isinstance(ra.action, Answer | Finish):
                break
            else:
                device.act(ra.action)
                obs = device.observe()
                if on_screen is not None:
                    on_screen(task.id, obs)
        device.state()  # the final state, as the runner reads it
        total += time.perf_counter() - t
    return total, steps


def with_runner(target: str, level: str, out: Path) -> dict[str, float]:
    """One run of `target` through the runner; its wall time and the episodes' own timings, summed."""
    from guilens.config import Settings
    from guilens.headless import HeadlessObserver
    from guilens.run.engine import Runner
    from guilens.run.plan import plan_run

    plan = plan_run(target, agent="oracle", devices=["sim"], user="oracle", level=level, out=out,
                    settings=Settings(), check_agent=False)
    observer = HeadlessObserver(io.StringIO(), color=False, progress=False)
    t = time.perf_counter()
    result = Runner(plan, observers=[observer]).run()
    wall = time.perf_counter() - t
    eps = result.episodes
    assert all(ep.status == "success" for ep in eps), [(ep.task, ep.status, ep.error) for ep in eps]
    out_: dict[str, float] = {"wall": wall, "steps": sum(ep.steps for ep in eps)}
    for key in ("agent_s", "device_s", "user_s", "runner_s", "record_s", "drain_s"):
        out_[key] = sum(getattr(ep.timings, key, 0.0) or 0.0 for ep in eps)
    return out_


def encode_ms(run_dir: Path) -> float:
    """What one recorded screen costs to encode again, in this process, now (median of a few)."""
    from PIL import Image

    from guilens.episode import encode_png

    frames = sorted(run_dir.rglob("screens/*.png"))[:6]
    times = []
    for f in frames:
        with Image.open(f) as im:
            img = im.convert("RGB")
        t = time.perf_counter()
        encode_png(img, f.with_name("bench.png"))
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000 if times else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--scenario", default="memory")
    ap.add_argument("--level", default="L0")
    ap.add_argument("--tasks", type=int, default=4, help="how many of the scenario's tasks to play")
    args = ap.parse_args()

    from guilens.scenarios.loader import find_scenario

    scenario = find_scenario(args.scenario)
    tasks = [t for t in scenario.tasks if t.reference][: args.tasks]
    rounds: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            b_wall, b_steps = bare(scenario, tasks, args.level)
            total: dict[str, float] = {"bare": b_wall, "bare_steps": b_steps}
            for t in tasks:  # one task per run: the same work as the bare loop, task by task
                for k, v in with_runner(f"{args.scenario}:{t.id}", args.level, Path(tmp) / f"r{r}").items():
                    total[k] = total.get(k, 0.0) + v
            rounds.append(total)
            print(f"round {r + 1}: bare {b_wall:.2f} s; runner {total['wall']:.2f} s "
                  f"(device {total['device_s']:.2f}, loop {total['runner_s']:.2f} of which recorder hand-off "
                  f"{total['record_s']:.2f}, drain {total['drain_s']:.2f}) for {int(total['steps'])} steps")
        enc = encode_ms(Path(tmp))

    def med(key: str) -> float:
        return statistics.median(r[key] for r in rounds)

    steps = med("steps")
    per = lambda key: med(key) / steps * 1000  # noqa: E731
    device_bare = med("bare") / med("bare_steps") * 1000
    own = per("runner_s") - per("record_s")
    wall_extra = (med("wall") - med("agent_s") - med("bare")) / steps * 1000
    print()
    print(f"tasks: {', '.join(t.id for t in tasks)} ({args.scenario}, {args.level}); {int(steps)} steps per round")
    print(f"device time per step, bare loop:            {device_bare:7.1f} ms")
    print(f"device time per step, inside the runner:    {per('device_s'):7.1f} ms")
    print(f"loop's own work per step (checks, observers, step records; not the recorder): {own:5.2f} ms")
    print(f"  over device time in the same run:         {own / per('device_s') * 100:7.1f} %   (target <= 10%)")
    print(f"recorder hand-off per step (waits when the PNG encoders fall behind): {per('record_s'):5.1f} ms")
    print(f"recorder drain at the end of an attempt:    {med('drain_s') / len(tasks) * 1000:7.1f} ms")
    print(f"one 1080x2400 PNG encode, for scale:        {enc:7.1f} ms")
    print(f"all extra wall time per step vs bare loop:  {wall_extra:7.1f} ms  "
          f"({wall_extra / device_bare * 100:.0f}% of bare device time)")


if __name__ == "__main__":
    main()
