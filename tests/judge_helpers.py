"""Episodes recorded by hand for the judge's tests: real Recorder output, real scenario files.

A run directory gets a copy of its scenario (`scenario.yaml` at the run root,
which the judge prefers to the built-in packs), and each attempt directory is
written by `guilens.episode.Recorder` with screens that show their own texts and
UI trees that hold them, so the rules stage reads what a model would see.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from guilens.episode import Ask, Episode, MilestoneHit, Recorder, Step, Timings, Usage
from guilens.judge.images import font

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
SIZE = (540, 1200)

SCENARIO = """\
id: judgepack
title: Judge tests
tasks:
  - id: note
    apps: [notes]
    instruction: {L0: "Create a note titled Shoes that says 89.99"}
    memory: cross-app
    output: explicit
    difficulty: 1
    golden_steps: 3
    milestones:
      - id: editor
        text: The note editor is open
        check: {screen_text: New note}
        golden_step: 1
      - id: saved
        text: A note titled Shoes holds 89.99
        check: {state: notes.notes, where: {title: Shoes}, field: body, op: contains, value: '89.99'}
        golden_step: 3
  - id: price
    apps: [calculator]
    instruction: {L0: "Find the price of the ASICS shoes and answer it"}
    difficulty: 2
    golden_steps: 4
    milestones:
      - id: product
        text: The ASICS product page is open
        check: {screen_text: ASICS Gel}
        kind: flexible
    answer: {numbers: [89.99]}
  - id: judgeonly
    apps: [notes]
    instruction: {L0: "Add the cheapest red shoes to the cart"}
    difficulty: 3
    golden_steps: 6
    milestones:
      - id: found
        text: Red shoes are listed
        golden_step: 2
      - unordered:
          - id: picked
            text: The cheapest red shoes' page is open
            golden_step: 4
          - id: carted
            text: The cart holds the red shoes
            golden_step: 6
"""


def screen(texts: list[str], tint: int = 0) -> Image.Image:
    img = Image.new("RGB", SIZE, (245, 245 - tint % 40, 250))
    d = ImageDraw.Draw(img)
    f = font(36)
    for i, t in enumerate(texts):
        d.text((30, 60 + i * 70), t, fill=(10, 10, 10), font=f)
    return img


def ui_xml(texts: list[str], package: str = "com.guilens.notes") -> str:
    nodes = "\n".join(
        f'    <node index="{i}" text="{t}" resource-id="" class="android.widget.TextView" package="{package}" '
        f'content-desc="" clickable="true" enabled="true" bounds="[0,{60 + i * 70}][540,{120 + i * 70}]" />'
        for i, t in enumerate(texts)
    )
    return (
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n<hierarchy rotation=\"0\">\n"
        f'  <node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="{package}" '
        f'content-desc="" bounds="[0,0][540,1200]">\n{nodes}\n  </node>\n</hierarchy>'
    )


def make_run(root: Path, run_id: str = "run-1", scenario: str = SCENARIO) -> Path:
    run = root / run_id
    run.mkdir(parents=True, exist_ok=True)
    (run / "scenario.yaml").write_text(scenario, encoding="utf-8")
    return run


def record(
    run: Path,
    task: str,
    screens: list[list[str]],
    actions: list[dict[str, Any]],
    *,
    attempt: int = 1,
    final_state: dict[str, Any] | None = None,
    final_answer: str | None = None,
    status: str = "success",
    with_ui: bool = True,
    with_screens: bool = True,
    asks: dict[int, tuple[str, str]] | None = None,
    cost_per_step: float = 0.01,
    seconds_per_step: float = 2.0,
    live_milestones: list[tuple[str, int]] | None = None,
) -> Path:
    """One attempt: `screens[i]` is what step i saw, and the last entry is the final screen
    (so there is one more screen than actions)."""
    assert len(screens) == len(actions) + 1, "one screen per action, plus the final one"
    d = run / task / f"attempt-{attempt}"
    ep = Episode(task=task, scenario="judgepack", run_id=run.name, attempt=attempt, agent="test", device="sim",
                 instruction="", level="L0", timings=Timings(started_at=T0))
    rec = Recorder(d, ep)
    for i, action in enumerate(actions):
        ask = None
        if asks and i in asks:
            ask = Ask(question=asks[i][0], answer=asks[i][1], answered_by="oracle")
        step = Step(index=i, started_at=T0 + timedelta(seconds=i * seconds_per_step),
                    ended_at=T0 + timedelta(seconds=(i + 1) * seconds_per_step), app="notes", action=action,
                    action_description=f"action {i}", ask=ask, usage=Usage(input_tokens=100, cost_usd=cost_per_step))
        rec.record_step(step, screen(screens[i], i) if with_screens else None,
                        ui_xml(screens[i]) if with_ui else None)
    rec.episode.final_answer = final_answer
    if live_milestones:
        rec.episode.milestones = [MilestoneHit(id=m, step=s) for m, s in live_milestones]
    rec.finish(status, final_screen=screen(screens[-1], 99) if with_screens else None,  # type: ignore[arg-type]
               final_ui=ui_xml(screens[-1]) if with_ui else None, final_state=final_state)
    # Durations from the step clock, not the wall clock, so time-per-step is exact.
    import json

    data = json.loads((d / "episode.json").read_text())
    data["timings"]["duration_s"] = len(actions) * seconds_per_step
    (d / "episode.json").write_text(json.dumps(data, indent=2))
    return d


NOTE_STATE_OK = {"notes": {"notes": [{"title": "Shoes", "body": "ASICS 89.99"}]}}
NOTE_STATE_BAD = {"notes": {"notes": [{"title": "Shoes", "body": "ASICS 79.99"}]}}


def note_success(run: Path, attempt: int = 1) -> Path:
    return record(
        run, "note",
        [["Notes", "+"], ["New note", "Title", "Body"], ["New note", "Shoes", "Body"], ["Shoes", "ASICS 89.99"]],
        [{"type": "tap", "x": 270, "y": 95}, {"type": "type", "text": "Shoes"},
         {"type": "type", "text": "ASICS 89.99"}],
        attempt=attempt, final_state=NOTE_STATE_OK,
    )


def note_failure(run: Path, attempt: int = 1) -> Path:
    return record(
        run, "note",
        [["Notes", "+"], ["New note", "Title", "Body"], ["New note", "Shoes", "Body"], ["Shoes", "ASICS 79.99"]],
        [{"type": "tap", "x": 270, "y": 95}, {"type": "type", "text": "Shoes"},
         {"type": "type", "text": "ASICS 79.99"}],
        attempt=attempt, final_state=NOTE_STATE_BAD, status="failure",
    )


def role_of(req: Any) -> str:
    """Which judge role a request to the fake API is for, from its system prompt."""
    system = req.system_text()
    if "DEFINITELY succeeded" in system:
        return "triage"
    if "two-panel image" in system:
        return "describe"
    if "Information Retention Rate" in system:
        return "irr"
    if "evaluation expert for smartphone" in system:
        return "milestone"
    if "You previously requested" in system:
        return "visual"
    if "evaluating mobile UI automation" in system:
        return "semantic"
    return "unknown"


def by_role(api: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in api.requests:
        out[role_of(r)] = out.get(role_of(r), 0) + 1
    return out


class OracleWrapper:
    """The oracle agent under another name, knowing which task it is on: the base of the agents the
    judge tests make fail on purpose (they override `step` and call `self.inner.step`)."""

    name = "oracle-wrapper"
    model = None

    def __init__(self, settings: Any = None) -> None:
        from guilens.agents.oracle import OracleAgent

        self.inner = OracleAgent(settings)
        self.task = ""

    def reset(self, context: Any) -> None:
        self.task = context.task.id
        self.inner.reset(context)


def unjudged_copy(run: Path, where: Path) -> Path:
    """A copy of `run` at `where/run` without its verdicts, for a test to judge afresh (the run
    itself is a module's fixture the other tests read)."""
    import shutil

    copy = where / "run"
    shutil.copytree(run, copy)
    for v in copy.rglob("verdict.json"):
        v.unlink()
    return copy


def guilens_cli(*args: str, home: Path) -> Any:
    """`python -m guilens ARGS` with no API key and its home and cache under `home`."""
    import subprocess
    import sys

    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "GUILENS_CACHE_DIR": str(home / "cache")}
    return subprocess.run([sys.executable, "-m", "guilens", *args], capture_output=True, text=True, env=env,
                          timeout=120)
