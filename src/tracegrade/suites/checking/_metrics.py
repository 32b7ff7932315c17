"""Classification, multilabel and fields metrics: per-attempt observations and their summaries."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import Field

from tracegrade.stats import ratio
from tracegrade.suites.checking._records import MetricObservation, Record, Scored
from tracegrade.suites.reading._json import json_key
from tracegrade.suites.reading._models import Metric

__all__ = [
    "ClassificationSummary",
    "ConfusionRows",
    "FieldCounts",
    "FieldsSummary",
    "LabelCounts",
    "LabelRates",
    "MetricSummary",
    "MultilabelSummary",
    "observe",
    "summarise_metric",
]


def observe(metric: Metric, scored: Scored | None, gold: Any = None, *, one_of: bool = False) -> MetricObservation:
    """What one attempt contributes to ``metric`` (``excluded`` when the case has no gold for it: no ``scored``).

    ``scored`` is the check of the case's ``gold`` for the metric, compared by ``one_of`` when ``one_of``.
    """
    if scored is None:
        return MetricObservation("excluded")
    outcome = scored.check.outcome
    if outcome in ("missing", "skipped", "error"):
        return MetricObservation(outcome, gold=gold)
    if metric.kind == "classification":
        return _classification(metric, gold, one_of, scored.value)
    if metric.kind == "multilabel":
        return _multilabel(metric, gold, scored.value)
    return _fields(gold, scored.value)


@functools.lru_cache(maxsize=1024)
def _label_keys(labels: tuple[str | None, ...]) -> frozenset[Any]:
    return frozenset(json_key(label) for label in labels)


def _classification(metric: Metric, gold: Any, one_of: bool, value: Any) -> MetricObservation:
    options = gold if one_of else [gold]
    if value is None and None not in metric.labels:
        return MetricObservation("abstained", gold=gold)
    key = json_key(value)
    if key not in _label_keys(tuple(metric.labels)):
        return MetricObservation("invalid", gold=gold)
    correct = key in {json_key(option) for option in options}
    return MetricObservation("observed", predicted=value, gold=gold, correct=correct)


def _multilabel(metric: Metric, gold: Any, value: Any) -> MetricObservation:
    if value is None:
        return MetricObservation("abstained", gold=gold)
    labels = _label_keys(tuple(metric.labels))
    if not isinstance(value, list) or any(json_key(v) not in labels for v in value) or \
            len({json_key(v) for v in value}) != len(value):
        return MetricObservation("invalid", gold=gold)
    correct = {json_key(v) for v in value} == {json_key(v) for v in gold}
    return MetricObservation("observed", predicted=value, gold=gold, correct=correct)


def _fields(gold: dict[str, Any], value: Any) -> MetricObservation:
    if not isinstance(value, dict):
        return MetricObservation("invalid", gold=gold, fields=dict.fromkeys(gold, "unavailable"))
    fields = {}
    for name, expected in gold.items():
        actual = value.get(name)
        if expected is None:
            fields[name] = "correct_null" if actual is None else "hallucinated"
        elif actual is None:
            fields[name] = "missed"
        else:
            fields[name] = "correct_value" if json_key(actual) == json_key(expected) else "wrong_value"
    correct = all(category.startswith("correct") for category in fields.values())
    return MetricObservation("observed", predicted=value, gold=gold, correct=correct, fields=fields)


class LabelRates(Record):
    """Precision, recall and F1 (each null when its denominator is 0)."""

    precision: float | None
    recall: float | None
    f1: float | None


class LabelCounts(Record):
    """One label's counts over observed attempts, and its rates."""

    label: str | None
    tp: int
    fp: int
    fn: int
    tn: int
    precision: float | None
    recall: float | None
    f1: float | None


class ConfusionRows(Record):
    """Counts by expected label (rows) and predicted label (columns), in catalog order."""

    labels: list[str | None]
    rows: list[list[int]]


class FieldCounts(Record):
    """How one field of a ``fields`` metric came out over the supported attempts."""

    field: str | None
    correct_value: int
    correct_null: int
    hallucinated: int
    """A value where gold is null."""
    missed: int
    """Null or absent where gold has a value."""
    wrong_value: int
    unavailable: int
    """No usable observation."""
    hallucination_rate: float | None
    """``hallucinated / (hallucinated + correct_null)``."""
    miss_rate: float | None
    """``missed / (missed + correct_value + wrong_value)``."""


class _MetricTotals(Record):
    name: str
    kind: str
    path: str
    labels: list[str | None]
    """The declared catalog (field names for ``fields``)."""
    support: int
    """Attempts whose case has gold for the metric (every count below adds up to it)."""
    excluded: int
    """Attempts whose case has no gold for the metric."""
    observed: int
    abstained: int
    missing: int
    skipped: int
    errors: int
    invalid: int
    correct: int
    accuracy: float | None
    """``correct / support``."""
    coverage: float | None
    """``observed / support``."""


class ClassificationSummary(_MetricTotals):
    """A classification metric's section of the report."""

    kind: Literal["classification"]
    confusion_matrix: ConfusionRows
    per_label: list[LabelCounts]
    micro: LabelRates
    """Rates of the counts pooled over labels."""
    macro: LabelRates
    """Average rates over the catalog (null when any label's rate is null)."""


class MultilabelSummary(_MetricTotals):
    """A multilabel metric's section of the report."""

    kind: Literal["multilabel"]
    per_label: list[LabelCounts]
    micro: LabelRates
    """Rates of the counts pooled over labels."""
    macro: LabelRates
    """Average rates over the catalog (null when any label's rate is null)."""


class FieldsSummary(_MetricTotals):
    """A fields metric's section of the report."""

    kind: Literal["fields"]
    fields: list[FieldCounts]


MetricSummary = Annotated[ClassificationSummary | MultilabelSummary | FieldsSummary, Field(discriminator="kind")]
"""A metric's section of the report, by kind."""

_STATES = {"observed": "observed", "abstained": "abstained", "missing": "missing", "skipped": "skipped",
           "errors": "error", "invalid": "invalid"}


def summarise_metric(metric: Metric, observations: Sequence[MetricObservation]) -> MetricSummary:
    """The metric's report section from every attempt's observation."""
    supported = [o for o in observations if o.state != "excluded"]
    states: Counter[str] = Counter(o.state for o in supported)
    counts = {key: states[state] for key, state in _STATES.items()}
    correct = sum(1 for o in supported if o.correct)
    support = len(supported)
    totals: dict[str, Any] = {
        "name": metric.name, "kind": metric.kind, "path": metric.path, "labels": list(metric.labels),
        "support": support, "excluded": len(observations) - support, **counts, "correct": correct,
        "accuracy": ratio(correct, support), "coverage": ratio(counts["observed"], support),
    }
    observed = [o for o in supported if o.state == "observed"]
    if metric.kind == "classification":
        confusion = _confusion(metric.labels, observed)
        return ClassificationSummary(**totals, confusion_matrix=confusion,
                                     **_per_label(metric.labels, _confusion_counts(confusion.rows), len(observed)))
    if metric.kind == "multilabel":
        pairs = [(o.gold, o.predicted) for o in observed]
        return MultilabelSummary(**totals, **_per_label(metric.labels, _label_counts(metric.labels, pairs), len(pairs)))
    return FieldsSummary(**totals, fields=_field_counts(metric.labels, supported))


def _gold_label(o: MetricObservation) -> list[Any]:
    """The gold row of a classification observation: the prediction when it is an accepted option."""
    if isinstance(o.gold, list):
        return [o.predicted] if o.correct else [o.gold[0]]
    return [o.gold]


def _confusion(labels: Sequence[Any], observed: Sequence[MetricObservation]) -> ConfusionRows:
    index = {json_key(label): i for i, label in enumerate(labels)}
    rows = [[0] * len(labels) for _ in labels]
    for (gold, predicted), count in Counter((json_key(_gold_label(o)[0]), json_key(o.predicted))
                                            for o in observed).items():
        rows[index[gold]][index[predicted]] += count
    return ConfusionRows(labels=list(labels), rows=rows)


Counts = list[tuple[int, int, int]]
"""Each label's true positives, false positives and false negatives, in catalog order."""


def _confusion_counts(rows: list[list[int]]) -> Counts:
    """Per-label counts of single-label observations, from their confusion matrix (rows: gold)."""
    columns = [sum(column) for column in zip(*rows, strict=True)]
    return [(row[i], columns[i] - row[i], sum(row) - row[i]) for i, row in enumerate(rows)]


def _label_counts(labels: Sequence[Any], pairs: Sequence[tuple[Any, Any]]) -> Counts:
    """Per-label counts of ``(gold labels, predicted labels)`` pairs."""
    keys = [json_key(label) for label in labels]
    sets = [({json_key(g) for g in gold}, {json_key(p) for p in predicted}) for gold, predicted in pairs]
    return [(sum(1 for g, p in sets if key in g and key in p), sum(1 for g, p in sets if key not in g and key in p),
             sum(1 for g, p in sets if key in g and key not in p)) for key in keys]


def _per_label(labels: Sequence[Any], counts: Counts, observed: int) -> dict[str, Any]:
    """Per-label, micro and macro rates from each label's counts over ``observed`` observations."""
    rows, pooled = [], [0, 0, 0]
    for label, (tp, fp, fn) in zip(labels, counts, strict=True):
        pooled = [pooled[0] + tp, pooled[1] + fp, pooled[2] + fn]
        rows.append(LabelCounts(label=label, tp=tp, fp=fp, fn=fn, tn=observed - tp - fp - fn, **_rates(tp, fp, fn)))
    macro = {name: None if any(getattr(r, name) is None for r in rows) else
             sum(getattr(r, name) for r in rows) / len(rows) for name in ("precision", "recall", "f1")}
    return {"per_label": rows, "micro": LabelRates(**_rates(*pooled)), "macro": LabelRates(**macro)}


def _rates(tp: int, fp: int, fn: int) -> dict[str, float | None]:
    return {"precision": ratio(tp, tp + fp), "recall": ratio(tp, tp + fn), "f1": ratio(2 * tp, 2 * tp + fp + fn)}


_FIELD_CATEGORIES = ("correct_value", "correct_null", "hallucinated", "missed", "wrong_value", "unavailable")


def _field_counts(labels: Sequence[Any], supported: Sequence[MetricObservation]) -> list[FieldCounts]:
    rows = []
    for name in labels:
        counts = dict.fromkeys(_FIELD_CATEGORIES, 0)
        for o in supported:
            if name not in (o.gold or {}):
                continue
            category = (o.fields or {}).get(name, "unavailable")
            counts[category] += 1
        hallucination = ratio(counts["hallucinated"], counts["hallucinated"] + counts["correct_null"])
        miss = ratio(counts["missed"], counts["missed"] + counts["correct_value"] + counts["wrong_value"])
        rows.append(FieldCounts(field=name, **counts, hallucination_rate=hallucination, miss_rate=miss))
    return rows
