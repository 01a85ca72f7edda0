"""Importing MemGUI-Bench's task table as a scenario for real devices.

MemGUI-Bench runs on real apps (Amazon, Joplin, Bing, ...), so nothing can be
checked by rules: success and milestones are left to the LLM judge. Each task
gets its instruction (L0 only; the benchmark has no ambiguity levels), apps,
categories, memory flag, golden steps, difficulty, the benchmark's step budget
floor(1.4 x golden + 1), its mirror partner (tasks come in numbered pairs), and
milestones cut from the instruction's sentences so the milestone judge has
sub-targets to look for. A bad row is reported by its line and id; every bad
row is reported, not just the first.
"""

from __future__ import annotations

import ast
import csv
import re
from pathlib import Path
from typing import Any

import yaml

from guilens.scenarios.errors import Problem, ScenarioError
from guilens.scenarios.model import ID_PATTERN, Scenario, budget_for

COLUMNS = (
    "task_identifier", "task_description", "task_app", "num_apps", "is_cross_app", "category",
    "requires_ui_memory", "golden_steps", "task_difficulty",
)
OPTIONAL_COLUMNS = ("shortcut_potential", "output_type", "task_language")

_SENTENCE = re.compile(r"(?<=[.!?])[\"']?\s+(?=[A-Z\"'])")
_THEN = re.compile(r",\s+(?:and\s+)?then,?\s+|;\s+then,?\s+|\.\s+then,?\s+", re.I)
_NOT_A_TARGET = re.compile(r"^(remember|do not|don't|important|note:|make sure|keep in mind)\b", re.I)
_CONNECTIVE = re.compile(r"^(then|finally|first|next|after that|afterwards|lastly),?\s+", re.I)
_NO_COPY = re.compile(r"\b(do not|don't|without)\s+(using\s+|use\s+)?(the\s+)?copy", re.I)
_ANSWER = re.compile(r"\b(directly\s+answer|answer\s+(with|if|whether))\b", re.I)


def split_camel(name: str) -> str:
    """`FindProductAndFilter` -> `Find product and filter`."""
    words = re.findall(r"[A-Z]+(?=[A-Z][a-z]|\d|$)|[A-Z]?[a-z]+|\d+", name)
    if not words:
        return name
    return " ".join([words[0], *[w if w.isupper() and len(w) > 1 else w.lower() for w in words[1:]]])


def milestone_texts(instruction: str) -> list[str]:
    """Sub-targets for the LLM milestone judge: the instruction's sentences and `..., then ...` steps.

    Sentences that only tell the agent how to behave (remember this, do not
    copy) are not sub-targets and are left out.
    """
    parts: list[str] = []
    for sentence in _SENTENCE.split(" ".join(instruction.split())):
        for clause in _THEN.split(sentence):
            c = _CONNECTIVE.sub("", clause.strip().strip(",;").strip())
            if not c or _NOT_A_TARGET.match(c):
                continue
            c = c[0].upper() + c[1:]
            parts.append(c if c[-1] in ".!?\"'" else c + ".")
    return parts or [instruction.strip()]


def _listish(raw: str, what: str) -> list[str]:
    try:
        value = ast.literal_eval(raw.strip())
    except (ValueError, SyntaxError):
        raise ValueError(f"{what} {raw!r} is not a list like ['Amazon', 'joplin']") from None
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{what} {raw!r} is not a list of names")
    return [v.strip() for v in value if v.strip()]


def _int(raw: str, what: str, lo: int, hi: int | None = None) -> int:
    try:
        v = int(raw.strip())
    except ValueError:
        raise ValueError(f"{what} {raw!r} is not a whole number") from None
    if v < lo or (hi is not None and v > hi):
        raise ValueError(f"{what} {v} is out of range ({lo}..{hi if hi is not None else ''})")
    return v


def _yn(raw: str, what: str) -> bool:
    v = raw.strip().upper()
    if v not in ("Y", "N"):
        raise ValueError(f"{what} {raw!r} is not Y or N")
    return v == "Y"


def task_from_row(row: dict[str, str]) -> dict[str, Any]:
    """One CSV row as task data; raises ValueError naming the bad field."""
    tid = (row.get("task_identifier") or "").strip()
    if not re.fullmatch(ID_PATTERN, tid):
        raise ValueError(f"task_identifier {tid!r} is not a usable id (letters, digits, '-', '_', '.')")
    text = " ".join((row.get("task_description") or "").split())
    if not text:
        raise ValueError("task_description is empty")
    apps = _listish(row.get("task_app") or "", "task_app")
    if not apps:
        raise ValueError("task_app lists no app")
    n_apps = _int(row.get("num_apps") or "", "num_apps", 1)
    if n_apps != len(apps):
        raise ValueError(f"num_apps is {n_apps} but task_app lists {len(apps)}: {apps}")
    cross = _yn(row.get("is_cross_app") or "", "is_cross_app")
    if cross != (len(apps) > 1):
        raise ValueError(f"is_cross_app is {'Y' if cross else 'N'} but the task uses {len(apps)} app(s)")
    memory = _yn(row.get("requires_ui_memory") or "", "requires_ui_memory")
    golden = _int(row.get("golden_steps") or "", "golden_steps", 1)
    difficulty = _int(row.get("task_difficulty") or "", "task_difficulty", 1, 3)
    categories = _listish(row.get("category") or "[]", "category")
    name = tid.split("-", 1)[1] if "-" in tid else tid
    output_type = (row.get("output_type") or "").strip()
    task: dict[str, Any] = {
        "id": tid,
        "title": split_camel(name),
        "apps": apps,
        "instruction": {"L0": text},
        "memory": ("cross-app" if cross else "cross-temporal") if memory else "none",
        "forbid_copy": bool(_NO_COPY.search(text)),
        "difficulty": difficulty,
        "golden_steps": golden,
        "max_steps": budget_for(golden),
        "categories": categories,
        "milestones": [{"id": f"m{i + 1}", "text": t} for i, t in enumerate(milestone_texts(text))],
    }
    if output_type == "Direct Command Output" or _ANSWER.search(text):
        task["answer"] = {"judge": "The answer the instruction asks for, correct for the data the agent saw."}
    meta = {k: (row.get(k) or "").strip() for k in OPTIONAL_COLUMNS if (row.get(k) or "").strip()}
    meta["source"] = "MemGUI-Bench"
    task["meta"] = meta
    return task


def _pair_key(tid: str) -> int | None:
    m = re.match(r"^(\d+)", tid)
    return int(m[1]) if m else None


def import_memgui(csv_path: str | Path) -> Scenario:
    """Read MemGUI-Bench's task CSV into a validated scenario; bad rows raise one ScenarioError."""
    p = Path(csv_path)
    try:
        fh = p.open(newline="", encoding="utf-8-sig")
    except OSError as err:
        raise ScenarioError([Problem(file=str(p), message=f"cannot read: {err.strerror or err}")]) from None
    problems: list[Problem] = []
    tasks: list[dict[str, Any]] = []
    with fh:
        reader = csv.DictReader(fh)
        header = reader.fieldnames or []
        missing = [c for c in COLUMNS if c not in header]
        if missing:
            raise ScenarioError([Problem(file=str(p), line=1, message=(
                f"not a MemGUI-Bench task table: missing column(s) {', '.join(missing)}"
                f" (found: {', '.join(header) or 'none'})"))])
        start = reader.line_num + 1
        try:
            for row in reader:
                tid = (row.get("task_identifier") or "").strip() or "?"
                try:
                    tasks.append(task_from_row(row))
                except ValueError as err:
                    problems.append(Problem(file=str(p), line=start, task=tid, message=str(err)))
                start = reader.line_num + 1
        except csv.Error as err:
            problems.append(Problem(file=str(p), line=reader.line_num, message=f"CSV syntax: {err}"))
    seen: dict[str, int] = {}
    for t in tasks:
        if t["id"] in seen:
            problems.append(Problem(file=str(p), task=t["id"], message="duplicate task_identifier"))
        seen[t["id"]] = 1
    if problems:
        raise ScenarioError(problems)
    if not tasks:
        raise ScenarioError([Problem(file=str(p), message="no task rows")])
    by_num = {_pair_key(t["id"]): t for t in tasks}
    for t in tasks:
        n = _pair_key(t["id"])
        if n is not None and n % 2 == 0 and (partner := by_num.get(n - 1)) is not None:
            t["mirror_of"] = partner["id"]
    data = {
        "id": "memgui",
        "title": f"MemGUI-Bench ({len(tasks)} tasks)",
        "description": (
            "MemGUI-Bench's memory tasks on real Android apps, imported from its task table. "
            "Milestones and success are judged by the LLM judge; the step budget is floor(1.4 x golden + 1)."
        ),
        "kind": "tasks",
        "device": "any",
        "source": p.name,
        "tasks": tasks,
    }
    from guilens.scenarios.loader import scenario_from_data

    return scenario_from_data(data, str(p))


def scenario_yaml(scenario: Scenario) -> str:
    """A scenario as a YAML file, defaults left out, keys in model order."""
    data = scenario.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=110)
