"""Deciding checks, milestones and success by rules.

The runner feeds one `CheckContext` per step (live), the judge feeds the ones it
rebuilds from recorded UI trees, the final state and the answer (replay); both
get the same decisions. A check that cannot be decided from what the context
holds (a sim-state check on a real phone, a screen check without a UI tree)
says so with `ok=None` instead of guessing, and the judge's LLM stages take over.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from guilens.device.uitree import UINode, find_nodes, visible_texts
from guilens.scenarios.spec_checks import (
    AllCheck,
    AnswerCheck,
    AnswerExpect,
    AnyCheck,
    AppCheck,
    ElementCheck,
    NotCheck,
    ScreenTextCheck,
    StateCheck,
)

if TYPE_CHECKING:
    from guilens.device.base import Observation
    from guilens.scenarios.model import Milestone, Task, ValueSource

_NUM = re.compile(r"-?\d[\d,]*(?:\.\d+)?|-?\.\d+")


@dataclass
class CheckContext:
    """What a check may look at, for one moment of an episode."""

    ui: UINode | None = None
    app: str | None = None
    """The foreground app (sim app id or Android package)."""
    state: dict[str, Any] | None = None
    """The device's app state (sim only)."""
    answer: str | None = None
    """The agent's answer so far (the text of its `answer` action)."""
    texts: list[str] | None = None
    """Visible texts when there is no UI tree (OCR, a recorded description)."""

    @classmethod
    def from_observation(
        cls, obs: Observation, *, state: dict[str, Any] | None = None, answer: str | None = None
    ) -> CheckContext:
        return cls(ui=obs.ui, app=obs.app, state=state, answer=answer)

    def screen_texts(self) -> list[str] | None:
        if self.ui is not None:
            return visible_texts(self.ui)
        return self.texts


@dataclass(frozen=True)
class CheckResult:
    """`ok` is True or False when rules decide, None when they cannot; `reason` says why."""

    ok: bool | None
    reason: str = ""

    def __bool__(self) -> bool:
        return self.ok is True


def evaluate(check: Any, ctx: CheckContext) -> CheckResult:
    """Decide one check (any kind, combinators included) against a context."""
    match check:
        case ScreenTextCheck():
            return _screen_text(check, ctx)
        case ElementCheck():
            return _element(check, ctx)
        case AppCheck():
            return _app(check, ctx)
        case StateCheck():
            return _state(check, ctx)
        case AnswerCheck():
            return answer_meets(check.answer, ctx.answer)
        case AllCheck():
            return _combine([evaluate(c, ctx) for c in check.all], need_all=True)
        case AnyCheck():
            return _combine([evaluate(c, ctx) for c in check.any], need_all=False)
        case NotCheck():
            r = evaluate(check.not_, ctx)
            if r.ok is None:
                return r
            return CheckResult(not r.ok, f"not ({r.reason})")
    raise TypeError(f"not a check: {check!r}")


def _combine(results: list[CheckResult], *, need_all: bool) -> CheckResult:
    decided = [r for r in results if r.ok is not None]
    if need_all:
        failed = [r for r in decided if not r.ok]
        if failed:
            return CheckResult(False, failed[0].reason)
        if len(decided) < len(results):
            return CheckResult(None, next(r.reason for r in results if r.ok is None))
        return CheckResult(True, "; ".join(r.reason for r in results))
    passed = [r for r in decided if r.ok]
    if passed:
        return CheckResult(True, passed[0].reason)
    if len(decided) < len(results):
        return CheckResult(None, next(r.reason for r in results if r.ok is None))
    return CheckResult(False, " and ".join(r.reason for r in results))


def norm(s: Any) -> str:
    """Case- and space-insensitive form of a text (numbers as written without a trailing .0)."""
    return " ".join(num_text(s).split()).casefold()


def num_text(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def numbers_in(v: Any) -> list[float]:
    """Every number written in a value: `$1,234.50 (2 items)` gives [1234.5, 2.0]."""
    if isinstance(v, bool):
        return []
    if isinstance(v, int | float):
        return [float(v)]
    out = []
    for m in _NUM.findall(str(v)):
        try:
            out.append(float(m.replace(",", "")))
        except ValueError:
            continue
    return out


def as_number(v: Any) -> float | None:
    nums = numbers_in(v)
    return nums[0] if nums else None


# --- screen ----------------------------------------------------------------------------------


def _screen_text(check: ScreenTextCheck, ctx: CheckContext) -> CheckResult:
    texts = ctx.screen_texts()
    if texts is None:
        return CheckResult(None, "no UI tree or screen text to look at")
    want = norm(check.screen_text)
    hit = any((norm(t) == want) if check.exact else (want in norm(t)) for t in texts)
    return CheckResult(hit, f"{'' if hit else 'no '}text {check.screen_text!r} on screen")


def _element(check: ElementCheck, ctx: CheckContext) -> CheckResult:
    if ctx.ui is None:
        return CheckResult(None, "no UI tree to look at")
    nodes = [n for n in select(ctx.ui, check.element) if n.area > 0]
    if not nodes:
        return CheckResult(False, f"no element {check.element!r} on screen")
    wants = {a: getattr(check, a) for a in ("checked", "selected", "focused", "enabled") if getattr(check, a) is not None}
    for node in nodes:
        if check.text is not None and norm(check.text) not in norm(node.all_text()):
            continue
        if all(_has_state(node, attr) == want for attr, want in wants.items()):
            return CheckResult(True, f"element {check.element!r} {_describe_state(wants)}".rstrip())
    detail = f" with text {check.text!r}" if check.text is not None else ""
    return CheckResult(False, f"element {check.element!r}{detail} is not {_describe_state(wants)}".rstrip())


def select(root: UINode, selector: str) -> list[UINode]:
    """`find_nodes`, except that `id:x` means exactly that id (a `title` is not a `note_title`)."""
    kind, _, value = selector.partition(":")
    if kind == "id" and value:
        want = value.casefold()
        return [n for n in root.iter() if n.resource_id and want in (n.resource_id.casefold(), n.short_id.casefold())]
    return find_nodes(root, selector)


def _has_state(node: UINode, attr: str) -> bool:
    """A state flag on the node, or on an ancestor up to the one a tap would land on.

    A label inside a selected tab or a checked row carries no flag itself; the
    container does.
    """
    cur: UINode | None = node
    while cur is not None:
        if getattr(cur, attr):
            return True
        if cur.actionable:
            break
        cur = cur.parent
    if attr == "enabled":
        return node.enabled
    return False


def _describe_state(wants: dict[str, bool]) -> str:
    return ", ".join(a if v else f"not {a}" for a, v in wants.items()) or "present"


def app_matches(want: str, app: str | None) -> bool:
    """`notes` matches the sim's `notes`, a launcher label `Notes`, or a package `com.x.notes`."""
    if not app:
        return False
    w, a = want.casefold(), app.casefold()
    return w == a or a.rsplit(".", 1)[-1] == w or w.rsplit(".", 1)[-1] == a


def _app(check: AppCheck, ctx: CheckContext) -> CheckResult:
    if ctx.app is None:
        return CheckResult(None, "the foreground app is unknown")
    ok = app_matches(check.app, ctx.app)
    return CheckResult(ok, f"foreground app is {ctx.app}" + ("" if ok else f", not {check.app}"))


# --- state -----------------------------------------------------------------------------------

_MISSING = object()


def resolve_path(root: Any, path: str) -> Any:
    """Follow a dotted path (`notes.notes.0.title`) into JSON-like data; `_MISSING` when absent.

    A name applied to a list maps over its items and flattens one level, so
    `messages.text` is every message's text and `threads.messages.text` every
    text of every thread.
    """
    cur = root
    for part in path.split(".") if path else []:
        if isinstance(cur, dict):
            if part not in cur:
                return _MISSING
            cur = cur[part]
        elif isinstance(cur, list) and re.fullmatch(r"-?\d+", part):
            i = int(part)
            if not -len(cur) <= i < len(cur):
                return _MISSING
            cur = cur[i]
        elif isinstance(cur, list):
            out: list[Any] = []
            for item in cur:
                v = resolve_path(item, part)
                if v is _MISSING:
                    continue
                out += v if isinstance(v, list) else [v]
            cur = out
        else:
            return _MISSING
    return cur


def resolve_state(state: dict[str, Any], path: str) -> Any:
    """A state path: from an app id (`notes.notes`, read under the sim's `apps`), from a top-level
    key (`screen`, `route.id`), or `phone.` + a top-level key where an app shares its name
    (`phone.clock` is the time, `clock.alarms` the Clock app's alarms)."""
    head, _, rest = path.partition(".")
    if head == "phone":
        return resolve_path(state, rest)
    apps = state.get("apps")
    if isinstance(apps, dict) and head in apps:
        return resolve_path(apps, path)
    return resolve_path(state, path)


def values_equal(a: Any, b: Any, tolerance: float = 0.0) -> bool:
    """Equality the way a person means it: numbers within tolerance, texts ignoring case and spacing."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b or (isinstance(b, str) and norm(b) == str(a).lower()) or (
            isinstance(a, str) and norm(a) == str(b).lower())
    pa, pb = _phone(a), _phone(b)
    if pa and pb:
        return pa.endswith(pb) or pb.endswith(pa)
    na, nb = _plain_number(a), _plain_number(b)
    if na is not None and nb is not None:
        return abs(na - nb) <= tolerance + 1e-9
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(values_equal(x, y, tolerance) for x, y in zip(a, b, strict=True))
    return norm(a) == norm(b)


_PHONE = re.compile(r"\+?[\d\s().-]{7,}")


def _phone(v: Any) -> str | None:
    """The digits of a phone number written any way (`+1 415 555 0199`, `(415) 555-0199`), else None."""
    if isinstance(v, str) and _PHONE.fullmatch(v.strip()) and (" " in v or "-" in v or "+" in v or "(" in v):
        d = re.sub(r"\D", "", v)
        return d if len(d) >= 7 else None
    return None


def _plain_number(v: Any) -> float | None:
    """A value that *is* a number (42, 42.5, "42.50", "$42.50"), not a text with one in it."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int | float):
        return float(v)
    if isinstance(v, str) and re.fullmatch(r"\s*[$€£]?\s*-?[\d,]*\.?\d+\s*", v):
        return as_number(v)
    return None


def filter_items(items: list[Any], where: dict[str, Any]) -> list[Any]:
    return [it for it in items if all(values_equal(resolve_path(it, k), v) for k, v in where.items())]


def _state(check: StateCheck, ctx: CheckContext) -> CheckResult:
    if ctx.state is None:
        return CheckResult(None, "no app state on this device")
    found = resolve_state(ctx.state, check.state)
    if found is _MISSING:
        ok = check.op == "missing"
        return CheckResult(ok, f"{check.state} does not exist")
    items = found if isinstance(found, list) else [found]
    if check.where:
        items = filter_items(items, check.where)
    label = check.state + (f"[{_where_text(check.where)}]" if check.where else "")
    if check.op == "count":
        n, want = len(items), as_number(check.value)
        return CheckResult(want is not None and n == want, f"{label} has {n} item(s), want {num_text(check.value)}")
    values = [resolve_path(it, check.field) if check.field else it for it in items]
    what = f"{label}.{check.field}" if check.field else label
    present = [v for v in values if v is not _MISSING and v is not None and v != ""]
    if check.op == "exists":
        return CheckResult(bool(present), f"{what} {'exists' if present else 'is missing'}")
    if check.op == "missing":
        return CheckResult(not present, f"{what} {'exists' if present else 'is missing'}")
    if not values:
        return CheckResult(check.quantifier == "none", f"nothing matches {label}")
    hits = [_op(check, v) for v in values]
    ok = any(hits) if check.quantifier == "any" else all(hits) if check.quantifier == "all" else not any(hits)
    shown = ", ".join(repr(v) if v is not _MISSING else "(none)" for v in values[:3]) + (" ..." if len(values) > 3 else "")
    return CheckResult(ok, f"{what} is {shown}; want {check.quantifier} {check.op} {_value_text(check.value)}")


def _where_text(where: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in where.items())


def _value_text(v: Any) -> str:
    return repr(num_text(v)) if not isinstance(v, list) else repr([num_text(x) for x in v])


def _op(check: StateCheck, v: Any) -> bool:
    if v is _MISSING:
        return False
    want, op = check.value, check.op
    if op == "equals":
        return values_equal(v, want, check.tolerance)
    if op == "not_equals":
        return not values_equal(v, want, check.tolerance)
    if op in ("contains", "not_contains"):
        if isinstance(v, list):
            hit = any(values_equal(x, want) or (isinstance(x, str) and norm(want) in norm(x)) for x in v)
        elif isinstance(v, dict):
            hit = any(norm(want) in norm(x) for x in v.values())
        else:
            hit = norm(want) in norm(v)
        return hit if op == "contains" else not hit
    if op == "contains_all":
        return text_contains_all(_as_text(v), list(want), ordered=check.ordered)
    if op == "approx":
        target = as_number(want)
        return target is not None and any(abs(n - target) <= check.tolerance + 1e-9 for n in numbers_in(v))
    if op in ("gt", "gte", "lt", "lte"):
        got, target = as_number(v), as_number(want)
        if got is None or target is None:
            return False
        return {"gt": got > target, "gte": got >= target, "lt": got < target, "lte": got <= target}[op]
    if op == "matches":
        return re.search(str(want), _as_text(v), re.IGNORECASE) is not None
    raise ValueError(f"unknown op {op}")


def _as_text(v: Any) -> str:
    if isinstance(v, list):
        return "\n".join(_as_text(x) for x in v)
    if isinstance(v, dict):
        return "\n".join(_as_text(x) for x in v.values())
    return num_text(v)


def text_contains_all(text: str, parts: Iterable[Any], *, ordered: bool = False) -> bool:
    """Every part occurs in `text` (case- and space-insensitively); in order if `ordered`."""
    hay, pos = norm(text), 0
    for part in parts:
        i = hay.find(norm(part), pos if ordered else 0)
        if i < 0:
            return False
        if ordered:
            pos = i + len(norm(part))
    return True


# --- answers ---------------------------------------------------------------------------------


def answer_meets(expect: AnswerExpect, answer: str | None) -> CheckResult:
    """Whether an answer meets an expectation; None when only the LLM judge can tell."""
    if answer is None:
        return CheckResult(False, "no answer given")
    if not expect.decidable:
        return CheckResult(None, "the answer's content is left to the judge")
    problems = []
    missing = [p for p in expect.contains_all if norm(p) not in norm(answer)]
    if missing:
        problems.append(f"missing {', '.join(map(repr, missing))}")
    elif expect.ordered and not text_contains_all(answer, expect.contains_all, ordered=True):
        problems.append(f"{', '.join(map(repr, expect.contains_all))} are not in this order")
    if expect.contains_any and not any(norm(p) in norm(answer) for p in expect.contains_any):
        problems.append(f"none of {', '.join(map(repr, expect.contains_any))}")
    bad = [p for p in expect.not_contains if norm(p) in norm(answer)]
    if bad:
        problems.append(f"says {', '.join(map(repr, bad))}")
    got = numbers_in(answer)
    for n in expect.numbers:
        target = as_number(n)
        if target is None or not any(abs(g - target) <= expect.tolerance + 1e-9 for g in got):
            problems.append(f"no number within {num_text(expect.tolerance)} of {num_text(n)}")
    if problems:
        return CheckResult(False, f"answer {answer!r}: " + "; ".join(problems))
    return CheckResult(True, f"answer {answer!r} meets the expectation")


# --- milestones and success ------------------------------------------------------------------


@dataclass
class MilestoneStatus:
    """One line of the milestone checklist (TUI, report)."""

    milestone: Milestone
    reached_at: int | None
    available: bool
    """Its predecessors and dependencies are reached, so it can be reached now."""
    group: int
    """Position of its item in the task's milestone list (members of a group share it)."""
    unordered: bool
    last: CheckResult | None
    """The last evaluation of its check, if any."""
    by: str = "rules"


@dataclass
class MilestoneTracker:
    """Which milestones a run has reached, and at which step.

    Feed it one context per step with `update`; it evaluates only milestones
    whose predecessors (the previous item of the list: a milestone, or a whole
    unordered group) and `depends_on` are reached, so an ordered milestone seen
    before its time does not count. Several can be reached at the same step.
    Milestones without a check are left to the LLM judge (or a person: `mark`).
    """

    task: Task
    values: dict[str, str] = field(default_factory=dict)
    reached: dict[str, int] = field(default_factory=dict)
    marked_by: dict[str, str] = field(default_factory=dict)
    last: dict[str, CheckResult] = field(default_factory=dict)

    def __post_init__(self) -> None:
        from guilens.scenarios.model import MilestoneGroup

        # Checks compare against the L0 intent: the user's slots, and values from earlier tasks.
        env = {**self.task.user.values, **self.values}
        self._task = self.task.filled(env) if env else self.task
        self._items: list[list[Milestone]] = [
            list(it.unordered) if isinstance(it, MilestoneGroup) else [it] for it in self._task.milestones
        ]
        self._unordered = [isinstance(it, MilestoneGroup) for it in self._task.milestones]

    @property
    def milestones(self) -> list[Milestone]:
        return [m for item in self._items for m in item]

    @property
    def total(self) -> int:
        return sum(len(i) for i in self._items)

    @property
    def done(self) -> int:
        return len(self.reached)

    @property
    def all_reached(self) -> bool:
        return self.done == self.total

    @property
    def fraction(self) -> float:
        """Share of milestones reached (AndroidLens' per-task ATP term); 1.0 for a task without any."""
        return self.done / self.total if self.total else 1.0

    def _deps_ok(self, m: Milestone) -> bool:
        return all(d in self.reached for d in m.depends_on)

    def update(self, ctx: CheckContext, step: int) -> list[Milestone]:
        """Evaluate the milestones that can be reached now; return those reached at `step`, in order."""
        new: list[Milestone] = []
        for item in self._items:
            changed = True
            while changed:
                changed = False
                for m in item:
                    if m.id in self.reached or m.check is None or not self._deps_ok(m):
                        continue
                    r = evaluate(m.check, ctx)
                    self.last[m.id] = r
                    if r.ok:
                        self.reached[m.id] = step
                        self.marked_by[m.id] = "rules"
                        new.append(m)
                        changed = True
            if not all(m.id in self.reached for m in item):
                break
        return new

    def mark(self, mid: str, step: int, by: str = "human") -> Milestone:
        """Record a milestone as reached by someone other than the rules (a person, the LLM judge)."""
        m = self._task.milestone(mid)
        self.reached.setdefault(mid, step)
        self.marked_by.setdefault(mid, by)
        return m

    def status(self) -> list[MilestoneStatus]:
        out: list[MilestoneStatus] = []
        open_before = False
        for gi, item in enumerate(self._items):
            for m in item:
                out.append(MilestoneStatus(
                    milestone=m,
                    reached_at=self.reached.get(m.id),
                    available=not open_before and self._deps_ok(m),
                    group=gi,
                    unordered=self._unordered[gi],
                    last=self.last.get(m.id),
                    by=self.marked_by.get(m.id, "rules"),
                ))
            open_before = open_before or not all(m.id in self.reached for m in item)
        return out

    def undecided(self) -> list[Milestone]:
        """Milestones not reached that the rules cannot rule out: no check, a check undecidable
        here, or waiting behind such a milestone. The judge's LLM stage looks at these."""
        out: list[Milestone] = []
        blocked_by_unknown = False
        for item in self._items:
            item_unknown = False
            for m in item:
                if m.id in self.reached:
                    continue
                last = self.last.get(m.id)
                unknown = m.check is None or (last is not None and last.ok is None) or (
                    blocked_by_unknown or (last is None and any(
                        d not in self.reached and self._is_unknown(d) for d in m.depends_on)))
                if unknown:
                    out.append(m)
                    item_unknown = True
            blocked_by_unknown = blocked_by_unknown or item_unknown
        return out

    def _is_unknown(self, mid: str) -> bool:
        m = self._task.milestone(mid)
        last = self.last.get(mid)
        return m.check is None or (last is not None and last.ok is None)


def success(task: Task, tracker: MilestoneTracker, final: CheckContext, values: dict[str, str] | None = None) -> CheckResult:
    """Whether the task succeeded, by its success rule; None when only the LLM judge can tell.

    Default rule: every milestone reached. The rule's own `check` and the task's
    answer expectation must also hold on the final context.
    """
    env = {**task.user.values, **(values if values is not None else tracker.values)}
    t = task.filled(env) if env else task
    parts: list[CheckResult] = []
    rule = t.success
    wanted = (
        [m.id for m in t.all_milestones()] if rule.milestones == "all"
        else [] if rule.milestones == "none" else list(rule.milestones)
    )
    missing = [mid for mid in wanted if mid not in tracker.reached]
    if missing:
        unknown = {m.id for m in tracker.undecided()}
        if all(mid in unknown for mid in missing):
            parts.append(CheckResult(None, f"milestones {', '.join(missing)} need the judge"))
        else:
            parts.append(CheckResult(False, f"milestones not reached: {', '.join(missing)}"))
    elif wanted:
        parts.append(CheckResult(True, f"all {len(wanted)} milestones reached"))
    if rule.check is not None:
        parts.append(evaluate(rule.check, final))
    if t.answer is not None:
        parts.append(answer_meets(t.answer, final.answer))
    if not parts:
        return CheckResult(None, "no rule decides this task")
    return _combine(parts, need_all=True)


def extract_value(source: ValueSource, state: dict[str, Any] | None, answer: str | None) -> str | None:
    """A value a task hands on (ScenDroid data flow), read from the final state or answer; None if absent."""
    if source.from_answer:
        n = as_number(answer) if answer else None
        return num_text(n) if n is not None else None
    if state is None or source.state is None:
        return None
    found = resolve_state(state, source.state)
    if found is _MISSING:
        return None
    items = found if isinstance(found, list) else [found]
    if source.where:
        items = filter_items(items, source.where)
    values = [resolve_path(it, source.field) if source.field else it for it in items]
    values = [v for v in values if v is not _MISSING and v is not None and v != ""]
    if not values:
        return None
    v = values[-1] if source.pick == "last" else values[0]
    return num_text(v) if not isinstance(v, dict | list) else None


def run_checks(task: Task, contexts: Iterable[CheckContext], values: dict[str, str] | None = None) -> tuple[
    MilestoneTracker, CheckResult
]:
    """Replay: feed every context in order (the last is the final one) and decide success."""
    tracker = MilestoneTracker(task, dict(values or {}))
    last = CheckContext()
    for i, ctx in enumerate(contexts):
        tracker.update(ctx, i)
        last = ctx
    return tracker, success(task, tracker, last)
