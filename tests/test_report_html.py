"""The HTML report as a viewer: the episode table's controls, each episode's trajectory with every
step's screen (action drawn), the judge's stages, the new plots, the sizes, and the pool."""

from __future__ import annotations

import base64
import io
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageStat

from guilens.judge.html import episode_ids, render_html, write_html
from guilens.judge.html_assets import ScreenJob, render_screen, render_screens, workers_for
from guilens.judge.html_charts import attempt_grid, cost_bars, milestone_reach, steps_vs_golden
from guilens.judge.pipeline import judge_path
from guilens.judge.report import load_report
from tests.judge_helpers import make_run, note_failure, note_success, record


class Page(HTMLParser):
    """The page's elements by id, every image, and which section each image sits in."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: dict[str, dict[str, str]] = {}
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.imgs: list[tuple[str, str, dict[str, str]]] = []  # (section id, step id, attrs)
        self._section = ""
        self._step = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        d = {k: v or "" for k, v in attrs}
        self.tags.append((tag, d))
        if "id" in d:
            self.ids[d["id"]] = {"tag": tag, **d}
        if tag == "section":
            self._section = d.get("id", "")
        if "step" in d.get("class", "").split():
            self._step = d.get("id", "")
        if tag == "img" and "thumb" in d.get("class", ""):
            self.imgs.append((self._section, self._step, d))


def webp(uri: str) -> Image.Image:
    head, data = uri.split(",", 1)
    assert head == "data:image/webp;base64"
    img = Image.open(io.BytesIO(base64.b64decode(data)))
    assert img.format == "WEBP"
    return img


@pytest.fixture
def run(tmp_path: Path) -> Path:
    run = make_run(tmp_path)
    note_failure(run, attempt=1)
    note_success(run, attempt=2)
    record(run, "price", [["Shop"], ["ASICS Gel", "89.99"], ["ASICS Gel"]],
           [{"type": "swipe", "x1": 270, "y1": 900, "x2": 270, "y2": 300}, {"type": "answer", "text": "It costs 89.99"}],
           final_answer="It costs 89.99", final_state={}, asks={0: ("Which brand?", "ASICS")})
    (run / "run.json").write_text(json.dumps({"run_id": "run-1", "agent": "test", "k": 2}))
    judge_path(run, ["rules"])
    return run


def page_of(run: Path, tmp_path: Path) -> tuple[str, Page]:
    text = render_html(load_report(run), tmp_path / "report.html", workers=0)
    p = Page()
    p.feed(text)
    return text, p


def test_the_episode_table_sorts_and_filters(run: Path, tmp_path: Path) -> None:
    text, p = page_of(run, tmp_path)
    assert "sortable" in p.ids["episodes"]["class"] and p.ids["episodes"]["tag"] == "table"
    assert p.ids["filter"]["tag"] == "input" and p.ids["outcome"]["tag"] == "select"
    options = {d["value"] for t, d in p.tags if t == "option"}
    assert options == {"", "success", "failure", "undecided"}
    rows = [d for t, d in p.tags if t == "tr" and "data-outcome" in d]
    assert sorted(r["data-outcome"] for r in rows) == ["failure", "success", "success"]
    script = text.split("<script>")[1].split("</script>")[0]
    for needle in ("table.sortable", "'filter'", "'outcome'", "dataset.outcome", "showModal", "dataset.full"):
        assert needle in script, needle
    # offline: nothing is fetched; the only links are anchors and the relative episode folders
    assert "https://" not in text and not re.search(r'src="(?!data:image/webp;base64,)', text)
    hrefs = [d["href"] for t, d in p.tags if t == "a"]
    assert all(h.startswith("#") or (tmp_path / h).exists() for h in hrefs)
    assert {"#ep-note-1", "#ep-note-2", "#ep-price-1"} <= set(hrefs)


def test_every_step_has_its_thumbnail_with_the_action_drawn(run: Path, tmp_path: Path) -> None:
    text, p = page_of(run, tmp_path)
    rep = load_report(run)
    for row, eid in zip(rep.rows, episode_ids(rep.rows), strict=True):
        assert p.ids[eid]["tag"] == "section"
        steps = {s for sec, s, _ in p.imgs if sec == eid}
        assert steps == {f"{eid}-s{i}" for i in range(row.record.steps)} | {f"{eid}-final"}, eid
    # The tap of note attempt 1, step 1: the page's thumbnail is the screen with the action drawn on it.
    shot = run / "note/attempt-1/screens/0000.png"
    (thumb,) = [d for sec, s, d in p.imgs if s == "ep-note-1-s0"]
    drawn, bare = render_screen(ScreenJob(shot, {"type": "tap", "x": 270, "y": 95})), render_screen(ScreenJob(shot))
    assert thumb["src"] == drawn.thumb_uri() and drawn.thumb != bare.thumb
    big = webp(thumb["data-full"]).convert("RGB")
    assert big.width == 540
    # the red circle and the green square around the tap point (270, 95 on a 540-wide screen; the square is 100 px across)
    raw = big.crop((210, 35, 331, 156)).tobytes()
    near = [(raw[i], raw[i + 1], raw[i + 2]) for i in range(0, len(raw), 3)]
    assert any(r > 180 and g < 90 and b < 90 for r, g, b in near)
    assert any(g > 140 and r < 90 and b < 120 for r, g, b in near)
    assert "action 0" in text and "<b>asked</b> Which brand?" in text and "ASICS" in text


def test_judge_stages_and_milestones_are_shown_per_episode(run: Path, tmp_path: Path) -> None:
    text, _ = page_of(run, tmp_path)
    rep = load_report(run)
    for row, eid in zip(rep.rows, episode_ids(rep.rows), strict=True):
        section = text.split(f'<section class="episode" id="{eid}">')[1].split("</section>")[0]
        assert row.verdict is not None
        for stage in row.verdict.stages:
            assert f"<td>{stage.stage}</td>" in section
            assert stage.reason.replace("'", "&#x27;").replace('"', "&quot;") in section
            if stage.steps:
                assert f'href="#{eid}-s{stage.steps[0]}"' in section or f'href="#{eid}-final"' in section
    note2 = text.split('id="ep-note-2">')[1].split("</section>")[0]
    assert "milestone <b>editor</b>" in note2 and "milestone <b>saved</b>" in note2 and "reached" in note2


def test_the_new_plots_are_well_formed(run: Path, tmp_path: Path) -> None:
    text, _ = page_of(run, tmp_path)
    overview = text.split('<div id="overview">')[1].split('<section')[0]
    svgs = ["<svg" + c.split("</svg>")[0] + "</svg>" for c in overview.split("<svg")[1:]]
    assert len(svgs) == 10  # the failure modes' chart is the tenth
    for s in svgs:
        ET.fromstring(s)
    for title in ("Steps against golden", "Cost by task", "Task × attempt", "Milestone reach by position"):
        assert f'aria-label="{title}' in overview, title
    grid = next(s for s in svgs if "Task × attempt" in s)
    assert grid.count("<rect x=") >= 3 and 'href="#ep-note-2"' in grid and "#d93025" in grid  # note 1 failed
    for svg in (steps_vs_golden("s", []), cost_bars("c", [("a", 0.0, 0.0)]), attempt_grid("g", [], 1, {}),
                milestone_reach("m", []), steps_vs_golden("s", [("a", 3, 40, None)])):
        ET.fromstring(svg)
    assert "nothing cost" in cost_bars("c", [])


def test_sizes_and_the_pool_give_the_same_images(run: Path) -> None:
    jobs = [ScreenJob(p, {"type": "tap", "x": 100, "y": 200}) for p in sorted(run.glob("*/attempt-*/screens/*.png"))]
    serial, pooled = render_screens(jobs, workers=0), render_screens(jobs, workers=2)
    assert [(i.thumb, i.full) for i in serial] == [(i.thumb, i.full) for i in pooled]
    for img in serial:
        assert not img.error and 0 < len(img.thumb) < 8_000 and 0 < len(img.full) < 30_000
    assert workers_for(3) == 0 and workers_for(400) >= 1


def test_a_missing_or_broken_screen_is_said_not_raised(run: Path, tmp_path: Path) -> None:
    (run / "note/attempt-1/screens/0001.png").unlink()
    (run / "note/attempt-2/screens/0002.png").write_bytes(b"not a png")
    out = write_html(load_report(run), tmp_path / "r.html", workers=0)
    text = out.read_text()
    assert "0001.png: missing" in text and "0002.png: unreadable" in text


def test_episode_ids_name_the_scenario_only_where_a_task_recurs(tmp_path: Path) -> None:
    rep = load_report(make_run(tmp_path))
    assert episode_ids(rep.rows) == []
    run = make_run(tmp_path, "r2")
    note_success(run)
    rows = load_report(run).rows
    assert episode_ids(rows) == ["ep-note-1"]
    twin = rows[0].__class__(**{**rows[0].__dict__, "record": rows[0].record.__class__(
        **{**rows[0].record.__dict__, "scenario": "other"})})
    assert episode_ids([rows[0], twin]) == ["ep-judgepack-note-1", "ep-other-note-1"]


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _guilens(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")}
    env["GUILENS_CONFIG_FILE"] = "/nonexistent/guilens.toml"
    return subprocess.run([sys.executable, "-m", "guilens", *args], capture_output=True, text=True, env=env,
                          timeout=600)


def _screenshot(url: str, png: Path) -> Image.Image:
    assert CHROMIUM is not None
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    "--force-device-scale-factor=1", f"--screenshot={png}", "--window-size=1280,2000", url],
                   capture_output=True, timeout=120, check=True)
    return Image.open(png).convert("RGB")


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="needs chromium")
def test_a_judged_memory_pack_in_a_browser_shows_the_thumbnails(tmp_path: Path) -> None:
    out = _guilens("run", "memory", "--agent", "oracle", "--headless", "--out", str(tmp_path / "runs"))
    assert out.returncode == 0, out.stderr
    (run,) = [d for d in (tmp_path / "runs").iterdir() if d.is_dir()]
    assert _guilens("judge", str(run), "--rules-only").returncode == 0
    html_file = tmp_path / "report.html"
    rep = _guilens("report", str(run), "--html", str(html_file))
    assert rep.returncode == 0, rep.stderr
    size = html_file.stat().st_size
    assert size < 20_000_000, f"{size / 1e6:.1f} MB"  # the 26-task pack: ~8.7 MB measured
    text = html_file.read_text()
    row = next(r for r in load_report(run).rows if r.record.steps >= 6)
    eid = episode_ids([row])[0]
    assert f'id="{eid}"' in text

    shown = _screenshot(f"{html_file.as_uri()}#{eid}", tmp_path / "shown.png")
    # The same page with the thumbnails laid out but not painted: what differs is the thumbnails.
    blank_file = tmp_path / "blank.html"
    blank_file.write_text(text.replace("</style>", ".thumb{visibility:hidden}</style>", 1))
    blank = _screenshot(f"{blank_file.as_uri()}#{eid}", tmp_path / "blank.png")
    diff = ImageChops.difference(shown, blank).convert("L").point(lambda v: 255 if v > 24 else 0)
    box = diff.getbbox()
    assert box is not None, "no thumbnail painted: the episode is not shown, or its screens are blank"
    # Where they differ is the thumbnails: a column or two of steps (the grid), each band at most a
    # thumbnail wide, several steps down, with a phone screen's worth of detail in each.
    cols = [x for x in range(diff.width) if diff.crop((x, 0, x + 1, diff.height)).getbbox()]
    bands = [[cols[0]]]
    for x in cols[1:]:
        if x == bands[-1][-1] + 1:
            bands[-1].append(x)
        else:
            bands.append([x])
    assert 1 <= len(bands) <= 3 and all(len(b) <= 184 for b in bands), [(b[0], b[-1]) for b in bands]
    assert box[3] - box[1] > 2 * 400, box  # at least two rows of steps painted
    assert diff.histogram()[255] > 4 * 2000
    assert max(ImageStat.Stat(shown.crop(box)).stddev) > 20  # real screens, not flat boxes


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="needs chromium")
def test_the_script_sorts_filters_and_enlarges_in_a_browser(run: Path, tmp_path: Path) -> None:
    text, _ = page_of(run, tmp_path)
    drive = """<script>
const th=[...document.querySelectorAll('#episodes th')].find(h=>h.textContent==='steps');th.click();th.click();
document.body.dataset.order=[...document.querySelectorAll('#episodes tbody tr')].map(r=>r.cells[4].textContent).join(',');
const f=document.getElementById('filter');f.value='price';f.dispatchEvent(new Event('input'));
document.body.dataset.hidden=[...document.querySelectorAll('#episodes tbody tr')].filter(r=>r.hidden).length;
document.querySelector('#ep-note-1-s0 img.thumb').click();
document.body.dataset.zoom=document.getElementById('zoom').open+' '+document.querySelector('#zoom img').src.slice(0,22);
</script></body>"""
    page = tmp_path / "driven.html"
    page.write_text(text.replace("</body>", drive, 1))
    assert CHROMIUM is not None
    dom = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    body = re.search(r"<body([^>]*)>", dom)
    assert body is not None
    attrs = dict(re.findall(r'data-(\w+)="([^"]*)"', body.group(1)))
    assert attrs["order"] == "3/3,3/3,2/4"  # sorted by steps, descending after the second click
    assert attrs["hidden"] == "2" and 'id="shown">1<' in dom  # only the price episode is left
    assert attrs["zoom"] == "true data:image/webp;base64"
