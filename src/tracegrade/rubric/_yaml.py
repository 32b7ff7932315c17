"""Parse rubric text (JSON or a restricted YAML) without giving the text any power.

``yaml.safe_load`` still expands anchors and aliases, which lets a few hundred bytes
grow into gigabytes ("billion laughs"), and accepts tags. Rubrics need none of that, so
the token stream is checked first and any anchor, alias, tag or directive is refused
before a single node is built. Nesting depth is capped so that the recursive composer
cannot exhaust the stack. Number literals are capped in length too, so a 5,000-digit integer
is refused with a message naming its place instead of failing deep inside ``int()``. JSON text is read
by the product's one strict reader (docs/json-policy.md).
"""

from __future__ import annotations

from typing import Any

import yaml

from tracegrade._io import JsonProblem, loads

__all__ = ["MAX_NESTING", "MAX_NUMBER_CHARS", "TextParseError", "parse_json", "parse_rubric_text"]

MAX_NESTING = 32
"""Deepest nesting of mappings and sequences accepted in a rubric document."""
MAX_NUMBER_CHARS = 64
"""Longest YAML number literal accepted (digits, sign, point and exponent together)."""

_FORBIDDEN_TOKENS: dict[type[yaml.Token], str] = {
    yaml.AnchorToken: "anchors (&name) are not allowed",
    yaml.AliasToken: "aliases (*name) are not allowed",
    yaml.TagToken: "tags (!tag) are not allowed",
    yaml.DirectiveToken: "directives (%YAML, %TAG) are not allowed",
}
_OPENERS = (
    yaml.BlockMappingStartToken,
    yaml.BlockSequenceStartToken,
    yaml.FlowMappingStartToken,
    yaml.FlowSequenceStartToken,
)
_CLOSERS = (yaml.BlockEndToken, yaml.FlowMappingEndToken, yaml.FlowSequenceEndToken)


class TextParseError(ValueError):
    """The text is not a usable document; ``location`` says where (``line L, column C``)."""

    def __init__(self, reason: str, location: str | None = None) -> None:
        super().__init__(f"{location}: {reason}" if location else reason)
        self.reason = reason
        self.location = location


def parse_rubric_text(text: str) -> Any:
    """Parse rubric text: strict JSON when it starts with ``{`` or ``[``, else restricted YAML.

    Args:
        text: The document.

    Returns:
        The parsed value (plain dicts, lists, strings, numbers, booleans, None).

    Raises:
        TextParseError: The text is not valid, or uses a forbidden YAML feature.

    """
    if text.lstrip().startswith(("{", "[")):
        return parse_json(text)
    return _parse_yaml(text)


def parse_json(text: str) -> Any:
    """Parse JSON under the product's policy (docs/json-policy.md).

    Args:
        text: The document.

    Returns:
        The parsed value.

    Raises:
        TextParseError: The text breaks the policy, with the place.

    """
    try:
        return loads(text)
    except JsonProblem as exc:
        raise TextParseError(exc.message, exc.where or None) from None


def _parse_yaml(text: str) -> Any:
    try:
        _check_tokens(text)
        return yaml.load(text, Loader=_UniqueKeyLoader)
    except yaml.MarkedYAMLError as exc:
        raise TextParseError(_yaml_reason(exc), _mark_location(exc.problem_mark)) from None
    except yaml.YAMLError as exc:
        raise TextParseError(str(exc)) from None


def _check_tokens(text: str) -> None:
    depth = 0
    for token in yaml.scan(text, Loader=yaml.SafeLoader):
        _refuse_forbidden(token)
        if isinstance(token, _OPENERS):
            depth += 1
            if depth > MAX_NESTING:
                raise TextParseError(f"nesting deeper than {MAX_NESTING}", _mark_location(token.start_mark))
        elif isinstance(token, _CLOSERS):
            depth -= 1


def _refuse_forbidden(token: yaml.Token) -> None:
    reason = _FORBIDDEN_TOKENS.get(type(token))
    if reason is not None:
        raise TextParseError(reason, _mark_location(token.start_mark))


def _yaml_reason(exc: yaml.MarkedYAMLError) -> str:
    return " ".join(part for part in (exc.context, exc.problem) if part) or "invalid YAML"


def _mark_location(mark: yaml.Mark | None) -> str | None:
    if mark is None:
        return None
    return f"line {mark.line + 1}, column {mark.column + 1}"


class _UniqueKeyLoader(yaml.SafeLoader):
    """A SafeLoader that refuses duplicate mapping keys instead of keeping the last one."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if isinstance(key, str) and key in seen:
                raise TextParseError(f"duplicate key {key!r}", _mark_location(key_node.start_mark))
            if isinstance(key, str):
                seen.add(key)
        return super().construct_mapping(node, deep=deep)

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        _check_number_node(node)
        return int(super().construct_yaml_int(node))

    def construct_yaml_float(self, node: yaml.ScalarNode) -> float:
        _check_number_node(node)
        return float(super().construct_yaml_float(node))


def _check_number_node(node: yaml.ScalarNode) -> None:
    if len(node.value) > MAX_NUMBER_CHARS:
        reason = f"a number literal of {len(node.value):,} characters; at most {MAX_NUMBER_CHARS} are accepted"
        raise TextParseError(reason, _mark_location(node.start_mark))


_UniqueKeyLoader.add_constructor("tag:yaml.org,2002:int", _UniqueKeyLoader.construct_yaml_int)
_UniqueKeyLoader.add_constructor("tag:yaml.org,2002:float", _UniqueKeyLoader.construct_yaml_float)
