"""`guilens export`: animations (GIF, WebP, MP4), trajectory lines (jsonl) and the one-line errors.

On a real oracle run of a few built-in memory tasks, judged by rules; the CLI
is driven in-process with typer's CliRunner, and as a subprocess where the
exit status and the stderr line are what is tested.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from export_formats_helpers import judged_run
from fault_helpers import assert_one_error_line, guilens
from PIL import Image
from typer.testing import CliRunner

from guilens.actions import ACTION_ADAPTER
from guilens.cli import app
from guilens.episode import EpisodeReader, find_episodes
from guilens.export import animation
from guilens.export.trajectory import common_action


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return judged_run(tmp_path_factory.mktemp("export"), "runs")


def _export(*args: str) -> str:
    result = CliRunner().invoke(app, ["export", *args])
    assert result.exit_code == 0, (result.output, result.exception)
    return result.output


@pytest.mark.parametrize("fmt", ["gif", "webp"])
def test_an_animation_has_a_frame_per_step_and_one_for_the_final_screen(run_dir: Path, tmp_path: Path,
                                                                         fmt: str) -> None:
    for episode in find_episodes(run_dir)[:2]:
        steps = len(EpisodeReader(episode).steps)
        out = tmp_path / f"{episode.parent.name}.{fmt}"
        printed = _export(str(episode), "--format", fmt, "--out", str(out), "--fps", "2", "--width", "200")
        assert f"{steps + 1} frames ({steps} steps + the final screen)" in printed
        with Image.open(out) as im:
            assert im.format == fmt.upper()
            assert im.is_animated and im.n_frames == steps + 1
            assert im.size[0] == 200
            sizes, durations = set(), []
            for i in range(im.n_frames):
                im.seek(i)
                im.load()  # WebP reads a frame's duration when it decodes it
                sizes.add(im.size)
                durations.append(im.info["duration"])
        assert len(sizes) == 1
        assert durations[:-1] == [500] * steps and durations[-1] == 3 * 500  # the outcome is held


def test_a_frame_shows_the_action_drawn_and_its_caption(run_dir: Path) -> None:
    episode = find_episodes(run_dir)[0]
    reader = EpisodeReader(episode)
    tap = next(i for i, s in enumerate(reader.steps) if (s.action or {}).get("type") == "tap")
    frames = list(animation.episode_frames(episode, width=reader.episode.screen_size[0]))  # type: ignore[index]
    img, _ = frames[tap]
    x, y = reader.steps[tap].action["x"], reader.steps[tap].action["y"]  # type: ignore[index]
    ring = [img.getpixel((x + dx, y)) for dx in range(-40, 41)]
    assert any(r > 180 and g < 80 and b < 80 for r, g, b in ring)  # the red circle around the touch point
    plain = reader.screen(tap)
    assert plain is not None and img.crop((0, 0, *plain.size)) != plain
    band = img.crop((0, plain.height, img.width, img.height))
    assert len(band.getcolors(1 << 16) or []) > 2  # text on the caption band, not a blank band


def test_mp4_without_an_encoder_says_which_package_to_install(run_dir: Path, monkeypatch: pytest.MonkeyPatch,
                                                              tmp_path: Path) -> None:
    monkeypatch.setattr(animation, "ENCODERS", ("no_such_encoder_module",))
    result = CliRunner().invoke(app, ["export", str(find_episodes(run_dir)[0]), "-f", "mp4", "-o",
                                      str(tmp_path / "a.mp4")])
    assert "pip install imageio-ffmpeg" in str(result.exception)
    assert not (tmp_path / "a.mp4").exists()


@pytest.mark.skipif(animation.mp4_encoder() is None, reason="neither imageio-ffmpeg nor av is installed")
def test_mp4_is_written_where_an_encoder_is_installed(run_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "a.mp4"
    _export(str(find_episodes(run_dir)[0]), "-f", "mp4", "-o", str(out))
    assert out.read_bytes()[4:8] == b"ftyp"


# --- jsonl ------------------------------------------------------------------------------------------


def test_jsonl_of_a_run_has_one_line_per_step_and_reads_back(run_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    _export(str(run_dir), "--format", "jsonl", "--out", str(out))
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    episodes = find_episodes(run_dir)
    assert len(lines) == sum(len(EpisodeReader(d).steps) for d in episodes)
    by_episode: dict[str, list[dict[str, object]]] = {}
    for line in lines:
        by_episode.setdefault(str(line["episode"]), []).append(line)
    assert len(by_episode) == len(episodes)
    for d in episodes:
        reader = EpisodeReader(d)
        mine = by_episode[d.relative_to(run_dir).as_posix()]
        assert [m["step_index"] for m in mine] == [s.index for s in reader.steps]
        assert [m["is_last"] for m in mine] == [False] * (len(mine) - 1) + [True]
        for m, s in zip(mine, reader.steps, strict=True):
            assert m["task_id"] == reader.episode.task and m["instruction"] == reader.episode.instruction
            assert (run_dir / str(m["screen"])).is_file() and (run_dir / str(m["screen_after"])).is_file()
            assert m["action_guilens"] == s.action and m["action"] == common_action(s.action)
            assert m["action"]["action_type"] != "unknown"  # type: ignore[index]
            assert m["outcome"] == {"status": "success", "success": True, "decided_by": "judge:rules",
                                    "final_answer": reader.episode.final_answer}
        assert mine[-1]["screen_after"] == (d.relative_to(run_dir) / str(reader.episode.final_screen)).as_posix()


def test_jsonl_of_one_episode_has_paths_relative_to_it(run_dir: Path, tmp_path: Path) -> None:
    episode = find_episodes(run_dir)[0]
    out = tmp_path / "one.jsonl"
    _export(str(episode), "-f", "jsonl", "-o", str(out))
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == len(EpisodeReader(episode).steps)
    assert lines[0]["episode"] == "." and lines[0]["screen"] == "screens/0000.png"
    assert all((episode / line["screen"]).is_file() for line in lines)


COMMON = [
    ({"type": "tap", "x": 10, "y": 20}, {"action_type": "click", "coordinate": [10, 20]}),
    ({"type": "long_press", "x": 1, "y": 2, "duration_ms": 900},
     {"action_type": "long_press", "coordinate": [1, 2], "duration_ms": 900}),
    ({"type": "swipe", "x1": 1, "y1": 2, "x2": 3, "y2": 4, "duration_ms": 300},
     {"action_type": "swipe", "coordinate": [1, 2], "coordinate2": [3, 4], "duration_ms": 300}),
    ({"type": "scroll", "direction": "down"}, {"action_type": "scroll", "direction": "down"}),
    ({"type": "scroll", "direction": "left", "x": 5, "y": 6},
     {"action_type": "scroll", "direction": "left", "coordinate": [5, 6]}),
    ({"type": "type", "text": "hi"}, {"action_type": "type", "text": "hi"}),
    ({"type": "type", "text": "new", "clear": True}, {"action_type": "type", "text": "new", "clear": True}),
    ({"type": "type", "text": "", "clear": True}, {"action_type": "type", "text": "", "clear": True}),
    ({"type": "key", "key": "back"}, {"action_type": "navigate_back"}),
    ({"type": "key", "key": "home"}, {"action_type": "navigate_home"}),
    ({"type": "key", "key": "enter"}, {"action_type": "keyboard_enter"}),
    ({"type": "key", "key": "delete"}, {"action_type": "key", "key": "delete"}),
    ({"type": "key", "key": "recent"}, {"action_type": "key", "key": "recent"}),
    ({"type": "open_app", "app": "notes"}, {"action_type": "open_app", "app_name": "notes"}),
    ({"type": "wait", "seconds": 2.0}, {"action_type": "wait", "seconds": 2.0}),
    ({"type": "ask_user", "question": "Which one?"}, {"action_type": "ask_user", "text": "Which one?"}),
    ({"type": "answer", "text": "42"}, {"action_type": "answer", "text": "42"}),
    ({"type": "finish", "status": "success"}, {"action_type": "status", "goal_status": "complete"}),
    ({"type": "finish", "status": "failure"}, {"action_type": "status", "goal_status": "infeasible"}),
    ({"type": "tap", "target": "Save"}, {"action_type": "click", "target": "Save"}),
]


@pytest.mark.parametrize(("guilens_action", "expected"), COMMON, ids=lambda v: json.dumps(v)[:40])
def test_every_action_has_a_common_form(guilens_action: dict[str, object], expected: dict[str, object]) -> None:
    ACTION_ADAPTER.validate_python(guilens_action)  # each case is a real guilens action
    assert common_action(guilens_action) == expected


def test_the_cases_cover_every_action_type() -> None:
    from guilens.actions import ACTION_TYPES, KEYS

    assert {a["type"] for a, _ in COMMON} == set(ACTION_TYPES)
    assert {a["key"] for a, _ in COMMON if a["type"] == "key"} >= set(KEYS) - {"menu"}


# --- errors: one line each, exit status 2 -------------------------------------------------------------


def test_mistakes_are_one_line_and_exit_2(run_dir: Path, tmp_path: Path) -> None:
    episode = find_episodes(run_dir)[0]
    a_file = tmp_path / "plain.txt"
    a_file.write_text("x")
    empty = tmp_path / "empty"
    empty.mkdir()
    cases = [
        (["export", str(run_dir), "-f", "gif"], [str(run_dir), "not an episode directory", "attempt-1"]),
        (["export", str(empty), "-f", "memgui"], [str(empty), "not a run directory"]),
        (["export", str(episode), "-f", "memgui"], ["an episode directory", "exports a run"]),
        (["export", str(empty), "-f", "jsonl"], ["neither an episode nor a run"]),
        (["export", str(tmp_path / "nope"), "-f", "gif"], ["no such file or directory"]),
        (["export", str(episode), "-f", "avi"], ["--format 'avi'", "gif, webp, mp4, jsonl, memgui, golden"]),
        (["export", str(episode), "-f", "gif", "-o", str(a_file / "x.gif")], ["--out", "is a file, not a folder"]),
        (["export", str(episode), "-f", "gif", "--fps", "0", "-o", str(tmp_path / "f.gif")], ["--fps 0"]),
        (["export", str(episode), "-f", "webp", "--width", "5", "-o", str(tmp_path / "w.webp")], ["--width 5"]),
    ]
    for args, needles in cases:
        result = guilens(*args)
        assert result.returncode == 2, (args, result.stderr)
        assert_one_error_line(result.stderr, *needles)
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert not (tmp_path / "f.gif").exists() and not (tmp_path / "w.webp").exists()


def test_mp4_without_an_encoder_is_one_line_and_exit_2(run_dir: Path, tmp_path: Path) -> None:
    if animation.mp4_encoder() is not None:
        pytest.skip("an encoder is installed here")
    result = guilens("export", str(find_episodes(run_dir)[0]), "-f", "mp4", "-o", str(tmp_path / "a.mp4"))
    assert result.returncode == 2
    assert_one_error_line(result.stderr, "--format mp4", "pip install imageio-ffmpeg")


def test_out_may_be_a_folder_and_defaults_to_a_name_of_the_episode(run_dir: Path, tmp_path: Path) -> None:
    episode = find_episodes(run_dir)[0]
    _export(str(episode), "-f", "webp", "-o", str(tmp_path))
    assert (tmp_path / f"{episode.parent.name}-attempt-1.webp").is_file()
    result = guilens("export", str(run_dir), "-f", "jsonl", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / f"{run_dir.name}.jsonl").is_file()
