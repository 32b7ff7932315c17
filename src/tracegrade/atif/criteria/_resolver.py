"""Resolve the criteria for each trajectory node of a job.

In auto mode criteria are derived once per distinct task (whitespace-insensitive) and derivation template;
nodes asking for the same one share its derivation.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from tracegrade.atif.criteria._benchmark import BENCHMARK_REGISTRY_VERSION
from tracegrade.atif.criteria._params import CriteriaParams, validate_criteria_params
from tracegrade.atif.criteria._sources import CriteriaFailure, CriteriaFailureCode, ResolvedCriteria
from tracegrade.atif.reading._task import resolve_task, task_hash
from tracegrade.errors import InputError, JudgeError
from tracegrade.rubric import Rubric, ScoringMode

if TYPE_CHECKING:
    from tracegrade.atif.reading._records import TrajectoryNode

__all__ = ["CriteriaResolver", "DeriveCriteria", "build_resolver"]

DeriveCriteria = Callable[[str], Awaitable[Rubric]]
"""Async function that asks the judge for criteria for one (normalised) task."""

_DerivationKey = tuple[str, str]


class CriteriaResolver:
    """Gives each trajectory node the rubric that scores it, with provenance.

    Build it with :func:`build_resolver`. It keeps the auto-mode derivations of one job, so
    use one resolver per job and one event loop.
    """

    def __init__(self, params: CriteriaParams, *, derive: DeriveCriteria | None = None,
                 template_hash: str | None = None, prompt_version: str | None = None,
                 auto_source: str | None = None) -> None:
        if params.scoring_mode is ScoringMode.AUTO and (derive is None or not template_hash):
            raise TypeError("auto scoring mode needs a derive function and a non-empty template_hash")
        if params.scoring_mode is not ScoringMode.AUTO and params.rubric is None:
            raise TypeError(f"{params.scoring_mode.value} mode needs params built by validate_criteria_params")
        self._params = params
        self._derive = derive
        self._template_hash = template_hash
        self._prompt_version = prompt_version
        self._auto_source = auto_source
        self._derivations: dict[_DerivationKey, asyncio.Future[Rubric]] = {}

    @property
    def params(self) -> CriteriaParams:
        """The validated parameters this resolver was built from."""
        return self._params

    async def resolve(self, node: TrajectoryNode) -> ResolvedCriteria | CriteriaFailure:
        """The node's criteria with provenance, or a failure with a safe code (a failed derivation keeps the judge's).

        Every mode resolves the node's task when it can (the judge needs it to score steps); only auto mode fails
        without one.
        """
        mode = self._params.scoring_mode
        if node.trajectory is None:
            message = f"node {node.node_id!r} holds no loaded trajectory"
            return CriteriaFailure(CriteriaFailureCode.NODE_NOT_LOADED, message, mode)
        task = resolve_task(node)
        digest = task_hash(task) if task is not None else None
        if mode is ScoringMode.AUTO:
            return await self._resolve_auto(task, digest)
        if mode is ScoringMode.REFERENCE:
            return self._resolve_reference(node, task, digest)
        return self._resolve_fixed(task, digest)

    async def _resolve_auto(self, task: str | None, digest: str | None) -> ResolvedCriteria | CriteriaFailure:
        if task is None or digest is None:
            return CriteriaFailure(CriteriaFailureCode.TASK_UNRESOLVED, _NO_TASK, ScoringMode.AUTO)
        try:
            rubric = await self._derived(task, digest)
        except (JudgeError, InputError) as exc:
            message = f"criteria derivation failed: {exc.message}"
            return CriteriaFailure(exc.code, message, ScoringMode.AUTO, digest)
        except ValidationError as exc:
            message = f"derived criteria failed validation ({exc.error_count()} error(s))"
            return CriteriaFailure(CriteriaFailureCode.INVALID_CRITERIA, message, ScoringMode.AUTO, digest)
        return ResolvedCriteria(rubric=rubric, mode=ScoringMode.AUTO, task=task, task_hash=digest,
                                prompt_version=self._prompt_version, template_hash=self._template_hash,
                                rubric_source=self._auto_source)

    async def _derived(self, task: str, digest: str) -> Rubric:
        assert self._derive is not None and self._template_hash is not None  # checked in __init__
        key = (digest, self._template_hash)
        future = self._derivations.get(key)
        if future is None:
            future = asyncio.ensure_future(self._derive(task))
            future.add_done_callback(partial(self._settled, key))
            self._derivations[key] = future
        # shield: one waiter being cancelled must not cancel the derivation others share.
        return await asyncio.shield(future)

    def _settled(self, key: _DerivationKey, future: asyncio.Future[Rubric]) -> None:
        if future.cancelled():
            # A cancelled derivation produced nothing; let a later request try again.
            self._derivations.pop(key, None)
        else:
            future.exception()  # mark retrieved: waiters may all have gone away

    def _resolve_reference(self, node: TrajectoryNode, task: str | None,
                           digest: str | None) -> ResolvedCriteria | CriteriaFailure:
        reference = self._params.reference
        assert reference is not None  # validate_criteria_params sets it in reference mode
        choice = reference.select(node)
        if choice.reference_id is None or choice.answer is None:
            problem = choice.problem or "no reference"
            return CriteriaFailure(CriteriaFailureCode.REFERENCE_MISSING, problem, ScoringMode.REFERENCE, digest)
        return ResolvedCriteria(rubric=reference.rubric, mode=ScoringMode.REFERENCE, task=task, task_hash=digest,
                                prompt_version=self._prompt_version, reference_rubric=reference.name,
                                reference_id=choice.reference_id, reference_answer=choice.answer,
                                reference_registry_version=reference.registry_version,
                                reference_registry_sha256=reference.registry_sha256)

    def _resolve_fixed(self, task: str | None, digest: str | None) -> ResolvedCriteria:
        params = self._params
        assert params.rubric is not None  # checked in __init__
        benchmark = params.scoring_mode is ScoringMode.BENCHMARK
        return ResolvedCriteria(rubric=params.rubric, mode=params.scoring_mode, task=task, task_hash=digest,
                                prompt_version=self._prompt_version, benchmark_name=params.benchmark_name,
                                benchmark_registry_version=BENCHMARK_REGISTRY_VERSION if benchmark else None,
                                rubric_source=_custom_source(params))


_NO_TASK = (
    "no task found: the trajectory has no extra.task_instruction and no user step with text "
    "(auto mode never takes the task from tool output)"
)


def _custom_source(params: CriteriaParams) -> str | None:
    if params.custom_rubric_path is not None:
        return f"{params.custom_rubric_source}={params.custom_rubric_path}"
    return params.custom_rubric_source


def build_resolver(params: CriteriaParams | Mapping[str, Any], *, derive: DeriveCriteria | None = None,
                   template_hash: str | None = None, prompt_version: str | None = None,
                   auto_source: str | None = None) -> CriteriaResolver:
    """The criteria resolver of one job; ``params`` validated already, or raw job parameters (validated here).

    Auto mode requires ``derive`` (criteria for a task; a :class:`~tracegrade.errors.JudgeError` with a code when
    the answer is unusable) and ``template_hash`` (of the derivation prompt, part of the derivation key and of
    provenance). ``prompt_version`` is recorded in provenance; ``auto_source`` is the ``rubric_source`` of criteria
    that ``derive`` makes without the judge (the local judge's generic rubric).

    Raises:
        ConfigError: raw parameters are invalid.
        InputError: a configuration file named by the parameters is unusable.
        TypeError: auto mode without ``derive`` or ``template_hash``.
    """
    if not isinstance(params, CriteriaParams):
        params = validate_criteria_params(params)
    return CriteriaResolver(
        params, derive=derive, template_hash=template_hash, prompt_version=prompt_version, auto_source=auto_source
    )
