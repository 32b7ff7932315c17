"""Built-in comparisons, ``each`` projection, gold-shape rules and the custom scorer registry."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from tracegrade.errors import ConfigError
from tracegrade.suites.reading._json import ABSENT, canonical, pointer_tokens, resolve, valid_pointer

__all__ = [
    "BUILTIN_COMPARISONS",
    "BUILTIN_REVISION",
    "JUDGE_COMPARISON",
    "CustomScorer",
    "ProjectionError",
    "ScorerRegistry",
    "gold_problem",
    "matches",
    "normalized_text",
    "project",
]

BUILTIN_COMPARISONS = ("exact", "set", "one_of", "text", "contains", "source_span")
BUILTIN_REVISION = "builtin-1"
"""Revision of the built-in comparison semantics (recorded in reports, checked by compare)."""
JUDGE_COMPARISON = "judge"

ScorerFn = Callable[[Any, Any], Awaitable[bool]]


@dataclass(frozen=True, slots=True)
class CustomScorer:
    """A comparison registered in Python: ``await fn(actual, expected) -> bool``.

    An exception raised by ``fn`` (or a non-bool answer) makes the check an ``error``.
    """

    name: str
    revision: str
    fn: ScorerFn


class ScorerRegistry:
    """The custom scorers a run may use, by name (built-in names cannot be taken)."""

    def __init__(self, scorers: Iterable[CustomScorer] = ()) -> None:
        self._scorers: dict[str, CustomScorer] = {}
        for scorer in scorers:
            self.register(scorer)

    def register(self, scorer: CustomScorer) -> None:
        """Add ``scorer``.

        Raises:
            ConfigError: when the name is built in or already registered, or a field is blank.
        """
        if not scorer.name.strip() or not scorer.revision.strip():
            raise ConfigError("a custom scorer needs a non-blank name and revision")
        if scorer.name in BUILTIN_COMPARISONS or scorer.name == JUDGE_COMPARISON:
            raise ConfigError(f"custom scorer name {scorer.name!r} is a built-in comparison")
        if scorer.name in self._scorers:
            raise ConfigError(f"custom scorer {scorer.name!r} is registered twice")
        self._scorers[scorer.name] = scorer

    def get(self, name: str) -> CustomScorer | None:
        """The scorer called ``name``, if registered."""
        return self._scorers.get(name)

    def names(self) -> frozenset[str]:
        """Every comparison name a dataset may use (built-ins, ``judge`` and custom)."""
        return frozenset((*BUILTIN_COMPARISONS, JUDGE_COMPARISON, *self._scorers))


def normalized_text(value: str) -> str:
    """Case-folded text with every whitespace run collapsed to one space, trimmed."""
    return " ".join(value.casefold().split())


class ProjectionError(ValueError):
    """The value is not an array, or one of its items lacks the projected member."""


def project(actual: Any, each: tuple[str, ...]) -> list[Any]:
    """The value at relative pointer ``each`` of every item of the array ``actual``.

    Raises:
        ProjectionError: when ``actual`` is not an array or an item lacks the member.
    """
    if not isinstance(actual, list):
        raise ProjectionError("not_an_array")
    projected = [resolve(item, each) for item in actual]
    if any(value is ABSENT for value in projected):
        raise ProjectionError("item_lacks_member")
    return projected


def matches(comparison: str, actual: Any, expected: Any, case_input: Mapping[str, Any]) -> bool:
    """Compare an observed value with gold for a built-in comparison."""
    if comparison == "exact":
        return canonical(actual) == canonical(expected)
    if comparison == "set":
        return isinstance(actual, list) and {canonical(v) for v in actual} == {canonical(v) for v in expected}
    if comparison == "one_of":
        return canonical(actual) in {canonical(v) for v in expected}
    if comparison == "text":
        return isinstance(actual, str) and normalized_text(actual) == normalized_text(expected)
    if comparison == "contains":
        return isinstance(actual, str) and normalized_text(expected) in normalized_text(actual)
    if comparison == "source_span":
        return _span_matches(actual, expected, case_input)
    raise ValueError(f"not a built-in comparison: {comparison}")


def _span_matches(actual: Any, expected: Mapping[str, Any], case_input: Mapping[str, Any]) -> bool:
    source = resolve(case_input, pointer_tokens(expected["input_path"]))
    if not isinstance(actual, str) or not actual or not isinstance(source, str):
        return False
    (allowed_start, allowed_end), (required_start, required_end) = expected["allowed"], expected["required"]
    at = source.find(actual, allowed_start, allowed_end)
    while at != -1:
        if at <= required_start and at + len(actual) >= required_end:
            return True
        at = source.find(actual, at + 1, allowed_end)
    return False


def gold_problem(comparison: str, expected: Any, case_input: Mapping[str, Any]) -> str | None:
    """Why ``expected`` cannot be gold for ``comparison`` (None when it can)."""
    if comparison == "set" and not isinstance(expected, list):
        return "set gold must be an array"
    if comparison == "one_of":
        if not isinstance(expected, list) or not expected:
            return "one_of gold must be a non-empty array"
        if len({canonical(v) for v in expected}) != len(expected):
            return "one_of gold must not repeat a value"
    if comparison in ("text", "contains") and not isinstance(expected, str):
        return f"{comparison} gold must be a string"
    if comparison == "source_span":
        return _span_problem(expected, case_input)
    if comparison == JUDGE_COMPARISON:
        return _judge_gold_problem(expected)
    return None


def _span_problem(expected: Any, case_input: Mapping[str, Any]) -> str | None:
    if not isinstance(expected, dict) or set(expected) != {"input_path", "required", "allowed"}:
        return "source_span gold must be an object with exactly input_path, required and allowed"
    path = expected["input_path"]
    if not isinstance(path, str) or not valid_pointer(path):
        return "source_span input_path must be a JSON pointer"
    for key in ("required", "allowed"):
        pair = expected[key]
        if not (isinstance(pair, list) and len(pair) == 2 and all(type(v) is int for v in pair)):
            return f"source_span {key} must be two integer code-point offsets"
        if pair[0] < 0 or pair[1] <= pair[0]:
            return f"source_span {key} must be a non-empty forward range"
    (a_start, a_end), (r_start, r_end) = expected["allowed"], expected["required"]
    if not a_start <= r_start < r_end <= a_end:
        return "source_span required range must lie inside the allowed range"
    source = resolve(case_input, pointer_tokens(path))
    if not isinstance(source, str):
        return "source_span input_path must resolve to a string in the case input"
    if a_end > len(source):
        return "source_span ranges exceed the source string"
    return None


def _judge_gold_problem(expected: Any) -> str | None:
    if not isinstance(expected, dict) or "rubric" not in expected or set(expected) - {"rubric", "reference"}:
        return "judge gold must be an object with rubric and optionally reference"
    rubric = expected["rubric"]
    if not isinstance(rubric, str) or not rubric.strip() or len(rubric) > 8000:
        return "judge rubric must be a non-blank string of at most 8,000 characters"
    return None
