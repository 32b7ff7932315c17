"""One ATIF scoring job through provider batch jobs (``tracegrade judge --judge-batch``), in rounds.

A round runs the job without sending anything: every request the judge cache cannot answer is collected (a
derivation holds back its task's scoring, a score its categorisation), and those not yet in a recorded batch
are sent as batch jobs split at the provider's limits. Each batch, and the custom ids it covers (each request's
cache key), are recorded in the run folder's ``batch.json`` (written atomically and synced) before the upload
and after each step of it, so that a stopped or killed run followed by the same command waits for the same
batches and never sends a request twice. Answers are validated as online answers are and go into the same judge
cache; a failed line, a request missing from an expired, cancelled or failed batch becomes an error code,
recorded too. When a round finds nothing left to ask, the job runs once more, answered from the cache (and the
recorded errors), and writes its results as an online run does.

``--judge-batch-export FILE`` writes a round's requests as a batch input file instead, and
``--judge-batch-import FILE`` reads a batch output file (``vllm run-batch -i FILE -o OUT``, any queue).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import orjson

from tracegrade._io import loads_written, write_atomic
from tracegrade.atif._job import JudgeInFront, JudgeTarget, chained_on_root, effective_options, open_judge
from tracegrade.atif._localise import LocaliseInputs, localise_paths
from tracegrade.atif._run import JobContext, score_collection
from tracegrade.atif.criteria._params import CriteriaParams
from tracegrade.atif.localising._params import LocaliseOptions, Strategy
from tracegrade.atif.localising._records import LocalisationResults
from tracegrade.atif.output._artifacts import write_artifacts
from tracegrade.atif.output._step_list import KeptSections
from tracegrade.atif.reading._collection import read_collection
from tracegrade.atif.scoring._params import PartialResultPolicy, ScoringOptions
from tracegrade.atif.scoring._results import EvaluationResults
from tracegrade.errors import ConfigError, InputError, Interrupted, JudgeError
from tracegrade.judge import (
    FINAL_STATUSES,
    BatchClient,
    BatchInfo,
    Judge,
    JudgeProtocol,
    JudgeRequest,
    JudgeSettings,
    JudgeTelemetry,
    Reply,
    batch_line,
    parse_line,
)
from tracegrade.runs import RunFolder

__all__ = ["BATCH_STATE_NAME", "BatchOptions", "BatchState", "Exported", "cancel_batches", "in_rounds", "run_batch_job",
           "run_localise_batch"]

R = TypeVar("R", bound=Reply)

BATCH_STATE_NAME = "batch.json"
"""The run folder's record of the batches sent for it."""
PENDING = "batch_pending"
"""The code a request waiting for its batch raises while a round collects (never in results)."""


@dataclass(frozen=True, slots=True)
class BatchOptions:
    """How batch jobs are sent and waited for."""

    max_requests: int = 50_000
    """Most requests in one batch (OpenAI's limit)."""
    max_bytes: int = 200_000_000
    """Most bytes of one batch input file (OpenAI's limit is 200 MB)."""
    poll_seconds: float = 30.0
    """Seconds between looks at the batches while waiting."""
    window: str = "24h"
    """The completion window asked for."""
    fallback_online: bool = False
    """Send the requests a batch failed online instead of recording their error."""
    export: Path | None = None
    """Write a round's requests to this batch input file instead of sending them."""
    imports: tuple[Path, ...] = ()
    """Batch output files to read before sending anything."""


@dataclass(frozen=True, slots=True)
class Exported:
    """A round's requests written to ``--judge-batch-export`` instead of being sent."""

    path: Path
    requests: int


@dataclass
class BatchState:
    """``batch.json``: every batch sent for the run folder, and the requests a batch could not answer."""

    path: Path
    batches: list[dict[str, Any]] = field(default_factory=list)
    """Each: ``custom_ids``, ``file_id`` (None until uploaded), ``batch_id`` (None until created), ``status``,
    ``counts``."""
    failures: dict[str, str] = field(default_factory=dict)
    """Error code by custom id."""

    @classmethod
    def load(cls, path: Path) -> BatchState:
        """The state in ``path``, or a new one when the file does not exist.

        Raises:
            InputError: when the file is not a batch state (one line naming it).
        """
        if not path.exists():
            return cls(path)
        try:
            document = loads_written(path.read_bytes())
            batches = [dict(b) for b in document["batches"]]
            failures = {str(k): str(v) for k, v in document["failures"].items()}
            for entry in batches:
                entry["custom_ids"] = [str(c) for c in entry["custom_ids"]]
        except (OSError, orjson.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
            raise InputError(f"{path}: not a tracegrade batch record (move it away to start over)") from None
        return cls(path, batches, failures)

    def save(self) -> None:
        """Write the state atomically and sync it to disk."""
        write_atomic(self.path, orjson.dumps({"batches": self.batches, "failures": self.failures},
                                             option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS), sync=True)

    def covering(self) -> dict[str, dict[str, Any]]:
        """The recorded batch of each custom id (the latest when several cover it)."""
        return {custom_id: entry for entry in self.batches for custom_id in entry["custom_ids"]}


@dataclass(frozen=True, slots=True)
class _Ask:
    """A request waiting for its answer, and the validator of the answer."""

    request: JudgeRequest
    parse: Callable[[dict[str, Any]], Any]


class _BatchCollector(JudgeInFront):
    """A judge that answers from the cache and the recorded failures, and collects every other request.

    ``final``: the run whose results are kept; a request without an answer fails with its recorded code
    (``batch_missing`` without one), or is sent online when ``fallback`` is set.
    """

    def __init__(self, judge: Judge, state: BatchState, *, final: bool = False, fallback: bool = False) -> None:
        super().__init__(judge)
        self._state = state
        self._final = final
        self._fallback = fallback
        self.pending: dict[str, _Ask] = {}
        """The requests without an answer, by custom id."""

    async def ask(self, request: JudgeRequest, parse: Callable[[dict[str, Any]], R]) -> R:
        """The cached answer, else the recorded failure, else (collecting) a pending request."""
        answer = self._judge.cached(request, parse, count=self._final)
        if answer is not None:
            return answer
        key = self._judge.request_key(request)
        code = self._state.failures.get(key)
        if self._final:
            if self._fallback:  # a request a batch failed, or one that waited for it (a low step's category)
                return await self._judge.ask(request, parse)
            code = code or "batch_missing"
        if code is not None:
            raise JudgeError(f"the batch did not answer this request ({code})", code=code)
        self.pending.setdefault(key, _Ask(request, parse))
        raise JudgeError("waiting for a batch", code=PENDING)


async def run_batch_job(paths: Sequence[str | Path], options: ScoringOptions, criteria: CriteriaParams,
                        target: JudgeTarget, context: JobContext, *, folder: RunFolder, cache_path: Path | None,
                        batch: BatchOptions, report: Callable[[str], None] = lambda line: None,
                        stop: asyncio.Event | None = None,
                        meter_provider: Any = None) -> tuple[EvaluationResults, dict[str, Path]] | Exported:
    """Score ``paths`` through batch jobs and write the artifacts, or export a round's requests.

    ``report`` receives progress lines (each batch's status and request counts while waiting); setting
    ``stop`` ends the wait with :class:`~tracegrade.errors.Interrupted` (the batches stay recorded).

    Raises:
        ConfigError: for the local judge, or without a judge cache.
        JudgeError: when the Batch API cannot be reached or refuses a call (an operational error).
        Interrupted: when ``stop`` was set while waiting.
    """
    _check(target, cache_path)
    options = effective_options(options, target)
    context = dataclasses.replace(context, spool_dir=context.spool_dir or folder.path)
    kept = KeptSections(context.spool_dir)  # the report's step list, rendered as each root of the last round ends
    context = dataclasses.replace(context, on_root=chained_on_root(context.on_root, kept.add))
    collecting = options.model_copy(update={"partial_result_policy": PartialResultPolicy.SKIP_FAILED_TRAJECTORY})
    telemetry = JudgeTelemetry(meter_provider, prefix="atif", job_id=context.job_id,
                               scoring_mode=criteria.scoring_mode.value)

    async def once(judge: JudgeProtocol, final: bool) -> EvaluationResults:
        outline = await asyncio.to_thread(read_collection, paths, options.load_options())
        if final:
            return await score_collection(outline, options, criteria, judge, context)
        return await score_collection(outline, collecting, criteria, judge, JobContext(context.job_id))

    try:
        async with open_judge(target, options, cache_path=cache_path, telemetry=telemetry) as judge:
            assert isinstance(judge, Judge)  # a panel is refused by _check
            outcome = await in_rounds(judge, once, folder.path / BATCH_STATE_NAME, batch, context.job_id, report,
                                      stop)
        if isinstance(outcome, Exported):
            return outcome
        return outcome, write_artifacts(outcome, folder, sections=kept)
    finally:
        kept.close()


def _check(target: JudgeTarget, cache_path: Path | None) -> None:
    if target.local:
        raise ConfigError("--judge-batch: the local judge has no batch API")
    if target.panel is not None:
        raise ConfigError("--judge-batch with --judge-panel: not supported (ask a panel online)")
    if cache_path is None:
        raise ConfigError("--judge-batch: batch answers are kept in the judge cache; drop --no-cache")


T = TypeVar("T")


async def in_rounds(judge: Judge, once: Callable[[JudgeProtocol, bool], Awaitable[T]], state_path: Path,
                    batch: BatchOptions, job_id: str, report: Callable[[str], None] = lambda line: None,
                    stop: asyncio.Event | None = None) -> T | Exported:
    """A job's rounds: ``once(collector, False)`` collects, its requests go out as batch jobs, until none is new.

    Then ``once(collector, True)`` runs answered from the cache and the recorded failures, and its outcome is
    returned. ``state_path`` is the ``batch.json`` of the job's folder.
    """
    state = BatchState.load(state_path)
    stop = stop or asyncio.Event()
    imported = False
    api: BatchClient | None = None
    try:
        while True:
            collector = _BatchCollector(judge, state)
            await once(collector, False)
            if not collector.pending:
                break
            if batch.imports and not imported:
                imported = True
                for path in batch.imports:
                    _apply(judge, state, collector.pending, _read_output(path), report, what=str(path))
                state.save()
                continue
            if batch.export is not None:
                return _export(collector.pending, batch.export, judge)
            api = api or BatchClient(judge.settings)
            await _send(api, judge, state, collector.pending, batch, job_id, report)
            await _wait(api, state, set(collector.pending), batch.poll_seconds, report, stop)
            await _download(api, judge, state, collector.pending, report)
        judge.stats.batch_requests = sum(len(e["custom_ids"]) for e in state.batches if e["batch_id"])
        return await once(_BatchCollector(judge, state, final=True, fallback=batch.fallback_online), True)
    finally:
        if api is not None:
            await api.aclose()


async def cancel_batches(settings: JudgeSettings, state_path: Path, report: Callable[[str], None]) -> int:
    """Ask the provider to cancel every recorded batch that is not final; how many were asked."""
    state = BatchState.load(state_path)
    api = BatchClient(settings)
    asked = 0
    try:
        for entry in state.batches:
            if entry["batch_id"] is not None and entry["status"] not in FINAL_STATUSES:
                info = await api.cancel(entry["batch_id"])
                _record(state, entry, info)
                report(f"batch {info.id}: {info.status}")
                asked += 1
    finally:
        await api.aclose()
    return asked


def _chunks(lines: list[bytes], max_requests: int, max_bytes: int) -> list[list[bytes]]:
    """The lines split into files of at most ``max_requests`` lines and ``max_bytes`` bytes."""
    chunks: list[list[bytes]] = []
    size = 0
    for line in lines:
        if len(line) > max_bytes:
            raise ConfigError(f"--judge-batch-max-bytes {max_bytes}: one request needs {len(line)} bytes")
        if not chunks or len(chunks[-1]) >= max_requests or size + len(line) > max_bytes:
            chunks.append([])
            size = 0
        chunks[-1].append(line)
        size += len(line)
    return chunks


def _line(judge: Judge, key: str, ask: _Ask, url_path: str) -> bytes:
    return batch_line(key, url_path, judge.chat_body(ask.request))


async def _send(api: BatchClient, judge: Judge, state: BatchState, pending: dict[str, _Ask], batch: BatchOptions,
                job_id: str, report: Callable[[str], None]) -> None:
    """Send the pending requests no batch covers, and finish the sending of batches a stopped run began."""
    for begun in state.batches:  # recorded but not created: a run stopped before or during its creation
        if begun["batch_id"] is None and set(begun["custom_ids"]) & pending.keys():
            content = b"".join(_line(judge, key, pending[key], api.url_path)
                               for key in begun["custom_ids"] if key in pending)
            await _create(api, state, begun, content, batch, job_id, report)
    covered = state.covering()
    lines = [(key, _line(judge, key, ask, api.url_path)) for key, ask in pending.items() if key not in covered]
    by_line = {line: key for key, line in lines}
    for number, chunk in enumerate(_chunks([line for _, line in lines], batch.max_requests, batch.max_bytes)):
        entry: dict[str, Any] = {"custom_ids": [by_line[line] for line in chunk], "file_id": None, "batch_id": None,
                                 "status": "uploading", "counts": {}}
        state.batches.append(entry)
        state.save()  # the custom ids are recorded before the upload begins
        await _create(api, state, entry, b"".join(chunk), batch, job_id, report, number=number)


async def _create(api: BatchClient, state: BatchState, entry: dict[str, Any], content: bytes,
                  batch: BatchOptions, job_id: str, report: Callable[[str], None], *, number: int = 0) -> None:
    """Upload ``content`` (unless uploaded before) and create the batch of ``entry``, recording each step."""
    if entry["file_id"] is not None:
        found = await api.find(entry["file_id"])  # a creation whose answer was lost is adopted, never repeated
        if found is not None:
            _record(state, entry, found)
            return
    else:
        entry["file_id"] = await api.upload(content, f"tracegrade-{job_id}-{number}.jsonl")
        entry["status"] = "uploaded"
        state.save()
    info = await api.create(entry["file_id"], batch.window, {"tracegrade_job": job_id})
    _record(state, entry, info)
    report(f"batch {info.id}: {len(entry['custom_ids'])} requests sent ({info.status})")


def _record(state: BatchState, entry: dict[str, Any], info: BatchInfo) -> None:
    entry["batch_id"], entry["status"], entry["counts"] = info.id, info.status, dict(info.counts)
    state.save()


async def _wait(api: BatchClient, state: BatchState, keys: set[str], poll_seconds: float,
                report: Callable[[str], None], stop: asyncio.Event) -> None:
    """Poll every batch covering one of ``keys`` until each is final, reporting status and counts."""
    entries = [e for e in state.batches if e["batch_id"] is not None and keys & set(e["custom_ids"])]
    while True:
        waiting = [e for e in entries if e["status"] not in FINAL_STATUSES]
        for entry in waiting:
            info = await api.status(entry["batch_id"])
            if (info.status, dict(info.counts)) != (entry["status"], entry["counts"]):
                _record(state, entry, info)
            counts = info.counts
            report(f"batch {info.id}: {info.status}, {counts.get('completed', 0)} of {counts.get('total', '?')} "
                   f"done, {counts.get('failed', 0)} failed")
        if all(e["status"] in FINAL_STATUSES for e in entries):
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), poll_seconds)
        if stop.is_set():
            raise Interrupted(f"stopped waiting: the batches are recorded in {state.path}; the same command "
                              "waits for them again and sends nothing twice")


async def _download(api: BatchClient, judge: Judge, state: BatchState, pending: dict[str, _Ask],
                    report: Callable[[str], None]) -> None:
    """Read the output and error files of the batches covering pending requests into the cache and the failures."""
    entries = [e for e in state.batches if e["batch_id"] is not None and set(e["custom_ids"]) & pending.keys()]
    for entry in entries:
        info = await api.status(entry["batch_id"])
        lines: list[bytes] = []
        for file_id in (info.output_file_id, info.error_file_id):
            if file_id is not None:
                lines += (await api.content(file_id)).splitlines()
        answered = _apply(judge, state, pending, lines, report, what=f"batch {info.id}")
        for key in set(entry["custom_ids"]) & pending.keys() - answered:
            state.failures.setdefault(key, f"batch_{info.status}" if info.status != "completed" else "batch_missing")
    for key in pending.keys() - state.covering().keys() - state.failures.keys():
        state.failures[key] = "batch_missing"  # pragma: no cover - every pending request was sent above
    state.save()


def _apply(judge: Judge, state: BatchState, pending: dict[str, _Ask], lines: list[bytes],
           report: Callable[[str], None], *, what: str) -> set[str]:
    """Validate and cache the answers in ``lines`` for pending requests, record the failed ones; the ids read."""
    answered: set[str] = set()
    unknown = 0
    for line in lines:
        parsed = parse_line(line) if line.strip() else None
        if parsed is None or parsed[0] not in pending:
            unknown += parsed is not None
            continue
        custom_id, _, body, code = parsed
        ask = pending[custom_id]
        answered.add(custom_id)
        if body is None:
            state.failures[custom_id] = code or "batch_request_error"
            continue
        try:
            judge.accept(custom_id, ask.request.purpose, ask.parse, body)
        except JudgeError as error:
            state.failures[custom_id] = error.code
        else:
            state.failures.pop(custom_id, None)
    if unknown:
        report(f"{what}: {unknown} line(s) answer no request of this job (ignored)")
    return answered


def _read_output(path: Path) -> list[bytes]:
    try:
        return path.read_bytes().splitlines()
    except OSError as exc:
        raise InputError(f"--judge-batch-import {path}: cannot be read ({exc.strerror})") from None


def _export(pending: dict[str, _Ask], path: Path, judge: Judge) -> Exported:
    """Write every pending request as a batch input file."""
    lines = [_line(judge, key, ask, "/v1/chat/completions") for key, ask in pending.items()]
    write_atomic(path, b"".join(lines))
    return Exported(path, len(lines))


async def run_localise_batch(inputs: LocaliseInputs, options: LocaliseOptions, target: JudgeTarget, *, job_id: str,
                             folder: Path, cache_path: Path | None, batch: BatchOptions,
                             report: Callable[[str], None] = lambda line: None,
                             stop: asyncio.Event | None = None) -> LocalisationResults | Exported:
    """Localise with ``--strategy all-at-once`` through batch jobs (``folder`` keeps ``batch.json``).

    A tree whose all-at-once answer is unusable falls back to binary search, whose questions go out one round
    each. Raises as :func:`run_batch_job` does, and ``ConfigError`` for another strategy (their questions depend
    on each other's answers).
    """
    _check(target, cache_path)
    if options.strategy is not Strategy.ALL_AT_ONCE:
        raise ConfigError(f"--judge-batch: only --strategy all-at-once sends independent requests, not "
                          f"{options.strategy.value}")
    options = effective_options(options, target)
    folder.mkdir(parents=True, exist_ok=True)
    telemetry = JudgeTelemetry(None, prefix="atif", job_id=job_id)

    async def once(judge: JudgeProtocol, final: bool) -> LocalisationResults:
        return await localise_paths(inputs, options, judge, job_id=job_id)

    async with open_judge(target, options, cache_path=cache_path, telemetry=telemetry) as judge:
        assert isinstance(judge, Judge)  # localise has no panel
        return await in_rounds(judge, once, folder / BATCH_STATE_NAME, batch, job_id, report, stop)
