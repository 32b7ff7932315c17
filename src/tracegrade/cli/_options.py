"""CLI options declared once: generated from parameter models (in their pydantic model), and the judge endpoint's."""

from __future__ import annotations

import functools
import inspect
import types
import typing
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from tracegrade.errors import ConfigError, invalid_parameter
from tracegrade.judge import ResponseFormat

if TYPE_CHECKING:
    from tracegrade.atif import JudgeTarget

__all__ = [
    "JUDGE_PANEL", "NO_ENDPOINT", "EndpointOptions", "JudgeKeyEnv", "JudgeModel", "JudgeUrl", "OptionGroup",
    "Overwrite", "validated", "with_endpoint", "with_model_options", "without_defaulted",
]

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


def with_model_options(*groups: OptionGroup, shared_cache_option: bool = True) -> Callable[[F], F]:
    """Add every field of each group's model to a typer command as an option.

    The command declares ``parameters: dict[str, Any]`` as its last argument; it receives the
    values of the generated options there, keyed by field name (defaults included). A command that
    also declares ``defaulted: frozenset[str]`` receives the names of the options left at their
    default there (none when it is called outside the command line). A command that declares
    ``endpoint: EndpointOptions`` is offered the judge endpoint's options in its place
    (:func:`with_endpoint`; ``shared_cache_option=False`` leaves out ``--judge-cache-shared-across-endpoints``).
    """

    def decorate(command: F) -> F:
        if "endpoint" in inspect.signature(command).parameters:
            command = with_endpoint(share_cache=shared_cache_option)(command)
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


JUDGE_PANEL = "Judge"
"""The help panel of the judge's options."""
JudgeKind = Annotated[str | None, typer.Option(
    "--judge", help="'local' for the embedded llama.cpp + Gemma 3 270M judge.", rich_help_panel=JUDGE_PANEL)]
JudgeUrl = Annotated[str | None, typer.Option(help="OpenAI-compatible base URL.", rich_help_panel=JUDGE_PANEL)]
JudgeModel = Annotated[str | None, typer.Option(help="Judge model name.", rich_help_panel=JUDGE_PANEL)]
JudgeKeyEnv = Annotated[str | None, typer.Option(help="Name of the env var holding the API key (never the key).",
                                                 rich_help_panel=JUDGE_PANEL)]
JudgeResponseFormat = Annotated[ResponseFormat, typer.Option(help="JSON-schema constrained output.",
                                                             rich_help_panel=JUDGE_PANEL)]
JudgeSharedCache = Annotated[bool, typer.Option(
    "--judge-cache-shared-across-endpoints",
    help="Reuse cached answers given by other endpoints for a model of the same name (by default each endpoint "
    "has its own); recorded in the run.", rich_help_panel=JUDGE_PANEL)]


@dataclass(frozen=True, slots=True)
class EndpointOptions:
    """The endpoint options as given: ``--judge``, ``--judge-url``, ``--judge-model``..."""

    kind: str | None = None
    url: str | None = None
    model: str | None = None
    api_key_env: str | None = None
    response_format: ResponseFormat = ResponseFormat.AUTO
    share_cache: bool = False

    @property
    def given(self) -> bool:
        """Whether a judge was named (``--judge``, ``--judge-url`` or ``--judge-model``)."""
        return bool(self.kind or self.url or self.model)

    def target(self) -> JudgeTarget:
        """The judge the options name.

        Raises:
            ConfigError: ``--judge`` other than ``local``, or mixed with an endpoint; an endpoint without a model.
        """
        from tracegrade.atif import JudgeTarget

        if self.kind is not None:
            if self.kind != "local":
                raise ConfigError(f"--judge: only 'local' is accepted, got {self.kind!r} "
                                  "(use --judge-url for endpoints)")
            if self.url or self.model:
                raise ConfigError("--judge local cannot be combined with --judge-url/--judge-model")
            return JudgeTarget(local=True)
        if not self.url or not self.model:
            raise ConfigError("judge: give --judge-url and --judge-model, or --judge local")
        return JudgeTarget(url=self.url, model=self.model, api_key_env=self.api_key_env,
                           response_format=self.response_format, share_cache=self.share_cache)


NO_ENDPOINT = EndpointOptions()
"""The default of a command's ``endpoint`` parameter (replaced by the options on the command line)."""

_OPTIONS = (
    ("judge_kind", "kind", JudgeKind, None),
    ("judge_url", "url", JudgeUrl, None),
    ("judge_model", "model", JudgeModel, None),
    ("judge_api_key_env", "api_key_env", JudgeKeyEnv, None),
    ("judge_response_format", "response_format", JudgeResponseFormat, ResponseFormat.AUTO),
    ("judge_cache_shared_across_endpoints", "share_cache", JudgeSharedCache, False),
)
"""Each option: its parameter, its :class:`EndpointOptions` field, its typer declaration and its default."""


def with_endpoint(*, share_cache: bool = True) -> Callable[[F], F]:
    """Offer the endpoint options where a typer command declares ``endpoint: EndpointOptions = NO_ENDPOINT``.

    The command receives them as one :class:`EndpointOptions`; ``share_cache=False`` leaves out
    ``--judge-cache-shared-across-endpoints``.
    """
    chosen = [option for option in _OPTIONS if share_cache or option[1] != "share_cache"]
    offered = [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default, annotation=kind)
               for name, _, kind, default in chosen]

    def decorate(command: F) -> F:
        signature = inspect.signature(command, eval_str=True)
        parameters = list(signature.parameters.values())
        place = [p.name for p in parameters].index("endpoint")

        @functools.wraps(command)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            given = {field: kwargs.pop(name, default) for name, field, _, default in chosen}
            return command(*args, endpoint=EndpointOptions(**given), **kwargs)

        wrapper.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=[*parameters[:place], *offered, *parameters[place + 1:]])
        return typing.cast(F, wrapper)

    return decorate
