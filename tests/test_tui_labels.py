"""People's labels from the replay screen: `m` opens the label modal, `label.json` is written beside the
verdict, the summary shows it with the judge's decision, and a run that cannot be written says so."""

from __future__ import annotations

import getpass
import json
from pathlib import Path

import pytest
import tui_helpers
from fault_helpers import chattr_immutable
from test_tui_run import wait_for

from guilens.judge.labels import read_label, write_label
from guilens.judge.pipeline import judge_path
from guilens.screens.app import GuilensApp
from guilens.screens.label_modal import LabelScreen
from guilens.screens.replay_screen import ReplayScreen


@pytest.fixture
def episode(tmp_path: Path) -> Path:
    tui_helpers.make_episode(tmp_path)
    return tmp_path / "test-run" / "note" / "attempt-1"


@pytest.fixture(scope="module")
def real_episode(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The oracle on the first built-in sim task, with the real runner: the rules can decide it."""
    from guilens.episode import find_episodes
    from guilens.run.engine import Runner
    from guilens.run.plan import plan_run
    from guilens.scenarios.loader import load_builtin

    root = tmp_path_factory.mktemp("labels")
    scenario = next(s for s in load_builtin() if s.device == "sim" and s.kind == "tasks")
    plan = plan_run(f"{scenario.id}:{scenario.tasks[0].id}", agent="oracle", devices=["sim"], user="oracle",
                    level="L0", out=root)
    Runner(plan).run()
    (d,) = find_episodes(root)
    return d


def summary(screen: ReplayScreen) -> str:
    return str(screen.query_one("#summary").render())


async def test_m_labels_changes_and_clears_the_label(episode: Path) -> None:
    app = GuilensApp(lambda: ReplayScreen(episode))
    async with app.run_test(size=(180, 50)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        assert "label: none (m to label)" in summary(screen) and "not judged yet" in summary(screen)
        assert "m" in {b.key for b in screen.BINDINGS}

        await pilot.press("m")
        await wait_for(pilot, lambda: isinstance(app.screen, LabelScreen), what="the label modal")
        await pilot.press("s")
        await pilot.press(*"saw Buy milk saved")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is screen, what="back on the replay")
        data = json.loads((episode / "label.json").read_text())
        assert data["label"] == "success" and data["reason"] == "saw Buy milk saved"
        assert data["by"] == getpass.getuser() and data["guilens_version"] and data["at"]
        assert not (episode / "verdict.json").exists()  # beside the verdict, never inside it
        text = summary(screen)
        assert "label: success" in text and "saw Buy milk saved" in text and getpass.getuser() in text

        # change it: the reason is kept unless edited
        await pilot.press("m")
        await wait_for(pilot, lambda: isinstance(app.screen, LabelScreen))
        await pilot.press("f", "enter")
        await wait_for(pilot, lambda: app.screen is screen)
        lab = read_label(episode)
        assert lab is not None and lab.label == "failure" and lab.reason == "saw Buy milk saved"
        assert "label: failure" in summary(screen)

        # Esc leaves it as it was
        await pilot.press("m")
        await wait_for(pilot, lambda: isinstance(app.screen, LabelScreen))
        await pilot.press("s", "escape")
        await wait_for(pilot, lambda: app.screen is screen)
        assert read_label(episode).label == "failure"  # type: ignore[union-attr]

        # Enter before picking saves nothing
        await pilot.press("m")
        await wait_for(pilot, lambda: isinstance(app.screen, LabelScreen))
        modal = app.screen
        assert modal.focused is modal.query_one("#label-reason")  # the field has the keys from the start
        await pilot.press("enter")
        await pilot.pause(0.1)
        assert app.screen is modal and read_label(episode).label == "failure"  # type: ignore[union-attr]
        assert any("Pick success (s) or failure (f) first" in str(n.message) for n in app._notifications)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)

        # clear
        await pilot.press("m")
        await wait_for(pilot, lambda: isinstance(app.screen, LabelScreen))
        await pilot.press("c")
        await wait_for(pilot, lambda: app.screen is screen)
        assert not (episode / "label.json").exists()
        assert "label: none" in summary(screen)


async def test_the_label_is_shown_beside_the_judges_decision(real_episode: Path) -> None:
    episode = real_episode
    ((_, v),) = judge_path(episode, ["rules"], force=True)
    assert v.decision == "success" and v.decided_by == "rules"
    other = "failure" if v.decision == "success" else "success"
    write_label(episode, other, "I saw it otherwise", by="ana")
    app = GuilensApp(lambda: ReplayScreen(episode))
    async with app.run_test(size=(180, 50)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        text = summary(screen)
        assert f"label: {other} (ana" in text and f"judge: {v.decision} by rules" in text and "disagree" in text
        await pilot.press("m")
        await wait_for(pilot, lambda: isinstance(app.screen, LabelScreen))
        assert f"The judge says {v.decision}" in str(app.screen.query_one("#label-now").render())
        await pilot.press("s" if v.decision == "success" else "f", "enter")
        await wait_for(pilot, lambda: app.screen is screen)
        assert "· agree" in summary(screen) and "disagree" not in summary(screen)


async def test_a_bad_label_file_is_one_line_in_the_summary(episode: Path) -> None:
    (episode / "label.json").write_text('{"label": "maybe", "at": "2026-01-01T00:00:00Z"}')
    app = GuilensApp(lambda: ReplayScreen(episode))
    async with app.run_test(size=(180, 50)):
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        text = summary(screen)
        assert "label.json: field 'label'" in text and "'maybe'" in text


async def test_a_read_only_run_gets_a_notice_not_a_traceback(episode: Path) -> None:
    if not chattr_immutable(episode, True):
        pytest.skip("chattr +i is not supported here")
    try:
        app = GuilensApp(lambda: ReplayScreen(episode))
        async with app.run_test(size=(180, 50)) as pilot:
            screen = app.screen
            await pilot.press("m")
            await pilot.pause(0.2)
            assert app.screen is screen  # no modal: nothing could be saved
            notes = [str(n.message) for n in app._notifications]
            assert any("Cannot label this episode" in n and "read-only run" in n for n in notes), notes
            assert app.is_running
    finally:
        chattr_immutable(episode, False)
    assert not (episode / "label.json").exists()


@pytest.mark.slow
def test_labelling_in_tmux_as_a_person_would(episode: Path, tmp_path: Path) -> None:
    """`guilens replay` in a real terminal (tmux, 160x45): m, f, a typed reason, Enter; then the label is
    changed to success and the run scored with `guilens judge-eval` from the same shell."""
    import subprocess
    import uuid

    from test_tui_demo_tmux import TMUX, Pane, guilens_binary

    if TMUX is None:
        pytest.skip("needs tmux")
    name = f"guilens-labels-{uuid.uuid4().hex[:8]}"
    env = {"COLORTERM": "truecolor", "GUILENS_CONFIG_FILE": str(tmp_path / "none.toml"),
           "GUILENS_CACHE_DIR": str(tmp_path / "cache"), "TERM": "xterm-256color"}
    command = f"env -u COLUMNS -u LINES {guilens_binary()} replay {episode}; echo EXITED $?; sleep 60"
    args = [TMUX, "new-session", "-d", "-s", name, "-x", "160", "-y", "45", "-c", str(tmp_path)]
    for k, v in env.items():
        args += ["-e", f"{k}={v}"]
    subprocess.run([*args, command], check=True)
    try:
        p = Pane(name)
        p.wait(r"label: none \(m to label\)", timeout=60)
        p.keys("m")
        p.wait(r"Not labelled yet", timeout=10)
        p.keys("f")  # the call, a reason and Enter as fast as tmux sends them: none is lost
        p.keys("-l", "the note is empty")
        p.keys("Enter")
        p.wait(r"label: failure \(.*\): the note is empty", timeout=10)
        lab = read_label(episode)
        assert lab is not None and lab.label == "failure" and lab.reason == "the note is empty"
        p.keys("m")
        p.wait(r"Labelled failure now", timeout=10)
        p.keys("s", "Enter")
        p.wait(r"label: success \(.*\): the note is empty", timeout=10)
        p.keys("q")
        p.wait(r"EXITED 0", timeout=20)
    finally:
        subprocess.run([TMUX, "kill-session", "-t", name], check=False, capture_output=True)
    assert read_label(episode).label == "success"  # type: ignore[union-attr]
