"""CLI options generated from parameter models, so each parameter is declared once (in its pydantic model)."""

from __future__ import annotations

import functools
import inspect
import types
import typing
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Annotated, Any, TypeVar

import typer
from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from tracegrade.errors import invalid_parameter

__all__ = ["OptionGroup", "Overwrite", "validated", "with_model_options", "without_defaulted"]

Overwrite = Annotated[bool, typer.Option(
    "--overwrite", help="Write into an output folder that holds something else (files of the same names are "
    "replaced). Without it a non-empty folder is refused unless it holds this command's own earlier run.")]
"""The one overwrite switch of every command that writes a folder (README: "Output folders")."""

F = TypeVar("F", bound=Callable[..., Any])
M = TypeVar("M", bound=BaseModel)


def validated(model: type[M], parameters: Mapping[str, Any], flags: Mapping[str, str] | None = None) -> M:
    """The model of the generated options' values (others left out); a bad value is one line naming its flag.

    Raises:
        ConfigError: :func:`~tracegrade.errors.validation_message` of the first problem, with its flag.
    """
    try:
        return model.model_validate({k: v for k, v in parameters.items() if k in model.model_fields})
    except ValidationError as exc:
        raise invalid_parameter(exc, flags=flags or {}) from None


@dataclass(frozen=True)
class OptionGroup:
    """Fields of ``model`` offered as ``--kebab-case`` options in one help panel."""

    model: type[BaseModel]
    panel: str
    exclude: Collection[str] = ()
    flags: Mapping[str, str] = field(default_factory=dict)
    """Field name to a different flag (e.g. ``tolerant_inputs`` → ``--tolerant``)."""
    only: Collection[str] | None = None


_CONTEXT = "_options_context"
"""Name of the context parameter the decorator adds, to tell given options from defaulted ones."""
_NOT_GIVEN = frozenset({"DEFAULT", "DEFAULT_MAP"})
"""Parameter sources of an option the user did not give (typer's ``ParameterSource`` names)."""


def with_model_options(*groups: OptionGroup) -> Callable[[F], F]:
    """Add every field of each group's model to a typer command as an option.

    The command declares ``parameters: dict[str, Any]`` as its last argument; it receives the
    values of the generated options there, keyed by field name (defaults included). A command that
    also declares ``defaulted: frozenset[str]`` receives the names of the options left at their
    default there (none when it is called outside the command line).
    """

    def decorate(command: F) -> F:
        signature = inspect.signature(command, eval_str=True)
        base = [p for p in signature.parameters.values() if p.name not in ("parameters", "defaulted")]
        generated = [p for group in groups for p in _options(group)]
        names = [p.name for p in generated]
        wants_defaulted = "defaulted" in signature.parameters
        own = next((p.name for p in base if p.annotation is typer.Context), None)  # typer passes one context
        context = [] if own else [
            inspect.Parameter(_CONTEXT, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=typer.Context)]

        @functools.wraps(command)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            found: typer.Context | None = kwargs.get(own) if own else kwargs.pop(_CONTEXT, None)
            parameters = {name: kwargs.pop(name) for name in names}
            if wants_defaulted:
                kwargs["defaulted"] = _defaulted(found, names)
            return command(*args, parameters=parameters, **kwargs)

        wrapper.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=[*base, *generated, *context])
        return typing.cast(F, wrapper)

    return decorate


def without_defaulted(parameters: Mapping[str, Any], defaulted: Collection[str]) -> dict[str, Any]:
    """``parameters`` less the options left at their default.

    A model validated from the result knows which fields were given (``model_fields_set``), so that a
    default depending on something else (the local judge's smaller request budget) applies.
    """
    return {name: value for name, value in parameters.items() if name not in defaulted}


def _defaulted(context: typer.Context | None, names: list[str]) -> frozenset[str]:
    if context is None:
        return frozenset()
    sources = {name: context.get_parameter_source(name) for name in names}
    return frozenset(name for name, source in sources.items() if source is not None and source.name in _NOT_GIVEN)


def _options(group: OptionGroup) -> list[inspect.Parameter]:
    selected = [
        (name, info) for name, info in group.model.model_fields.items()
        if name not in group.exclude and (group.only is None or name in group.only)
    ]
    return [_option(name, info, group) for name, info in selected]


def _option(name: str, info: FieldInfo, group: OptionGroup) -> inspect.Parameter:
    flag = group.flags.get(name, "--" + name.replace("_", "-"))
    kind = _cli_type(info.annotation)
    if kind is bool and info.default is True:  # a switch that is on by default needs its off form
        flag = f"{flag}/--no-{flag.removeprefix('--')}"
    option = typer.Option(flag, help=info.description, rich_help_panel=group.panel)
    return inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY, default=info.default, annotation=Annotated[kind, option]
    )


def _cli_type(annotation: Any) -> Any:
    """The type typer parses: strict and constrained types become plain ones, objects become text (paths stay)."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        members = [a for a in typing.get_args(annotation) if a is not type(None)]
        inner = str if len(members) > 1 else _cli_type(members[0])
        return inner | None
    if origin is Annotated:
        return _cli_type(typing.get_args(annotation)[0])
    if annotation is bool:
        return bool
    if isinstance(annotation, type) and issubclass(annotation, int):
        return int
    if annotation in (float, str) or (isinstance(annotation, type) and issubclass(annotation, str | PurePath)):
        return annotation
    return str
