from __future__ import annotations

from typing import Any

from tests.suites.helpers import case, case_scorer, expectation
from tracegrade.suites import Case, ScorerRegistry
from tracegrade.suites.checking._metrics import summarise_metric
from tracegrade.suites.checking._records import Observation
from tracegrade.suites.reading._models import Metric

CATEGORY = {"name": "category", "path": "/cat", "kind": "classification", "labels": ["billing", "cancellation"]}


async def observations(metric: dict[str, Any],
                       attempts: list[tuple[dict[str, Any], dict[str, Any] | None]]) -> Any:
    spec = Metric.model_validate(metric)
    found = []
    for number, (raw_case, result) in enumerate(attempts):
        scorer = case_scorer(Case.model_validate({**raw_case, "id": f"c{number}"}), metrics=(spec,))
        record = await scorer.score(Observation(result, None if result is not None else "timeout"), 1, details=False)
        found.append(record.metrics[spec.name])
    return summarise_metric(spec, found)


def gold(label: Any) -> dict[str, Any]:
    return case("x", expectation("cat", "/cat", label))


async def test_the_worked_classification_example() -> None:
    summary = await observations(CATEGORY, [
        (gold("billing"), {"cat": "billing"}),            # observed, correct
        (gold("billing"), {"cat": "cancellation"}),       # observed, wrong
        (gold("cancellation"), {"cat": None}),            # null is not a declared label: abstained
        (gold("billing"), {}),                            # missing
        (gold("billing"), None),                          # no valid result: error
        (gold("billing"), {"cat": "refund"}),             # invalid label
        (gold("cancellation"), {"cat": 7}),               # invalid label
        (case("x", expectation("other", "/other", 1)), {"cat": "billing"}),  # no gold at the path: excluded
    ])
    assert summary.model_dump(include={"support", "excluded", "observed", "abstained", "missing", "skipped", "errors",
                                       "invalid", "correct"}) == {
        "support": 7, "excluded": 1, "observed": 2, "abstained": 1, "missing": 1, "skipped": 0, "errors": 1,
        "invalid": 2, "correct": 1}
    assert summary.accuracy == 1 / 7 and summary.coverage == 2 / 7
    assert summary.confusion_matrix.model_dump() == {"labels": ["billing", "cancellation"], "rows": [[1, 1], [0, 0]]}
    billing, cancellation = summary.per_label
    assert (billing.tp, billing.fp, billing.fn, billing.tn) == (1, 0, 1, 0)
    assert (billing.precision, billing.recall, billing.f1) == (1.0, 0.5, 2 / 3)
    assert (cancellation.precision, cancellation.recall, cancellation.f1) == (0.0, None, 0.0)
    assert summary.micro.model_dump() == {"precision": 0.5, "recall": 0.5, "f1": 0.5}
    assert summary.macro.model_dump() == {"precision": 0.5, "recall": None, "f1": 1 / 3}


async def test_one_correct_and_nine_missing_is_ten_percent_not_perfect() -> None:
    summary = await observations(CATEGORY, [(gold("billing"), {"cat": "billing"})] + [(gold("billing"), {})] * 9)
    assert (summary.accuracy, summary.coverage, summary.micro.precision) == (0.1, 0.1, 1.0)


async def test_null_is_a_label_when_declared() -> None:
    metric = {**CATEGORY, "labels": ["billing", None]}
    summary = await observations(metric, [(gold(None), {"cat": None}), (gold("billing"), {"cat": None})])
    assert (summary.observed, summary.correct) == (2, 1)
    assert summary.confusion_matrix.rows == [[0, 1], [0, 1]]


async def test_one_of_gold_accepts_any_option_and_rows_use_the_primary() -> None:
    metric = {**CATEGORY, "labels": ["billing", "cancellation", "other"]}
    either = case("x", expectation("cat", "/cat", ["billing", "other"], comparison="one_of"))
    summary = await observations(metric, [(either, {"cat": "other"}), (either, {"cat": "cancellation"})])
    assert summary.correct == 1
    assert summary.confusion_matrix.rows == [[0, 1, 0], [0, 0, 0], [0, 0, 1]]


async def test_multilabel_needs_the_whole_set_and_keeps_missing_in_support() -> None:
    metric = {"name": "tags", "path": "/tags", "kind": "multilabel", "labels": ["x", "y", "z"]}
    tags = case("t", expectation("tags", "/tags", ["x", "y"], comparison="set"))
    summary = await observations(metric, [(tags, {"tags": ["y", "x"]}), (tags, {"tags": ["x"]}), (tags, {})])
    assert (summary.support, summary.observed, summary.missing, summary.correct) == (3, 2, 1, 1)
    x, y, z = summary.per_label
    assert (x.tp, y.tp, y.fn, z.tn) == (2, 1, 1, 2)


async def test_fields_count_hallucinations_and_misses() -> None:
    metric = {"name": "contact", "path": "/contact", "kind": "fields", "labels": ["name", "phone"]}
    gold_fields = case("f", expectation("contact", "/contact", {"name": "Ann", "phone": None}))
    summary = await observations(metric, [(gold_fields, {"contact": {"name": "Ann", "phone": "123"}}),
                                          (gold_fields, {"contact": {"phone": None}}), (gold_fields, None)])
    name, phone = summary.fields
    assert (name.correct_value, name.missed, name.unavailable, name.miss_rate) == (1, 1, 1, 0.5)
    assert (phone.hallucinated, phone.correct_null, phone.hallucination_rate) == (1, 1, 0.5)


def test_classification_counts_from_the_confusion_matrix_equal_counting_each_label() -> None:
    import random

    from tracegrade.suites.checking._metrics import _confusion, _confusion_counts, _gold_label, _label_counts
    from tracegrade.suites.checking._records import MetricObservation

    labels: list[Any] = ["a", "b", None, "d"]
    rng = random.Random(2)
    observed = []
    for _ in range(500):
        predicted = rng.choice(labels)
        gold_value: Any = rng.sample(labels, 2) if rng.random() < 0.3 else rng.choice(labels)
        correct = predicted in gold_value if isinstance(gold_value, list) else predicted == gold_value
        observed.append(MetricObservation("observed", predicted=predicted, gold=gold_value, correct=correct))
    rows = _confusion(labels, observed).rows
    assert sum(map(sum, rows)) == 500
    assert _confusion_counts(rows) == _label_counts(labels, [(_gold_label(o), [o.predicted]) for o in observed])


async def test_observations_shared_between_attempts_are_those_each_attempt_makes_alone() -> None:
    """A suite's scorers share classification observations only where the value and gold fix their JSON."""
    import orjson

    from tests.suites.helpers import suite_spec
    from tracegrade.suites.checking._metrics import observe
    from tracegrade.suites.checking._records import Scored
    from tracegrade.suites.checking._scoring import SuiteScorer

    metric = {**CATEGORY, "labels": ["billing", None]}
    golds = ["billing", "billing", 1, True, 1, None, "billing", ["billing", None]]
    values: list[Any] = ["billing", "billing", True, 1, 1.0, None, "refund", "billing"]
    cases = [case(f"c{n}", expectation("cat", "/cat", g, **({"comparison": "one_of"} if isinstance(g, list) else {})))
             for n, g in enumerate(golds)]
    spec = suite_spec(cases, [metric])
    scorers = SuiteScorer(spec, ScorerRegistry(), None).cases
    for number, value in enumerate(values):
        record = await scorers[f"c{number}"].score(Observation({"cat": value}), 1, details=False)
        alone = await case_scorer(spec.cases[number], metrics=spec.metrics).score(
            Observation({"cat": value}), 1, details=False)
        shared = record.metrics["category"]
        assert shared == alone.metrics["category"] == observe(
            spec.metrics[0], Scored(record.checks[0], value), golds[number], one_of=isinstance(golds[number], list))
        assert orjson.dumps(shared) == orjson.dumps(alone.metrics["category"])
        assert type(shared.predicted) is type(value if shared.state == "observed" else None)
        assert type(shared.gold) is type(golds[number])
