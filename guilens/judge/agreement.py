"""How well the judge agrees with people: a confusion matrix and its scores.

`success` is the positive class, as in MemGUI-Eval (F1, precision, recall of
"the task succeeded") and PSPA-Bench (accuracy, precision, recall, F1, κ):

    TP  labelled success, judged success      FP  labelled failure, judged success
    FN  labelled success, judged failure      TN  labelled failure, judged failure

    accuracy  = (TP + TN) / N
    precision = TP / (TP + FP)                 of the episodes the judge passed, how many people passed
    recall    = TP / (TP + FN)                 of the episodes people passed, how many the judge passed
    F1        = 2·TP / (2·TP + FP + FN)        the harmonic mean of the two, in counts
    κ (Cohen) = (p_o − p_e) / (1 − p_e),  p_o = accuracy,
                p_e = ((TP+FP)(TP+FN) + (FN+TN)(FP+TN)) / N²   (agreement expected by chance)

A score whose denominator is zero is *undefined* (None, with the reason), never
0 and never a crash: precision when the judge passed nothing, recall when
people passed nothing, F1 when nobody passed anything, κ when p_e = 1 (both
sides gave every episode the same call, so chance explains all agreement).
The arithmetic is exact (`fractions.Fraction`) so p_e = 1 is seen as such.

An undecided verdict is no failure: it is left out of the matrix and counted
apart. Besides the final decision the matrix is broken down by the stage that
decided (`verdict.decided_by`); and where a verdict holds several stages'
decisions (judged with every stage, `--all-stages`), each stage is scored
against the labels on its own, and each LLM stage against the rules.

Written by hand, not with scikit-learn: four formulas over four counts do not
justify a dependency of that size, and where these scores are undefined
scikit-learn gives 0 or NaN with a warning rather than saying why.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from guilens.judge.verdict import Verdict

__all__ = ["POSITIVE", "SCRUTINY_ORDER", "Agreement", "Case", "Confusion", "evaluate"]

POSITIVE = "success"
"""The positive class of precision, recall and F1."""

SCRUTINY_ORDER: tuple[str, ...] = ("visual", "semantic", "triage")
"""Progressive scrutiny's own decision: its last stage that decided (as the pipeline ranks them)."""

LLM_DECIDERS: tuple[str, ...] = ("milestones", "triage", "semantic", "visual", "scrutiny")
"""The stages that can decide with a model, and `scrutiny` for progressive scrutiny as a whole."""


@dataclass
class Confusion:
    """Counts of (reference, decision) pairs, `success` the positive class."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    def add(self, truth: str, decision: str) -> None:
        if truth == POSITIVE:
            if decision == POSITIVE:
                self.tp += 1
            else:
                self.fn += 1
        elif decision == POSITIVE:
            self.fp += 1
        else:
            self.tn += 1

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.fn + self.tn

    def _ratio(self, num: int, den: int) -> Fraction | None:
        return Fraction(num, den) if den else None

    @property
    def accuracy(self) -> Fraction | None:
        return self._ratio(self.tp + self.tn, self.n)

    @property
    def precision(self) -> Fraction | None:
        return self._ratio(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> Fraction | None:
        return self._ratio(self.tp, self.tp + self.fn)

    @property
    def f1(self) -> Fraction | None:
        return self._ratio(2 * self.tp, 2 * self.tp + self.fp + self.fn)

    @property
    def chance(self) -> Fraction | None:
        """p_e: the agreement two raters with these marginals would reach by chance."""
        n = self.n
        if not n:
            return None
        return Fraction((self.tp + self.fp) * (self.tp + self.fn) + (self.fn + self.tn) * (self.fp + self.tn), n * n)

    @property
    def kappa(self) -> Fraction | None:
        po, pe = self.accuracy, self.chance
        if po is None or pe is None or pe == 1:
            return None
        return (po - pe) / (1 - pe)

    def undefined(self) -> dict[str, str]:
        """Why each undefined score is undefined, by score name."""
        out: dict[str, str] = {}
        if not self.n:
            return {k: "no decided episodes" for k in ("accuracy", "precision", "recall", "f1", "kappa")}
        if not self.tp + self.fp:
            out["precision"] = "the judge decided no episode a success"
        if not self.tp + self.fn:
            out["recall"] = "no episode is labelled success"
        if not 2 * self.tp + self.fp + self.fn:
            out["f1"] = "no success on either side"
        if self.chance == 1:
            out["kappa"] = "p_e = 1: both sides gave every episode the same call"
        return out

    def scores(self) -> dict[str, float | None]:
        return {k: _float(getattr(self, k)) for k in ("accuracy", "precision", "recall", "f1", "kappa")}

    def to_json(self) -> dict[str, Any]:
        return {"tp": self.tp, "fp": self.fp, "fn": self.fn, "tn": self.tn, "n": self.n, **self.scores(),
                "undefined": self.undefined()}


def _float(x: Fraction | None) -> float | None:
    return None if x is None else float(x)


@dataclass(frozen=True)
class Case:
    """One labelled attempt and what the judge made of it."""

    path: Path
    label: str
    decision: str
    """The verdict's final decision: success, failure or undecided."""
    decided_by: str | None
    stages: dict[str, str] = field(default_factory=dict)
    """Every stage that decided, and its decision (with `scrutiny`: progressive scrutiny's own)."""
    task: str = ""
    reason: str = ""
    """The judge's reason for its decision."""
    label_reason: str = ""

    @classmethod
    def of(cls, path: Path, label: str, verdict: Verdict, label_reason: str = "") -> Case:
        stages: dict[str, str] = {s.stage: s.decision for s in verdict.stages if s.status == "decided" and s.decision}
        scrutiny = next((stages[s] for s in SCRUTINY_ORDER if s in stages), None)
        if scrutiny is not None:
            stages["scrutiny"] = scrutiny
        return cls(path=Path(path), label=label, decision=verdict.decision, decided_by=verdict.decided_by,
                   stages=stages, task=verdict.task, reason=verdict.reason, label_reason=label_reason)

    @property
    def agrees(self) -> bool | None:
        return None if self.decision == "undecided" else self.decision == self.label


@dataclass
class StageScore:
    """One stage's own decisions against the labels; `undecided`: labelled cases it did not decide."""

    confusion: Confusion = field(default_factory=Confusion)
    undecided: int = 0

    def to_json(self) -> dict[str, Any]:
        return {**self.confusion.to_json(), "undecided": self.undecided}


@dataclass
class Agreement:
    cases: list[Case]
    overall: Confusion
    undecided: list[Case]
    by_decider: dict[str, Confusion]
    """By `verdict.decided_by`: how good each stage's final calls were."""
    by_stage: dict[str, StageScore]
    """Each stage's own decisions, where it decided, whether or not it had the final word."""
    rules_vs_llm: dict[str, Confusion]
    """Episodes both the rules and an LLM stage decided: the rules as the reference, the stage as the call."""

    @property
    def disagreements(self) -> list[Case]:
        return [c for c in self.cases if c.agrees is False]

    def to_json(self) -> dict[str, Any]:
        return {
            "positive_class": POSITIVE,
            "labelled": len(self.cases),
            "decided": self.overall.n,
            "undecided": len(self.undecided),
            "overall": self.overall.to_json(),
            "by_decided_by": {k: v.to_json() for k, v in self.by_decider.items()},
            "by_stage": {k: v.to_json() for k, v in self.by_stage.items()},
            "rules_vs_llm": {k: {**v.to_json(), "agree": v.tp + v.tn} for k, v in self.rules_vs_llm.items()},
            "episodes": [{"path": str(c.path), "task": c.task, "label": c.label, "label_reason": c.label_reason,
                          "decision": c.decision, "decided_by": c.decided_by, "stages": c.stages,
                          "agrees": c.agrees, "reason": c.reason} for c in self.cases],
        }


def evaluate(cases: Iterable[Case]) -> Agreement:
    """Score the judge's decisions in `cases` against their labels."""
    cases = list(cases)
    overall = Confusion()
    by_decider: dict[str, Confusion] = {}
    by_stage: dict[str, StageScore] = {}
    rules_vs_llm: dict[str, Confusion] = {}
    undecided = []
    for c in cases:
        if c.decision == "undecided":
            undecided.append(c)
        else:
            overall.add(c.label, c.decision)
            by_decider.setdefault(c.decided_by or "?", Confusion()).add(c.label, c.decision)
        for stage, decision in c.stages.items():
            by_stage.setdefault(stage, StageScore()).confusion.add(c.label, decision)
        rules = c.stages.get("rules")
        if rules is not None:
            for stage in LLM_DECIDERS:
                if stage in c.stages:
                    rules_vs_llm.setdefault(stage, Confusion()).add(rules, c.stages[stage])
    for stage, score in by_stage.items():
        score.undecided = sum(1 for c in cases if stage not in c.stages)
    order = {s: i for i, s in enumerate(("rules", "milestones", "triage", "semantic", "visual", "scrutiny", "?"))}
    return Agreement(
        cases=cases, overall=overall, undecided=undecided,
        by_decider=dict(sorted(by_decider.items(), key=lambda kv: order.get(kv[0], 99))),
        by_stage=dict(sorted(by_stage.items(), key=lambda kv: order.get(kv[0], 99))),
        rules_vs_llm=dict(sorted(rules_vs_llm.items(), key=lambda kv: order.get(kv[0], 99))),
    )
