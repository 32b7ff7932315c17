"""Validation of judge answers into typed replies; nothing is guessed or defaulted into a score."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from tracegrade.atif.asking._prompts import CATEGORIES
from tracegrade.judge import protocol_error
from tracegrade.rubric import MAX_CRITERIA, Criterion, Rubric

__all__ = ["MAX_DERIVED_WEIGHT", "MAX_RATIONALE_CHARS", "Categorization", "DerivedCriteria", "ScoreReply",
           "parse_categorization", "parse_criteria", "parse_scores", "score_parser"]

MAX_RATIONALE_CHARS = 2000
MAX_DERIVED_WEIGHT = 100.0
"""Largest weight accepted from a derivation; more is an absurd answer, not a judgement."""
_PLACEHOLDER = re.compile(r"^\s*<[^<>]{1,60}>\s*$")
"""Text that is only a ``<placeholder>``: the judge echoed a template instead of answering."""


@dataclass(frozen=True, slots=True)
class ScoreReply:
    """Validated per-criterion scores for one step."""

    scores: dict[str, float]
    """Exactly the rubric's criteria in name order, each a finite number in [0, 1]."""
    rationale: str
    """The judge's explanation, at most 2,000 characters."""

    def to_json(self) -> dict[str, Any]:
        """Canonical JSON form."""
        return {"scores": dict(self.scores), "rationale": self.rationale}


@dataclass(frozen=True, slots=True)
class Categorization:
    """The failure category the judge chose for a low-scoring step."""

    category: str
    """One of ``tool_selection_failure``, ``context_loss``, ``policy_boundary_violation``,
    ``reasoning_failure`` or ``none``."""
    rationale: str

    @property
    def actionable(self) -> bool:
        """True unless the judge abstained with ``none``."""
        return self.category != "none"

    def to_json(self) -> dict[str, Any]:
        """Canonical JSON form."""
        return {"category": self.category, "rationale": self.rationale}


@dataclass(frozen=True, slots=True)
class DerivedCriteria:
    """Criteria the judge proposed for a task."""

    criteria: tuple[Criterion, ...]

    def rubric(self, name: str = "auto", version: str = "1") -> Rubric:
        """The criteria as a weighted-mean rubric."""
        return Rubric(name=name, version=version, criteria=self.criteria)

    def to_json(self) -> dict[str, Any]:
        """Canonical JSON form."""
        return {"criteria": [c.model_dump() for c in self.criteria]}


def score_parser(rubric: Rubric) -> Callable[[dict[str, Any]], ScoreReply]:
    """A parser accepting scores for exactly the criteria of ``rubric``."""
    names = rubric.names
    return lambda answer: parse_scores(answer, names)


def parse_scores(answer: dict[str, Any], names: frozenset[str]) -> ScoreReply:
    """Validate ``{"scores": {name: number}, "rationale": str}`` for the criterion set ``names``.

    Raises:
        JudgeError: ``schema_violation`` for missing or extra criteria, or any score that is not
            a finite, non-boolean number in [0, 1].
    """
    scores = answer.get("scores")
    if not isinstance(scores, dict):
        raise protocol_error("schema_violation", "\"scores\" is not an object")
    if set(scores) != names:
        raise protocol_error("schema_violation", "the scored criteria differ from the rubric's")
    checked = {name: _unit_score(scores[name]) for name in sorted(names)}  # one order, however the judge wrote it
    return ScoreReply(checked, _rationale(answer))


def parse_categorization(answer: dict[str, Any]) -> Categorization:
    """Validate ``{"category": one of the taxonomy, "rationale": str}``.

    Raises:
        JudgeError: ``schema_violation`` when the category is not exactly one of the taxonomy.
    """
    category = answer.get("category")
    if not isinstance(category, str) or category not in CATEGORIES:
        raise protocol_error("schema_violation", "\"category\" is not one of the taxonomy")
    return Categorization(category, _rationale(answer))


def parse_criteria(answer: dict[str, Any]) -> DerivedCriteria:
    """Validate ``{"criteria": [{"name", "description", "weight"}]}``.

    A missing description falls back to the name; a missing weight makes the answer invalid.

    Raises:
        JudgeError: ``schema_violation`` unless there are 1-32 uniquely named criteria with
            positive, finite, non-boolean weights of at most 100, and no name or description is
            an echoed ``<placeholder>``.
    """
    items = answer.get("criteria")
    if not isinstance(items, list) or not 1 <= len(items) <= MAX_CRITERIA:
        raise protocol_error("schema_violation", f"\"criteria\" is not a list of 1-{MAX_CRITERIA} items")
    criteria = tuple(_criterion(item) for item in items)
    if len({c.name for c in criteria}) != len(criteria):
        raise protocol_error("schema_violation", "criterion names are not unique")
    return DerivedCriteria(criteria)


def _criterion(item: Any) -> Criterion:
    if not isinstance(item, dict):
        raise protocol_error("schema_violation", "a criterion is not an object")
    name = item.get("name")
    description = item.get("description")
    if not isinstance(name, str) or (description is not None and not isinstance(description, str)):
        raise protocol_error("schema_violation", "a criterion name or description is not a string")
    if _echoed(name) or (description is not None and _echoed(description)):
        raise protocol_error("schema_violation", "a criterion repeats a template placeholder")
    if "weight" not in item:
        raise protocol_error("schema_violation", "a criterion has no weight")
    number = _finite_float(item["weight"])
    if number is None or not 0 < number <= MAX_DERIVED_WEIGHT:
        raise protocol_error("schema_violation", f"a criterion weight is not a number in (0, {MAX_DERIVED_WEIGHT:g}]")
    try:
        return Criterion(name=name, description=description or name, weight=number)
    except ValidationError:
        raise protocol_error("schema_violation", "a criterion is invalid") from None


def _unit_score(value: Any) -> float:
    number = _finite_float(value)
    if number is None or not 0.0 <= number <= 1.0:
        raise protocol_error("schema_violation", "a score is not a number in [0, 1]")
    return number


def _finite_float(value: Any) -> float | None:
    """``value`` as a finite float, or None for booleans, non-numbers, NaN, infinities and overflow."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def _rationale(answer: dict[str, Any]) -> str:
    rationale = answer.get("rationale", "")
    if rationale is None:
        return ""
    if not isinstance(rationale, str):
        raise protocol_error("schema_violation", "\"rationale\" is not a string")
    if _echoed(rationale):
        raise protocol_error("schema_violation", "\"rationale\" repeats a template placeholder")
    return rationale[:MAX_RATIONALE_CHARS]


def _echoed(text: str) -> bool:
    """True when ``text`` is nothing but a ``<placeholder>`` such as ``<name>``."""
    return _PLACEHOLDER.match(text) is not None
