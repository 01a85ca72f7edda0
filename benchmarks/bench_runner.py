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

Overhead per step = (runner wall - agent time - bare wall) / bare wall, with
medians over rounds. The runner also times itself (`timings.runner_s`: the loop's
own work; the rest of its extra time is waiting for the recorder to drain).
Target: overhead <= 10%.
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


def bare(scenario, tasks, level: str) -> tuple[float, int]:
    """Observe and act only; returns (seconds, steps)."""
    from guilens.actions import Answer, AskUser, Finish
    from guilens.device.sim import SimDevice
    from guilens.scenarios.reference import ReferencePlayer

    total, steps = 0.0, 0
    for task in tasks:
        device = SimDevice(setup=scenario.setup_for(task))
        player = ReferencePlayer(task, level)
        t = time.perf_counter()
        obs = device.observe()
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
        device.state()  # the final state, as the runner reads it
        total += time.perf_counter() - t
    return total, steps


def with_runner(target: str, level: str, out: Path) -> tuple[float, float, int, float, float]:
    """Returns (wall, agent seconds, steps, runner_s, device_s)."""
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
    return (wall, sum(ep.timings.agent_s for ep in eps), sum(ep.steps for ep in eps),
            sum(getattr(ep.timings, "runner_s", 0.0) for ep in eps), sum(ep.timings.device_s for ep in eps))


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
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            b_wall, b_steps = bare(scenario, tasks, args.level)
            walls = []
            for t in tasks:  # one task per run: the same work as the bare loop, task by task
                walls.append(with_runner(f"{args.scenario}:{t.id}", args.level, Path(tmp) / f"r{r}"))
            wall = sum(w[0] for w in walls)
            agent = sum(w[1] for w in walls)
            steps = sum(w[2] for w in walls)
            loop = sum(w[3] for w in walls)
            dev = sum(w[4] for w in walls)
            rows.append((b_wall, b_steps, wall, agent, steps, loop, dev))
            print(f"round {r + 1}: bare {b_wall:.2f} s / {b_steps} steps; runner {wall:.2f} s / {steps} steps "
                  f"(device {dev:.2f} s, loop {loop:.2f} s, agent {agent:.3f} s)")
    b_wall = statistics.median(x[0] for x in rows)
    b_steps = rows[0][1]
    wall = statistics.median(x[2] for x in rows)
    agent = statistics.median(x[3] for x in rows)
    steps = rows[0][4]
    loop = statistics.median(x[5] for x in rows)
    dev = statistics.median(x[6] for x in rows)
    device_per_step = b_wall / b_steps * 1000
    extra = (wall - agent - b_wall) / steps * 1000
    print()
    print(f"tasks: {', '.join(t.id for t in tasks)} ({args.scenario}, {args.level})")
    print(f"device time per step (bare loop):   {device_per_step:7.1f} ms")
    print(f"runner extra per step (wall):       {extra:7.1f} ms")
    print(f"  of which the loop's own work:     {loop / steps * 1000:7.1f} ms (checks, observers, records)")
    print(f"  device time inside the runner:    {dev / steps * 1000:7.1f} ms")
    ratio = (wall - agent - b_wall) / b_wall
    print(f"overhead over device time:          {ratio * 100:7.1f} %  (target <= 10%)")
    print(f"loop's own work over device time:   {loop / dev * 100:7.1f} %")


if __name__ == "__main__":
    main()
