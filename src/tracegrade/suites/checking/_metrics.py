"""Classification, multilabel and fields metrics: per-attempt observations and their summaries."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tracegrade.suites.checking._records import MetricObservation, Scored
from tracegrade.suites.reading._dataset import Expectation, Metric
from tracegrade.suites.reading._json import canonical

__all__ = ["observe", "summarise_metric"]


def observe(metric: Metric, expectation: Expectation | None, scored: Scored | None) -> MetricObservation:
    """What one attempt contributes to ``metric`` (``excluded`` when the case has no gold for it)."""
    if expectation is None or scored is None:
        return MetricObservation("excluded")
    gold = expectation.expected
    outcome = scored.check.outcome
    if outcome in ("missing", "skipped", "error"):
        return MetricObservation(outcome, gold=gold)
    if metric.kind == "classification":
        return _classification(metric, expectation, scored.value)
    if metric.kind == "multilabel":
        return _multilabel(metric, gold, scored.value)
    return _fields(gold, scored.value)


def _classification(metric: Metric, expectation: Expectation, value: Any) -> MetricObservation:
    gold = expectation.expected
    options = gold if expectation.comparison == "one_of" else [gold]
    if value is None and None not in metric.labels:
        return MetricObservation("abstained", gold=gold)
    if canonical(value) not in {canonical(label) for label in metric.labels}:
        return MetricObservation("invalid", gold=gold)
    correct = canonical(value) in {canonical(option) for option in options}
    return MetricObservation("observed", predicted=value, gold=gold, correct=correct)


def _multilabel(metric: Metric, gold: Any, value: Any) -> MetricObservation:
    if value is None:
        return MetricObservation("abstained", gold=gold)
    labels = {canonical(label) for label in metric.labels}
    if not isinstance(value, list) or any(canonical(v) not in labels for v in value) or \
            len({canonical(v) for v in value}) != len(value):
        return MetricObservation("invalid", gold=gold)
    correct = {canonical(v) for v in value} == {canonical(v) for v in gold}
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
            fields[name] = "correct_value" if canonical(actual) == canonical(expected) else "wrong_value"
    correct = all(category.startswith("correct") for category in fields.values())
    return MetricObservation("observed", predicted=value, gold=gold, correct=correct, fields=fields)


_STATES = {"observed": "observed", "abstained": "abstained", "missing": "missing", "skipped": "skipped",
           "errors": "error", "invalid": "invalid"}


def summarise_metric(metric: Metric, observations: Sequence[MetricObservation]) -> dict[str, Any]:
    """The metric's report section from every attempt's observation."""
    supported = [o for o in observations if o.state != "excluded"]
    counts = {key: sum(1 for o in supported if o.state == state) for key, state in _STATES.items()}
    correct = sum(1 for o in supported if o.correct)
    support = len(supported)
    summary: dict[str, Any] = {
        "name": metric.name, "kind": metric.kind, "path": metric.path, "labels": list(metric.labels),
        "support": support, "excluded": len(observations) - support, **counts, "correct": correct,
        "accuracy": _ratio(correct, support), "coverage": _ratio(counts["observed"], support),
    }
    observed = [o for o in supported if o.state == "observed"]
    if metric.kind == "classification":
        summary["confusion_matrix"] = _confusion(metric.labels, observed)
        summary.update(_per_label(metric.labels, [(_gold_label(o), [o.predicted]) for o in observed]))
    elif metric.kind == "multilabel":
        summary.update(_per_label(metric.labels, [(o.gold, o.predicted) for o in observed]))
    else:
        summary["fields"] = _field_counts(metric.labels, supported)
    return summary


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def _gold_label(o: MetricObservation) -> list[Any]:
    """The gold row of a classification observation: the prediction when it is an accepted option."""
    if isinstance(o.gold, list):
        return [o.predicted] if o.correct else [o.gold[0]]
    return [o.gold]


def _confusion(labels: Sequence[Any], observed: Sequence[MetricObservation]) -> dict[str, Any]:
    index = {canonical(label): i for i, label in enumerate(labels)}
    rows = [[0] * len(labels) for _ in labels]
    for o in observed:
        rows[index[canonical(_gold_label(o)[0])]][index[canonical(o.predicted)]] += 1
    return {"labels": list(labels), "rows": rows}


def _per_label(labels: Sequence[Any], pairs: Sequence[tuple[Any, Any]]) -> dict[str, Any]:
    keys = [canonical(label) for label in labels]
    sets = [({canonical(g) for g in gold}, {canonical(p) for p in predicted}) for gold, predicted in pairs]
    rows, pooled = [], [0, 0, 0]
    for label, key in zip(labels, keys, strict=True):
        tp = sum(1 for g, p in sets if key in g and key in p)
        fp = sum(1 for g, p in sets if key not in g and key in p)
        fn = sum(1 for g, p in sets if key in g and key not in p)
        pooled = [pooled[0] + tp, pooled[1] + fp, pooled[2] + fn]
        rows.append({"label": label, "tp": tp, "fp": fp, "fn": fn, "tn": len(sets) - tp - fp - fn,
                     **_rates(tp, fp, fn)})
    macro = {name: None if any(r[name] is None for r in rows) else sum(r[name] for r in rows) / len(rows)
             for name in ("precision", "recall", "f1")}
    return {"per_label": rows, "micro": _rates(*pooled), "macro": macro}


def _rates(tp: int, fp: int, fn: int) -> dict[str, float | None]:
    return {"precision": _ratio(tp, tp + fp), "recall": _ratio(tp, tp + fn), "f1": _ratio(2 * tp, 2 * tp + fp + fn)}


_FIELD_CATEGORIES = ("correct_value", "correct_null", "hallucinated", "missed", "wrong_value", "unavailable")


def _field_counts(labels: Sequence[Any], supported: Sequence[MetricObservation]) -> list[dict[str, Any]]:
    rows = []
    for name in labels:
        counts = dict.fromkeys(_FIELD_CATEGORIES, 0)
        for o in supported:
            if name not in (o.gold or {}):
                continue
            category = (o.fields or {}).get(name, "unavailable")
            counts[category] += 1
        hallucination = _ratio(counts["hallucinated"], counts["hallucinated"] + counts["correct_null"])
        miss = _ratio(counts["missed"], counts["missed"] + counts["correct_value"] + counts["wrong_value"])
        rows.append({"field": name, **counts, "hallucination_rate": hallucination, "miss_rate": miss})
    return rows
