"""What a judge job would ask and cost, with nothing sent: ``tracegrade judge --dry-run``.

Every request the job can build is built and answered by a stand-in (or by the judge cache, when it holds the
answer): a scoring request gets scores of 0, so that every step also asks its categorising question (an upper
bound of categorisation: any step could score low); a derivation in auto mode is counted, not made, and the
scoring requests of its task are built with a one-criterion stand-in rubric (their bytes are then an estimate).
Nothing is written to the cache.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from tracegrade.atif._job import JudgeInFront, JudgeTarget, effective_options, judge_settings
from tracegrade.atif._run import JobContext, score_collection
from tracegrade.atif.criteria._params import CriteriaParams
from tracegrade.atif.reading._collection import read_collection
from tracegrade.atif.scoring._params import PartialResultPolicy, ScoringOptions
from tracegrade.errors import ConfigError
from tracegrade.judge import (
    Judge,
    JudgeCache,
    JudgeRequest,
    PrefixCacheModel,
    Prices,
    Reply,
    estimate_tokens,
    prompt_bytes,
)
from tracegrade.rubric import ScoringMode

__all__ = ["OUTPUT_TOKENS", "DryRun", "PurposeCount", "StandInJudge", "dry_run_document", "dry_run_job"]

R = TypeVar("R", bound=Reply)

OUTPUT_TOKENS = {"score": 120, "categorize": 80, "derive": 300}
"""Output tokens assumed per answer, by purpose (a short JSON verdict and rationale; 100 for other purposes)."""
_OTHER_OUTPUT_TOKENS = 100


@dataclass
class PurposeCount:
    """The requests of one purpose: how many, how large, and how many the judge cache answers."""

    requests: int = 0
    """Requests that would be sent."""
    cached: int = 0
    """Requests the judge cache answers already (not sent, not priced)."""
    repeated: int = 0
    """Requests identical to an earlier one of the job (a real run answers them from the cache once the first
    is answered; not priced)."""
    prompt_bytes: int = 0
    """Bytes of the messages' text of the requests to send."""
    input_tokens: int = 0
    """Estimated input tokens (prompt bytes / 4)."""
    cacheable_tokens: int = 0
    """Of those, the tokens a prefix cache could serve (past 1,024 tokens, in 128-token blocks)."""
    output_tokens: int = 0
    """Estimated output tokens (a fixed number per answer)."""

    def add(self, size: int, tokens: int, cacheable: int, output: int) -> None:
        """Count one request to send."""
        self.requests += 1
        self.prompt_bytes += size
        self.input_tokens += tokens
        self.cacheable_tokens += cacheable
        self.output_tokens += output


@dataclass
class DryRun:
    """What a dry run found: the requests by purpose, and whether the criteria were estimated."""

    purposes: dict[str, PurposeCount] = field(default_factory=dict)
    stand_in_criteria: bool = False
    """Auto mode derived criteria that the cache did not hold: the scoring bytes of their tasks are estimates."""
    steps_unsendable: int = 0
    """Steps whose request could not be built (``context_overflow``): a real run fails them too."""


class StandInJudge(JudgeInFront):
    """A judge that counts each request and answers it with a stand-in, or from the judge cache (``--dry-run``).

    It never sends a request and never writes the cache; ``judge`` is used for its cache and settings only.
    """

    def __init__(self, judge: Judge) -> None:
        super().__init__(judge)
        self._prefix = PrefixCacheModel()
        self._asked: set[str] = set()
        self.found = DryRun()

    async def ask(self, request: JudgeRequest, parse: Callable[[dict[str, Any]], R]) -> R:
        """The cached answer to ``request``, else a stand-in answer after the request is counted."""
        count = self.found.purposes.setdefault(request.purpose, PurposeCount())
        cached = self._judge.cached(request, parse)
        if cached is not None:
            count.cached += 1
            return cached
        key = self._judge.request_key(request)
        if key in self._asked:
            count.repeated += 1
            return parse(_stand_in(request))
        self._asked.add(key)
        prompt = prompt_bytes(request)
        count.add(len(prompt), estimate_tokens(len(prompt)), self._prefix.serve(prompt),
                  OUTPUT_TOKENS.get(request.purpose, _OTHER_OUTPUT_TOKENS))
        if request.purpose == "derive":
            self.found.stand_in_criteria = True
        return parse(_stand_in(request))


def _stand_in(request: JudgeRequest) -> dict[str, Any]:
    """An answer of the right shape that lets the job go on: scores of 0, no failure category, one criterion."""
    if request.purpose == "score":
        names = request.response_schema["properties"]["scores"]["required"]
        return {"scores": dict.fromkeys(names, 0.0), "rationale": "dry run"}
    if request.purpose == "categorize":
        return {"category": "none", "rationale": "dry run"}
    if request.purpose == "derive":
        return {"criteria": [{"name": "criterion", "description": "stands in for the derived criteria", "weight": 1}]}
    raise ConfigError(f"--dry-run: requests of purpose {request.purpose!r} cannot be estimated")


async def dry_run_job(paths: Sequence[str | Path], options: ScoringOptions, criteria: CriteriaParams,
                      target: JudgeTarget, job_id: str, *, cache_path: Path | None) -> DryRun:
    """Build and count every request of the job as :func:`~tracegrade.atif._job.run_atif_job` would send them.

    Raises:
        ConfigError: for the local judge (nothing to price), or a setting the real run would refuse.
    """
    if target.local:
        raise ConfigError("--dry-run: the local judge runs on this machine; there is no price to estimate")
    options = effective_options(options, target)
    # every step is built: a failed one does not stop the count as fail_fast would stop a real run
    options = options.model_copy(update={"partial_result_policy": PartialResultPolicy.SKIP_FAILED_TRAJECTORY})
    outline = await asyncio.to_thread(read_collection, paths, options.load_options())
    # an absent cache file is not created: a dry run writes nothing but its report
    cache = JudgeCache(cache_path) if cache_path is not None and cache_path.is_file() else None
    try:
        judge = Judge(judge_settings(target, options), cache=cache)
        stand_in = StandInJudge(judge)
        results = await score_collection(outline, options, criteria, stand_in, JobContext(job_id))
    finally:
        if cache is not None:
            cache.close()
    found = stand_in.found
    found.steps_unsendable = sum(1 for node in results.nodes for step in node.steps
                                 if step.error_code == "context_overflow")
    if criteria.scoring_mode is not ScoringMode.AUTO:
        found = dataclasses.replace(found, stand_in_criteria=False)
    return found


def dry_run_document(found: DryRun, prices: Prices | None, *, batch: bool) -> dict[str, Any]:
    """``dry_run.json``: the counts by purpose and in total, how they were estimated and, with prices, the cost."""
    counts = found.purposes.values()
    total = PurposeCount(**{f.name: sum(getattr(c, f.name) for c in counts) for f in dataclasses.fields(PurposeCount)})
    rows = {purpose: _row(count, prices, batch) for purpose, count in sorted(found.purposes.items())}
    notes = [
        "input tokens are estimated as the bytes of the messages' text / 4 (no tokeniser)",
        "cacheable tokens: the prefix each request shares with an earlier request of the job, counted from "
        "1,024 tokens on in 128-token blocks (OpenAI's automatic prompt caching); an upper bound of what a "
        "provider serves",
        f"output tokens are assumed per answer: {OUTPUT_TOKENS} (others {_OTHER_OUTPUT_TOKENS})",
        "categorize is an upper bound: every scored step is counted as if it scored below the failure threshold",
    ]
    if found.stand_in_criteria:
        notes.append("auto mode: criteria not in the judge cache are derived first (counted under derive); the "
                     "scoring and categorising requests of their tasks were built with a one-criterion stand-in "
                     "rubric, so their bytes are an estimate")
    document: dict[str, Any] = {
        "purposes": rows, "total": _row(total, prices, batch), "steps_unsendable": found.steps_unsendable,
        "batch": batch, "notes": notes,
    }
    if prices is not None:
        document["prices_per_million_tokens"] = dataclasses.asdict(prices)
    return document


def _row(count: PurposeCount, prices: Prices | None, batch: bool) -> dict[str, Any]:
    row: dict[str, Any] = dataclasses.asdict(count)
    row["cacheable_share"] = count.cacheable_tokens / count.input_tokens if count.input_tokens else None
    if prices is not None:
        row["cost_online_without_cache"] = prices.cost(count.input_tokens, 0, count.output_tokens)
        row["cost_online_with_cache"] = prices.cost(count.input_tokens, count.cacheable_tokens, count.output_tokens)
        if batch:
            row["cost_batch_with_cache"] = prices.cost(count.input_tokens, count.cacheable_tokens,
                                                       count.output_tokens, batch=True)
    return row
