"""Criteria and rubrics: the models, their limits and safe YAML/JSON parsing (shared by every front door)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracegrade._lazy import lazy_attributes

if TYPE_CHECKING:
    from tracegrade.rubric._custom import CUSTOM_RUBRIC_MAX_BYTES as CUSTOM_RUBRIC_MAX_BYTES
    from tracegrade.rubric._custom import CUSTOM_SOURCES as CUSTOM_SOURCES
    from tracegrade.rubric._custom import custom_sources_given as custom_sources_given
    from tracegrade.rubric._custom import load_custom_rubric as load_custom_rubric
    from tracegrade.rubric._files import as_path as as_path
    from tracegrade.rubric._files import read_capped_text as read_capped_text
    from tracegrade.rubric._models import MAX_CRITERIA as MAX_CRITERIA
    from tracegrade.rubric._models import MAX_DESCRIPTION_CHARS as MAX_DESCRIPTION_CHARS
    from tracegrade.rubric._models import Aggregation as Aggregation
    from tracegrade.rubric._models import Criterion as Criterion
    from tracegrade.rubric._models import Rubric as Rubric
    from tracegrade.rubric._models import ScoringMode as ScoringMode
    from tracegrade.rubric._models import aggregate as aggregate
    from tracegrade.rubric._shape import MAX_NAME_CHARS as MAX_NAME_CHARS
    from tracegrade.rubric._shape import check_keys as check_keys
    from tracegrade.rubric._shape import rubric_from_data as rubric_from_data
    from tracegrade.rubric._shape import text_field as text_field
    from tracegrade.rubric._shape import version_text as version_text
    from tracegrade.rubric._yaml import TextParseError as TextParseError
    from tracegrade.rubric._yaml import parse_json as parse_json
    from tracegrade.rubric._yaml import parse_rubric_text as parse_rubric_text

__getattr__, __dir__, __all__ = lazy_attributes(__name__)
