from __future__ import annotations

import pytest

from tracegrade.stats import cohens_kappa, confusion_matrix


def test_kappa_by_hand() -> None:
    a = ["yes", "yes", "no", "no", "yes", "no", "yes", "yes", "no", "yes"]
    b = ["yes", "no", "no", "no", "yes", "yes", "yes", "yes", "no", "yes"]
    observed = 8 / 10
    chance = (6 / 10) * (6 / 10) + (4 / 10) * (4 / 10)  # both raters: 6 yes, 4 no
    assert cohens_kappa(a, b) == pytest.approx((observed - chance) / (1 - chance))


def test_kappa_of_three_labels_by_hand() -> None:
    a, b = list("aabbc"), list("abbbc")
    chance = (2 * 1 + 2 * 3 + 1 * 1) / 25
    assert cohens_kappa(a, b) == pytest.approx((4 / 5 - chance) / (1 - chance))


def test_kappa_perfect_and_undefined() -> None:
    assert cohens_kappa(["x", "y"], ["x", "y"]) == 1.0
    assert cohens_kappa(["x", "x"], ["x", "x"]) is None
    assert cohens_kappa([], []) is None


def test_confusion_matrix_rows_expected_columns_predicted_in_catalog_order() -> None:
    matrix = confusion_matrix(["cat", "dog", "dog", None], ["dog", "dog", "cat", None], labels=["dog", "cat", None])
    assert matrix.counts == ((1, 1, 0), (1, 0, 0), (0, 0, 1))
    assert matrix.count("cat", "dog") == 1 and matrix.total == 4


def test_confusion_matrix_refuses_unknown_labels() -> None:
    with pytest.raises(ValueError, match="item 1: label 'bird'"):
        confusion_matrix(["cat", "bird"], ["cat", "cat"], labels=["cat", "dog"])
    with pytest.raises(ValueError, match="differ in length"):
        confusion_matrix(["cat"], [])
