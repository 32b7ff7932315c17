"""The comparisons a check may name, one record each (name, revision, gold check, match rule), in one registry.

The built-ins and ``judge`` are in every :class:`ScorerRegistry`; comparisons of your own (a
:class:`CustomScorer`, or any :class:`Comparison` subclass) are passed in.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from tracegrade.errors import ConfigError
from tracegrade.suites.reading._json import ABSENT, canonical, json_key, pointer_tokens, resolve, valid_pointer

__all__ = [
    "BUILTIN_COMPARISONS",
    "BUILTIN_REVISION",
    "CHECK_PROMPT_VERSION",
    "JUDGE_COMPARISON",
    "AskJudge",
    "BuiltinComparison",
    "CheckContext",
    "Comparison",
    "CustomScorer",
    "JudgeComparison",
    "ProjectionError",
    "Rule",
    "ScorerRegistry",
    "Verdict",
    "any_gold",
    "normalized_text",
    "project",
]

BUILTIN_REVISION = "builtin-1"
"""Revision of the built-in comparison semantics (recorded in reports, checked by compare)."""
JUDGE_COMPARISON = "judge"
CHECK_PROMPT_VERSION = "suite-check-v1"
"""Revision of the ``judge`` comparison: the version of its prompt and verdict shape (``checking/_judge.py``)."""
MAX_RUBRIC_CHARS = 8000

Verdict = tuple[bool | None, str | None]
"""``(passed, None)`` when the value was judged, ``(None, reason_code)`` when it could not be."""
AskJudge = Callable[[Any, dict[str, Any], Any], Awaitable[Verdict]]
"""How the checking stage asks the shared judge: ``await ask(gold, case_input, observed)``."""


@dataclass(frozen=True, slots=True)
class CheckContext:
    """What a comparison is given for one check."""

    actual: Any
    """The observed value (the projected array when the expectation has ``each``)."""
    expected: Any
    """The gold value."""
    case_input: dict[str, Any]
    """The case input as JSON (``payload`` and ``metadata``)."""
    ask_judge: AskJudge | None = None
    """How to ask the shared judge; None when no judge is configured."""


class Comparison(ABC):
    """One way to compare an observed value with gold: its name, revision, gold check and match rule.

    Subclass it for a comparison of your own and pass it to :class:`ScorerRegistry`.
    """

    name: str
    """What an expectation's ``comparison`` says."""
    revision: str
    """Changes whenever the rule could judge a value differently (reports record it; compare checks it)."""

    def gold_problem(self, expected: Any, case_input: dict[str, Any]) -> str | None:
        """Why ``expected`` cannot be gold for this comparison (None when it can)."""
        return None

    def recorded_revision(self, judge_model: str | None) -> str:
        """The revision a report of a run records (the judge's also names the judge model)."""
        return self.revision

    @abstractmethod
    async def compare(self, check: CheckContext) -> Verdict:
        """Whether ``check.actual`` agrees with ``check.expected``; ``(None, reason_code)`` when undecidable."""


Rule = Callable[[Any, Any, dict[str, Any]], bool]
GoldCheck = Callable[[Any, dict[str, Any]], str | None]


def any_gold(expected: Any, case_input: dict[str, Any]) -> str | None:
    """The gold check of comparisons that take any value as gold."""
    return None


@dataclass(frozen=True, slots=True)
class BuiltinComparison(Comparison):
    """A comparison shipped with tracegrade: a pure rule over the value, the gold and the case input."""

    name: str
    rule: Rule
    """``rule(actual, expected, case_input)``: whether the value agrees with gold."""
    gold_check: GoldCheck = any_gold
    """``gold_check(expected, case_input)``: why the gold is unusable, or None."""
    revision: str = BUILTIN_REVISION

    def gold_problem(self, expected: Any, case_input: dict[str, Any]) -> str | None:
        """Why ``expected`` cannot be gold for this comparison (None when it can)."""
        return self.gold_check(expected, case_input)

    async def compare(self, check: CheckContext) -> Verdict:
        """The rule's answer (a built-in always decides)."""
        return self.rule(check.actual, check.expected, check.case_input), None


def normalized_text(value: str) -> str:
    """Case-folded text with every whitespace run collapsed to one space, trimmed."""
    return " ".join(value.casefold().split())


_PLAIN = frozenset({str, int, bool, type(None)})
"""Types whose canonical JSON is equal exactly when two values of the same type are (floats are not: -0.0)."""


def _exact(actual: Any, expected: Any, case_input: dict[str, Any]) -> bool:
    kind = type(actual)
    if kind is type(expected) and kind in _PLAIN:
        return bool(actual == expected)
    return canonical(actual) == canonical(expected)


def _same_set(actual: Any, expected: Any, case_input: dict[str, Any]) -> bool:
    return isinstance(actual, list) and {json_key(v) for v in actual} == {json_key(v) for v in expected}


def _set_gold(expected: Any, case_input: dict[str, Any]) -> str | None:
    return None if isinstance(expected, list) else "set gold must be an array"


def _one_of(actual: Any, expected: Any, case_input: dict[str, Any]) -> bool:
    return json_key(actual) in {json_key(v) for v in expected}


def _one_of_gold(expected: Any, case_input: dict[str, Any]) -> str | None:
    if not isinstance(expected, list) or not expected:
        return "one_of gold must be a non-empty array"
    if len({json_key(v) for v in expected}) != len(expected):
        return "one_of gold must not repeat a value"
    return None


def _text(actual: Any, expected: Any, case_input: dict[str, Any]) -> bool:
    return isinstance(actual, str) and normalized_text(actual) == normalized_text(expected)


def _contains(actual: Any, expected: Any, case_input: dict[str, Any]) -> bool:
    return isinstance(actual, str) and normalized_text(expected) in normalized_text(actual)


def _string_gold(name: str) -> GoldCheck:
    def check(expected: Any, case_input: dict[str, Any]) -> str | None:
        return None if isinstance(expected, str) else f"{name} gold must be a string"

    return check


def _span_matches(actual: Any, expected: Mapping[str, Any], case_input: dict[str, Any]) -> bool:
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


def _span_gold(expected: Any, case_input: dict[str, Any]) -> str | None:
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


BUILTIN_COMPARISONS: Mapping[str, BuiltinComparison] = MappingProxyType({builtin.name: builtin for builtin in (
    BuiltinComparison("exact", _exact),
    BuiltinComparison("set", _same_set, _set_gold),
    BuiltinComparison("one_of", _one_of, _one_of_gold),
    BuiltinComparison("text", _text, _string_gold("text")),
    BuiltinComparison("contains", _contains, _string_gold("contains")),
    BuiltinComparison("source_span", _span_matches, _span_gold),
)})
"""The built-in comparisons by name, in the order the docs list them."""


@dataclass(frozen=True, slots=True)
class JudgeComparison(Comparison):
    """``judge``: the shared LLM judge grades the value against a rubric (gold ``{rubric, reference?}``).

    A judge that cannot be used, or answers unusably, makes the check an error, never a pass.
    """

    name: str = JUDGE_COMPARISON
    revision: str = CHECK_PROMPT_VERSION

    def gold_problem(self, expected: Any, case_input: dict[str, Any]) -> str | None:
        """Why ``expected`` is not ``{rubric, reference?}`` with a usable rubric (None when it is)."""
        if not isinstance(expected, dict) or "rubric" not in expected or set(expected) - {"rubric", "reference"}:
            return "judge gold must be an object with rubric and optionally reference"
        rubric = expected["rubric"]
        if not isinstance(rubric, str) or not rubric.strip() or len(rubric) > MAX_RUBRIC_CHARS:
            return "judge rubric must be a non-blank string of at most 8,000 characters"
        return None

    def recorded_revision(self, judge_model: str | None) -> str:
        """The prompt version and the judge model (``suite-check-v1:<model>``; ``none`` without a judge)."""
        return f"{self.revision}:{judge_model or 'none'}"

    async def compare(self, check: CheckContext) -> Verdict:
        """The judge's verdict, or ``judge_not_configured`` without a judge."""
        if check.ask_judge is None:
            return None, "judge_not_configured"
        return await check.ask_judge(check.expected, check.case_input, check.actual)


ScorerFn = Callable[[Any, Any], Awaitable[bool]]


@dataclass(frozen=True, slots=True)
class CustomScorer(Comparison):
    """A comparison registered in Python: ``await fn(actual, expected) -> bool``.

    An exception raised by ``fn`` (or a non-bool answer) makes the check an ``error``.
    """

    name: str
    revision: str
    fn: ScorerFn

    async def compare(self, check: CheckContext) -> Verdict:
        """``fn``'s answer; ``scorer_error`` or ``scorer_invalid_answer`` when it has none."""
        try:
            answer = await self.fn(check.actual, check.expected)
        except Exception:  # a scorer's own failure is a check error, never a verdict
            return None, "scorer_error"
        if type(answer) is not bool:
            return None, "scorer_invalid_answer"
        return answer, None


class ScorerRegistry:
    """Every comparison a dataset may name: the built-ins, ``judge``, and the ones passed in."""

    def __init__(self, scorers: Iterable[Comparison] = ()) -> None:
        self._comparisons: dict[str, Comparison] = {**BUILTIN_COMPARISONS, JUDGE_COMPARISON: JudgeComparison()}
        for scorer in scorers:
            self.register(scorer)

    def register(self, comparison: Comparison) -> None:
        """Add ``comparison``.

        Raises:
            ConfigError: when the name is built in or already registered, or the name or revision is blank.
        """
        if not comparison.name.strip() or not comparison.revision.strip():
            raise ConfigError("a custom scorer needs a non-blank name and revision")
        if comparison.name in BUILTIN_COMPARISONS or comparison.name == JUDGE_COMPARISON:
            raise ConfigError(f"custom scorer name {comparison.name!r} is a built-in comparison")
        if comparison.name in self._comparisons:
            raise ConfigError(f"custom scorer {comparison.name!r} is registered twice")
        self._comparisons[comparison.name] = comparison

    def get(self, name: str) -> Comparison | None:
        """The comparison called ``name``, if any."""
        return self._comparisons.get(name)

    def revisions(self, names: Iterable[str], judge_model: str | None) -> dict[str, str]:
        """The recorded revision of each registered comparison in ``names``, by name in sorted order."""
        found = {name: self._comparisons.get(name) for name in sorted(set(names))}
        return {name: comparison.recorded_revision(judge_model) for name, comparison in found.items()
                if comparison is not None}


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
