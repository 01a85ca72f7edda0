"""The pack summary: how many tasks a pack holds, by the traits the papers break results down by.

`guilens scenarios stats` prints it and `guilens scenarios list --json` carries it, so a pack can be
measured against the benchmarks it imitates: MemGUI-Bench's tiers (Easy 1-20, Medium 21-40, Hard 41+
golden steps; its table counts tasks by tier, by memory kind and by how many apps a task spans),
AndroidLens' golden-step ranges, ScenDroid's days (a sequence's tasks and the days they fall on) and
AndroidWorld's instantiated templates.

The tier is read from the golden steps, the way MemGUI-Bench defines it, not from the `difficulty` a
file declares: the declared one is counted too (`difficulty`), and `tier_mismatches` names the tasks
where the two disagree, so a pack that calls a 25-step task easy shows it.

Template counts: a template (a task with `params:`) counts once in `tasks`; with `variants` the
summary also instantiates every template (`guilens.scenarios.params.instantiate`, which draws from
the sim's data) and counts the distinct variants it gets. Without `variants` nothing is drawn and
nothing of the sim is imported, so the summary of the cached packs stays fast.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from guilens.scenarios.model import Scenario, Task

TIERS = (("easy", 1, 20), ("medium", 21, 40), ("hard", 41, None))
"""MemGUI-Bench's tiers by golden steps."""
STEP_RANGES = ((1, 10), (11, 20), (21, 30), (31, 40), (41, 60), (61, None))
"""Golden-step ranges: tens up to the Hard threshold, then wider (MemGUI's tasks run to 160 steps)."""
DIFFICULTY = {1: "easy", 2: "medium", 3: "hard"}
APP_BUCKETS = ["1", "2", "3", "4", "5+"]


def tier_of(golden_steps: int) -> str:
    """MemGUI-Bench's tier of a task with this many golden steps."""
    for name, lo, hi in TIERS:
        if golden_steps >= lo and (hi is None or golden_steps <= hi):
            return name
    return TIERS[0][0]


def steps_range(golden_steps: int) -> str:
    for lo, hi in STEP_RANGES:
        if golden_steps >= lo and (hi is None or golden_steps <= hi):
            return f"{lo}-{hi}" if hi is not None else f"{lo}+"
    return f"{STEP_RANGES[0][0]}-{STEP_RANGES[0][1]}"


def apps_bucket(n: int) -> str:
    """MemGUI-Bench's app-crossing complexities: 1, 2, 3 and 4 apps (more counts as 5+)."""
    return str(n) if n <= 4 else "5+"


def _ordered(counts: Counter[str], order: Iterable[str]) -> dict[str, int]:
    keys = list(order)
    return {k: counts[k] for k in keys if counts[k]} | {k: v for k, v in sorted(counts.items()) if k not in keys}


@dataclass
class PackStats:
    """One pack's counts (or the total of several: `pack` is `total`)."""

    pack: str
    kind: str = "tasks"
    tasks: int = 0
    by_tier: dict[str, int] = field(default_factory=dict)
    by_difficulty: dict[str, int] = field(default_factory=dict)
    by_memory: dict[str, int] = field(default_factory=dict)
    by_apps: dict[str, int] = field(default_factory=dict)
    by_steps: dict[str, int] = field(default_factory=dict)
    mirror_pairs: int = 0
    with_alternatives: int = 0
    """Tasks with at least one alternatives node (PSPA's "choose one path")."""
    sequence_tasks: int = 0
    days: int = 0
    """Distinct days the sequences' tasks fall on (each sequence's own, summed in a total)."""
    templates: int = 0
    instantiated: int | None = None
    """Distinct tasks the templates gave at `variants`/`seed`; None when not instantiated."""
    variants: int | None = None
    seed: int | None = None
    tier_mismatches: list[str] = field(default_factory=list)
    """`task (declared medium, 45 steps: hard)`: where `difficulty` and the golden steps disagree."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "pack": self.pack, "kind": self.kind, "tasks": self.tasks, "tier_by": "golden_steps (MemGUI: 1-20, 21-40, 41+)",
            "by_tier": self.by_tier, "by_difficulty": self.by_difficulty, "by_memory": self.by_memory,
            "by_apps": self.by_apps, "by_golden_steps": self.by_steps, "mirror_pairs": self.mirror_pairs,
            "with_alternatives": self.with_alternatives, "sequence_tasks": self.sequence_tasks, "days": self.days,
            "templates": self.templates, "tier_mismatches": self.tier_mismatches,
        }
        if self.instantiated is not None:
            out["instantiated"] = {"tasks": self.instantiated, "variants": self.variants, "seed": self.seed}
        return out


def _count(tasks: list[Task]) -> dict[str, Counter[str]]:
    c: dict[str, Counter[str]] = {k: Counter() for k in ("tier", "difficulty", "memory", "apps", "steps")}
    for t in tasks:
        c["tier"][tier_of(t.golden_steps)] += 1
        c["difficulty"][DIFFICULTY.get(t.difficulty, str(t.difficulty))] += 1
        c["memory"][t.memory] += 1
        c["apps"][apps_bucket(len(set(t.apps)))] += 1
        c["steps"][steps_range(t.golden_steps)] += 1
    return c


def _instantiated(s: Scenario, variants: int, seed: int) -> int:
    """Distinct variants the pack's templates give (ParamError on a bad draw, for the caller to say)."""
    from guilens.scenarios.params import instantiate

    drawn = instantiate(s, variants, seed)
    return len({(t.meta["template"], tuple(sorted(t.meta.get("params", {}).items())))
                for t in drawn.tasks if "template" in t.meta})


def pack_stats(s: Scenario, variants: int | None = None, seed: int = 0) -> PackStats:
    """The summary of one pack; `variants` also instantiates its templates (imports the sim's data)."""
    tasks = list(s.tasks)
    c = _count(tasks)
    tier_names = [n for n, _, _ in TIERS]
    out = PackStats(
        pack=s.id, kind=s.kind, tasks=len(tasks),
        by_tier=_ordered(c["tier"], tier_names),
        by_difficulty=_ordered(c["difficulty"], tier_names),
        by_memory=_ordered(c["memory"], ["none", "cross-app", "cross-temporal"]),
        by_apps=_ordered(c["apps"], APP_BUCKETS),
        by_steps=_ordered(c["steps"], [steps_range(lo) for lo, _ in STEP_RANGES]),
        mirror_pairs=sum(1 for t in tasks if t.mirror_of),
        with_alternatives=sum(1 for t in tasks if t.alternatives()),
        templates=sum(1 for t in tasks if t.params),
        tier_mismatches=[f"{t.id} (declared {DIFFICULTY.get(t.difficulty, t.difficulty)}, {t.golden_steps} steps: "
                         f"{tier_of(t.golden_steps)})"
                         for t in tasks if DIFFICULTY.get(t.difficulty) != tier_of(t.golden_steps)],
    )
    if s.kind == "sequence":
        out.sequence_tasks = len(tasks)
        out.days = len({s.day_of(t) for t in tasks})
    if variants is not None and out.templates:
        out.instantiated, out.variants, out.seed = _instantiated(s, variants, seed), variants, seed
    return out


def total_stats(packs: list[PackStats]) -> PackStats:
    """The sum over packs: every count added, mismatches kept with their pack's name."""
    out = PackStats(pack="total", kind="all")
    for name in ("by_tier", "by_difficulty", "by_memory", "by_apps", "by_steps"):
        total: Counter[str] = Counter()
        for p in packs:
            total.update(getattr(p, name))
        setattr(out, name, {k: total[k] for k in sorted(total, key=_sort_key(name))})
    for name in ("tasks", "mirror_pairs", "with_alternatives", "sequence_tasks", "days", "templates"):
        setattr(out, name, sum(getattr(p, name) for p in packs))
    counted = [p for p in packs if p.instantiated is not None]
    if counted:
        out.instantiated = sum(p.instantiated or 0 for p in counted)
        out.variants, out.seed = counted[0].variants, counted[0].seed
    out.tier_mismatches = [f"{p.pack}:{m}" for p in packs for m in p.tier_mismatches]
    return out


def _sort_key(name: str) -> Any:
    tiers = [n for n, _, _ in TIERS]
    fixed = {
        "by_tier": tiers, "by_difficulty": tiers, "by_memory": ["none", "cross-app", "cross-temporal"],
        "by_apps": APP_BUCKETS, "by_steps": [steps_range(lo) for lo, _ in STEP_RANGES],
    }[name]
    return lambda k: (fixed.index(k) if k in fixed else len(fixed), k)


def stats_table(packs: list[PackStats], total: PackStats | None) -> list[str]:
    """The summary as text lines: one block per pack, then the total."""
    lines: list[str] = []
    for p in [*packs, *([total] if total is not None else [])]:
        head = f"{p.pack}" + (f" ({p.kind})" if p.pack != "total" else "") + f": {p.tasks} task{'s' if p.tasks != 1 else ''}"
        if p.sequence_tasks:
            head += f", {p.sequence_tasks} in sequences over {p.days} day{'s' if p.days != 1 else ''}"
        lines.append(head)

        def row(label: str, counts: dict[str, int]) -> None:
            if counts:
                lines.append(f"  {label:<22}" + "  ".join(f"{k} {v}" for k, v in counts.items()))

        row("tier (golden steps)", p.by_tier)
        row("difficulty (declared)", p.by_difficulty)
        row("memory", p.by_memory)
        row("apps", p.by_apps)
        row("golden steps", p.by_steps)
        extra = [f"mirror pairs {p.mirror_pairs}", f"with alternatives {p.with_alternatives}", f"templates {p.templates}"]
        if p.instantiated is not None:
            extra.append(f"distinct instantiated {p.instantiated} (--variants {p.variants} --seed {p.seed})")
        lines.append("  " + "  ".join(extra))
        if p.tier_mismatches:
            lines.append(f"  tier differs from difficulty: {', '.join(p.tier_mismatches)}")
    return lines
