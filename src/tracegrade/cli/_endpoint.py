"""The judge endpoint's options (``--judge``, ``--judge-url``...), declared once for every command that asks a judge."""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from tracegrade.errors import ConfigError
from tracegrade.judge import ResponseFormat

if TYPE_CHECKING:
    from tracegrade.atif import JudgeTarget

__all__ = ["JUDGE_PANEL", "NO_ENDPOINT", "Endpoint", "JudgeKeyEnv", "JudgeModel", "JudgeUrl", "with_endpoint"]

F = TypeVar("F", bound=Callable[..., Any])

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
class Endpoint:
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


NO_ENDPOINT = Endpoint()
"""The default of a command's ``endpoint`` parameter (replaced by the options on the command line)."""

_OPTIONS = (
    ("judge_kind", "kind", JudgeKind, None),
    ("judge_url", "url", JudgeUrl, None),
    ("judge_model", "model", JudgeModel, None),
    ("judge_api_key_env", "api_key_env", JudgeKeyEnv, None),
    ("judge_response_format", "response_format", JudgeResponseFormat, ResponseFormat.AUTO),
    ("judge_cache_shared_across_endpoints", "share_cache", JudgeSharedCache, False),
)
"""Each option: its parameter, its :class:`Endpoint` field, its typer declaration and its default."""


def with_endpoint(*, share_cache: bool = True) -> Callable[[F], F]:
    """Offer the endpoint options where a typer command declares ``endpoint: Endpoint = NO_ENDPOINT``.

    The command receives them as one :class:`Endpoint`; ``share_cache=False`` leaves out
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
            return command(*args, endpoint=Endpoint(**given), **kwargs)

        wrapper.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=[*parameters[:place], *offered, *parameters[place + 1:]])
        return typing.cast(F, wrapper)

    return decorate
