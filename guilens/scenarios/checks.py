"""Deciding a check by rules, against what one moment of an episode shows.

The runner feeds one `CheckContext` per step (live), the judge feeds the ones it
rebuilds from recorded UI trees, the final state and the answer (replay); both
get the same decisions (milestones and success: `guilens.scenarios.milestones`). A check that cannot be decided from what the context
holds (a sim-state check on a real phone, a screen check without a UI tree)
says so with `ok=None` instead of guessing, and the judge's LLM stages take over.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
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
from guilens.scenarios.values import (
    MISSING,
    as_number,
    as_text,
    filter_items,
    norm,
    num_text,
    numbers_in,
    resolve_path,
    resolve_state,
    text_contains_all,
    values_equal,
)

if TYPE_CHECKING:
    from guilens.device.base import Observation
    from guilens.scenarios.milestones import MilestoneStatus, MilestoneTracker, run_checks, success  # noqa: F401
    from guilens.scenarios.model import ValueSource


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
            return combine([evaluate(c, ctx) for c in check.all], need_all=True)
        case AnyCheck():
            return combine([evaluate(c, ctx) for c in check.any], need_all=False)
        case NotCheck():
            r = evaluate(check.not_, ctx)
            if r.ok is None:
                return r
            return CheckResult(not r.ok, f"not ({r.reason})")
    raise TypeError(f"not a check: {check!r}")


def combine(results: list[CheckResult], *, need_all: bool) -> CheckResult:
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

def _state(check: StateCheck, ctx: CheckContext) -> CheckResult:
    if ctx.state is None:
        return CheckResult(None, "no app state on this device")
    found = resolve_state(ctx.state, check.state)
    if found is MISSING:
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
    present = [v for v in values if v is not MISSING and v is not None and v != ""]
    if check.op == "exists":
        return CheckResult(bool(present), f"{what} {'exists' if present else 'is missing'}")
    if check.op == "missing":
        return CheckResult(not present, f"{what} {'exists' if present else 'is missing'}")
    if not values:
        return CheckResult(check.quantifier == "none", f"nothing matches {label}")
    hits = [_op(check, v) for v in values]
    ok = any(hits) if check.quantifier == "any" else all(hits) if check.quantifier == "all" else not any(hits)
    shown = ", ".join(repr(v) if v is not MISSING else "(none)" for v in values[:3]) + (" ..." if len(values) > 3 else "")
    return CheckResult(ok, f"{what} is {shown}; want {check.quantifier} {check.op} {_value_text(check.value)}")


def _where_text(where: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in where.items())


def _value_text(v: Any) -> str:
    return repr(num_text(v)) if not isinstance(v, list) else repr([num_text(x) for x in v])


def _op(check: StateCheck, v: Any) -> bool:
    if v is MISSING:
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
        return text_contains_all(as_text(v), list(want), ordered=check.ordered)
    if op == "approx":
        target = as_number(want)
        return target is not None and any(abs(n - target) <= check.tolerance + 1e-9 for n in numbers_in(v))
    if op in ("gt", "gte", "lt", "lte"):
        got, target = as_number(v), as_number(want)
        if got is None or target is None:
            return False
        return {"gt": got > target, "gte": got >= target, "lt": got < target, "lte": got <= target}[op]
    if op == "matches":
        return re.search(str(want), as_text(v), re.IGNORECASE) is not None
    raise ValueError(f"unknown op {op}")


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


def extract_value(source: ValueSource, state: dict[str, Any] | None, answer: str | None) -> str | None:
    """A value a task hands on (ScenDroid data flow), read from the final state or answer; None if absent."""
    if source.from_answer:
        n = as_number(answer) if answer else None
        return num_text(n) if n is not None else None
    if state is None or source.state is None:
        return None
    found = resolve_state(state, source.state)
    if found is MISSING:
        return None
    items = found if isinstance(found, list) else [found]
    if source.where:
        items = filter_items(items, source.where)
    values = [resolve_path(it, source.field) if source.field else it for it in items]
    values = [v for v in values if v is not MISSING and v is not None and v != ""]
    if not values:
        return None
    v = values[-1] if source.pick == "last" else values[0]
    return num_text(v) if not isinstance(v, dict | list) else None


_MILESTONE_NAMES = ("MilestoneStatus", "MilestoneTracker", "run_checks", "success")


def __getattr__(name: str) -> object:
    """`MilestoneTracker`, `success`, ... live in `guilens.scenarios.milestones`; importable from here too."""
    if name in _MILESTONE_NAMES:
        from guilens.scenarios import milestones

        return getattr(milestones, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
