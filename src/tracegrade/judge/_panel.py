"""A panel of judges: every question asked of every member, each answer cached on its own.

The panel is a :class:`JudgeProtocol` whose ``ask`` is the chair's (the first member's) answer, for questions
that need one answer (criteria derivation); ``ask_all`` returns every member's answer or error, for the front
door to aggregate. It records every member's identity in its provenance, so a comparison treats the panel as
the judge.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from tracegrade.errors import ConfigError, InputError, JudgeError, validation_message
from tracegrade.judge._cache import JudgeCache
from tracegrade.judge._judge import Judge
from tracegrade.judge._request import JudgeRequest, Reply, dumps
from tracegrade.judge._settings import JudgeOptions, JudgeSettings, ResponseFormat
from tracegrade.judge._telemetry import JudgeStats, JudgeTelemetry

__all__ = ["MemberAnswer", "PanelAggregation", "PanelJudge", "PanelMember", "PanelSpec", "read_panel"]

R = TypeVar("R", bound=Reply)
PanelAggregation = Literal["mean", "median", "weighted_mean"]
_MAX_PANEL_BYTES = 1 << 20
_MEMBER_OPTIONS = ("judge_temperature", "judge_max_tokens", "judge_seed", "judge_timeout_seconds",
                   "judge_max_attempts", "concurrency_limit")


class PanelMember(BaseModel):
    """One judge of the panel, as the panel file lists it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$")
    url: str
    model: str = Field(min_length=1)
    api_key_env: str | None = None
    weight: float = Field(1.0, gt=0.0, allow_inf_nan=False)
    response_format: ResponseFormat = ResponseFormat.AUTO
    judge_temperature: float | None = None
    judge_max_tokens: int | None = None
    judge_seed: int | None = None
    judge_timeout_seconds: float | None = None
    judge_max_attempts: int | None = None
    concurrency_limit: int | None = None

    def settings(self, options: JudgeOptions) -> JudgeSettings:
        """The member's settings: the run's judge options with the member's own settings over them."""
        own = {name: getattr(self, name) for name in _MEMBER_OPTIONS if getattr(self, name) is not None}
        try:
            base = {name: getattr(options, name) for name in JudgeOptions.model_fields}
            merged = JudgeOptions.model_validate({**base, **own})
        except ValidationError as exc:
            raise ConfigError(f"panel judge {self.name}: {validation_message(exc)}") from None
        return JudgeSettings(base_url=self.url, model=self.model, api_key_env=self.api_key_env,
                             response_format=self.response_format, options=merged)


class PanelSpec(BaseModel):
    """The panel file: its judges, how their scores combine, and how many answers a step needs."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    judges: tuple[PanelMember, ...] = Field(min_length=1)
    aggregation: PanelAggregation = "mean"
    min_answers: int | None = Field(None, ge=1, description="Answers a step needs (default: every judge's).")

    @model_validator(mode="after")
    def _check(self) -> PanelSpec:
        names = [j.name for j in self.judges]
        if len(set(names)) != len(names):
            raise ValueError(f"judge names repeat: {sorted({n for n in names if names.count(n) > 1})}")
        if self.min_answers is not None and self.min_answers > len(self.judges):
            raise ValueError(f"min_answers {self.min_answers} is more than the {len(self.judges)} judges")
        return self

    @property
    def needed(self) -> int:
        """Answers a step needs to be scored."""
        return self.min_answers if self.min_answers is not None else len(self.judges)

    def identity(self) -> str:
        """The panel as one model name: every member's name and model, in the file's order."""
        return "panel[" + ",".join(f"{j.name}={j.model}" for j in self.judges) + "]"


def read_panel(path: Path, *, aggregation: PanelAggregation | None = None,
               min_answers: int | None = None) -> PanelSpec:
    """The panel file at ``path`` (YAML or JSON), with command-line overrides.

    Raises:
        InputError: the file cannot be read, is not YAML, or breaks a rule (one line naming the file and place).
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read the panel file ({exc.strerror or type(exc).__name__})") from None
    if len(data) > _MAX_PANEL_BYTES:
        raise InputError(f"{path}: the panel file is larger than {_MAX_PANEL_BYTES} bytes")
    try:
        document = yaml.safe_load(data.decode("utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not a YAML panel file ({type(exc).__name__})") from None
    if not isinstance(document, dict):
        raise InputError(f"{path}: a panel file is a mapping with a judges: list")
    overrides = {k: v for k, v in (("aggregation", aggregation), ("min_answers", min_answers)) if v is not None}
    try:
        return PanelSpec.model_validate({**document, **overrides})
    except ValidationError as exc:
        raise InputError(f"{path}: {validation_message(exc)}") from None


@dataclass(frozen=True, slots=True)
class MemberAnswer:
    """One member's answer to one question, or the safe code of its failure."""

    name: str
    weight: float
    reply: Any | None
    error_code: str | None = None


class PanelJudge:
    """Several judges asked the same questions; use as an async context manager.

    Args:
        spec: The panel.
        options: The run's judge options (each member's own settings override them).
        cache: The validated-answer cache shared by the members (each member's answers have their own keys).
        telemetry: OpenTelemetry instruments shared by the members.
        environ: Environment to read the members' API keys from (default ``os.environ``).

    Raises:
        ConfigError: a member's settings are unusable or its API key variable is not set.
    """

    def __init__(self, spec: PanelSpec, options: JudgeOptions, *, cache: JudgeCache | None = None,
                 telemetry: JudgeTelemetry | None = None, environ: Mapping[str, str] | None = None) -> None:
        self.spec = spec
        self.members = [(member, Judge(member.settings(options), cache=cache, telemetry=telemetry, environ=environ))
                        for member in spec.judges]
        recorded = [{"name": m.name, "weight": m.weight, **judge.provenance()} for m, judge in self.members]
        digest = hashlib.sha256(dumps({"members": recorded, "aggregation": spec.aggregation,
                                       "min_answers": spec.needed})).hexdigest()[:12]
        self.identity = f"{spec.identity()}#{digest}"
        """The panel as one model name: members' names and models, and a digest of every setting that shapes a
        score (members' settings and weights, the aggregation, the answers a step needs)."""
        self.settings = dataclasses.replace(self.members[0][1].settings, model=self.identity)
        self.failures = dict.fromkeys((m.name for m in spec.judges), 0)
        """Questions each member failed to answer."""

    async def __aenter__(self) -> PanelJudge:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close every member's connections."""
        for _, judge in self.members:
            await judge.aclose()

    @property
    def stats(self) -> JudgeStats:
        """The members' counters summed."""
        total = JudgeStats()
        for _, judge in self.members:
            for item in dataclasses.fields(JudgeStats):
                value = getattr(judge.stats, item.name)
                if isinstance(value, int | float) and not isinstance(value, bool):
                    setattr(total, item.name, getattr(total, item.name) + value)
        return total

    def provenance(self) -> dict[str, Any]:
        """The panel as the judge: its identity as ``model``, and every member's identity and failures."""
        chair = self.members[0][1].provenance()
        return {
            **chair, "model": self.identity, "aggregation": self.spec.aggregation,
            "min_answers": self.spec.needed,
            "panel": [{"name": m.name, "weight": m.weight, **judge.provenance(),
                       "failed_questions": self.failures[m.name]} for m, judge in self.members],
        }

    async def ask(self, request: JudgeRequest, parse: Callable[[dict[str, Any]], R]) -> R:
        """The chair's (first member's) answer: for questions that take one answer, such as criteria derivation.

        Raises:
            JudgeError: the chair's failure.
        """
        return await self.members[0][1].ask(request, parse)

    async def ask_all(self, request: JudgeRequest, parse: Callable[[dict[str, Any]], R]) -> list[MemberAnswer]:
        """Every member's answer or failure, in the panel's order."""

        async def one(member: PanelMember, judge: Judge) -> MemberAnswer:
            try:
                return MemberAnswer(member.name, member.weight, await judge.ask(request, parse))
            except JudgeError as error:
                self.failures[member.name] += 1
                return MemberAnswer(member.name, member.weight, None, error.code)

        return list(await asyncio.gather(*(one(member, judge) for member, judge in self.members)))
