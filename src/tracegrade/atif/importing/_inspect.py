"""Inspect AI evaluation logs → ATIF trajectories (``tracegrade import inspect``), read with ``inspect_ai`` itself.

One trajectory per sample and epoch: system and user messages become system and user steps, each assistant
message an agent step (text, reasoning, tool calls, the usage of the model event that produced it), each tool
message the observation of the call it answers (a failed tool's error shown first). The sample's target goes to
``extra.reference``, the scores of Inspect's own scorers to ``extra.inspect.scores``. ``inspect_ai`` is the
optional extra ``tracegrade[inspect]``; the log reader resolves ``.eval`` archives, v3 message pools and
``attachment://`` references. An ``.eval`` archive is checked first: no member may declare, or inflate to, more
than :data:`MAX_MEMBER_BYTES` (the reader holds a member in memory whole).
"""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracegrade.atif.importing._genai import Usage
from tracegrade.atif.importing._output import SCHEMA_VERSION, ImportWriter, file_report, input_files, slug, unique
from tracegrade.atif.importing._spans import Tally
from tracegrade.errors import InputError, MissingDependencyError
from tracegrade.runs import MAX_INPUT_BYTES

if TYPE_CHECKING:
    from tracegrade.atif.importing._output import ImportResult

__all__ = ["MAX_MEMBER_BYTES", "check_archive", "convert_sample", "import_inspect", "read_log"]

MAX_MEMBER_BYTES = MAX_INPUT_BYTES
"""The most bytes one member of an ``.eval`` archive may declare or inflate to (1 GiB, the input file limit)."""
_CHUNK = 1 << 20

_SUFFIXES = (".eval", ".json")
_STRUCTURAL_EVENTS = frozenset({"model", "tool", "span_begin", "span_end", "step", "sample_init", "score"})
_INSTALL = "pip install 'tracegrade[inspect]'"


def import_inspect(paths: Sequence[Path], out_dir: Path, *, member_limit: int = MAX_MEMBER_BYTES) -> ImportResult:
    """Import every sample of the Inspect logs under ``paths`` into ``out_dir``.

    ``member_limit`` caps each member of an ``.eval`` archive (declared and inflated size).

    Raises:
        MissingDependencyError: ``inspect_ai`` is not installed.
        InputError: a path is missing, a file is not an Inspect log, or no log holds a sample.
        OutputError: ``out_dir`` cannot be written.
    """
    reports = []
    taken: set[str] = set()
    with ImportWriter(out_dir) as writer:
        for path, _ in input_files(paths, _SUFFIXES, regular=True):
            log = read_log(path, member_limit=member_limit)
            tally = Tally()
            names = []
            for sample in log.samples or ():
                document = convert_sample(log, sample, path, tally)
                name = unique(slug(f"{path.stem}-{sample.id}-epoch{sample.epoch}"), taken)
                document["trajectory_id"] = name
                writer.add(name, f"{path} (sample {sample.id}, epoch {sample.epoch})", document)
                names.append(name)
            reports.append(file_report(path, [f"inspect-{path.suffix.lstrip('.')}"], len(log.samples or ()), names,
                                       tally))
        if not writer.reports:
            raise InputError(f"no samples in the Inspect logs under {', '.join(str(p) for p in paths)}")
        return writer.finish("inspect", reports)


def read_log(path: Path, *, member_limit: int = MAX_MEMBER_BYTES) -> Any:
    """One Inspect log with its samples and attachments, read by ``inspect_ai.log.read_eval_log``.

    Raises:
        MissingDependencyError: ``inspect_ai`` is not installed.
        InputError: the file is not a readable Inspect log, or an archive member is over ``member_limit``.
    """
    if path.suffix == ".eval":
        check_archive(path, member_limit)
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise MissingDependencyError(f"importing Inspect AI logs needs inspect_ai: {_INSTALL}") from None
    try:
        return read_eval_log(str(path), resolve_attachments=True)
    except Exception as exc:  # the reader raises many types (zip, JSON, pydantic); all mean "not a log"
        detail = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
        raise InputError(f"{path}: not a readable Inspect AI log ({type(exc).__name__}: {detail})") from None


def check_archive(path: Path, limit: int = MAX_MEMBER_BYTES) -> None:
    """Refuse an ``.eval`` archive with a member that declares, or inflates to, more than ``limit`` bytes.

    Every member is inflated in chunks and counted, so a member whose declared size lies is caught too
    (inflating stops at the limit; nothing is kept).

    Raises:
        InputError: the file is not a zip archive, a member is over ``limit``, or a member is corrupt.
    """
    try:
        with zipfile.ZipFile(path) as archive:
            for member in archive.infolist():
                if member.file_size > limit:
                    raise InputError(f"{path}: member {member.filename!r} declares {member.file_size} bytes, over the "
                                     f"limit of {limit} bytes per member")
                _inflate(archive, member, path, limit)
    except zipfile.BadZipFile as exc:
        raise InputError(f"{path}: not a readable Inspect AI log (BadZipFile: {str(exc)[:200]})") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({type(exc).__name__})") from None


def _inflate(archive: zipfile.ZipFile, member: zipfile.ZipInfo, path: Path, limit: int) -> None:
    inflated = 0
    with archive.open(member) as stream:
        while chunk := stream.read(_CHUNK):
            inflated += len(chunk)
            if inflated > limit:
                raise InputError(f"{path}: member {member.filename!r} inflates to more than the limit of {limit} "
                                 "bytes per member")


def convert_sample(log: Any, sample: Any, path: Path, tally: Tally) -> dict[str, Any]:
    """One sample (one epoch) as an ATIF trajectory (a JSON-ready dict, ``trajectory_id`` left empty)."""
    builder = _SampleSteps([e for e in sample.events or () if e.event == "model" and e.output.choices], tally)
    for message in sample.messages or ():
        builder.message(message)
    for event in sample.events or ():
        if event.event not in _STRUCTURAL_EVENTS:
            tally.add(f"Inspect event {event.event!r}")
    spec = log.eval
    agent: dict[str, Any] = {"name": str(spec.task or "inspect-task"), "version": str(spec.task_version or "unknown")}
    if spec.model:
        agent["model_name"] = str(spec.model)
    return {
        "schema_version": SCHEMA_VERSION,
        "session_id": str(spec.run_id or spec.eval_id or path.stem),
        "trajectory_id": "",
        "agent": agent,
        "steps": builder.steps or [_empty_step(tally)],
        "extra": _extra(log, sample, path),
    }


def _empty_step(tally: Tally) -> dict[str, Any]:
    tally.note("sample without messages (one empty system step)")
    return {"step_id": 1, "source": "system", "message": ""}


def _extra(log: Any, sample: Any, path: Path) -> dict[str, Any]:
    inspect: dict[str, Any] = {"log": str(path), "status": str(log.status), "task": log.eval.task,
                               "task_id": log.eval.task_id, "eval_id": log.eval.eval_id, "sample_id": sample.id,
                               "epoch": sample.epoch}
    if sample.uuid:
        inspect["sample_uuid"] = sample.uuid
    if sample.scores:
        inspect["scores"] = {name: score.model_dump(mode="json", include={"value", "answer", "explanation"},
                                                    exclude_none=True) for name, score in sample.scores.items()}
    if sample.error is not None:
        inspect["error"] = sample.error.message
    extra: dict[str, Any] = {"inspect": inspect}
    if isinstance(sample.input, str) and sample.input.strip():
        extra["task_instruction"] = sample.input
    target = sample.target
    if target and (isinstance(target, str) or any(target)):
        extra["reference"] = target if isinstance(target, str) else list(target)
    return extra


class _SampleSteps:
    """The steps of one sample, with tool calls waiting for their results."""

    def __init__(self, model_events: list[Any], tally: Tally) -> None:
        self.events = model_events
        self.used: set[int] = set()
        self.tally = tally
        self.steps: list[dict[str, Any]] = []
        self.calls: dict[str, dict[str, Any]] = {}
        """Call id → the step holding the call (until its result arrives)."""

    def message(self, message: Any) -> None:
        role = message.role
        if role == "tool":
            self._result(message)
            return
        text, reasoning = self._content(message.content)
        step: dict[str, Any] = {"step_id": len(self.steps) + 1, "source": "agent" if role == "assistant" else role}
        if role == "assistant":
            self._agent(step, message, text, reasoning)
        else:
            step["message"] = text
        self.steps.append(step)

    def _agent(self, step: dict[str, Any], message: Any, text: str, reasoning: str) -> None:
        event = self._event_for(message, text)
        if event is not None:
            step["timestamp"] = event.timestamp.isoformat()
        model = getattr(message, "model", None) or (event.model if event is not None else None)
        if model:
            step["model_name"] = str(model)
        step["message"] = text
        if reasoning:
            step["reasoning_content"] = reasoning
        calls = _tool_calls(message.tool_calls or ())
        if calls:
            step["tool_calls"] = calls
            for call in calls:
                self.calls[call["tool_call_id"]] = step
        metrics = _metrics(event.output.usage) if event is not None and event.output.usage else {}
        if metrics:
            step["metrics"] = metrics
        if event is not None:
            step["llm_call_count"] = 1

    def _event_for(self, message: Any, text: str) -> Any:
        """The model event that produced this assistant message: same message id, else same text."""
        for index, event in enumerate(self.events):
            if index in self.used:
                continue
            produced = event.output.choices[0].message
            same_id = message.id is not None and produced.id == message.id
            if same_id or ((message.id is None or produced.id is None) and produced.text == text):
                self.used.add(index)
                return event
        return None

    def _result(self, message: Any) -> None:
        content = _text(message.content)
        if message.error is not None:
            error = f"[error: {message.error.type}: {message.error.message}]"
            content = f"{error}\n{content}" if content else error
        call_id = message.tool_call_id
        step = self.calls.pop(call_id, None) if call_id else None
        if step is None:
            self.tally.note("tool result without its call (a step of its own)")
            call: dict[str, Any] = {"tool_call_id": call_id or f"result-{len(self.steps) + 1}",
                    "function_name": message.function or "unknown", "arguments": {}}
            step = {"step_id": len(self.steps) + 1, "source": "agent", "message": "", "tool_calls": [call],
                    "llm_call_count": 0}
            self.steps.append(step)
            call_id = call["tool_call_id"]
        step.setdefault("observation", {"results": []})["results"].append(
            {"source_call_id": call_id, "content": content})

    def _content(self, content: Any) -> tuple[str, str]:
        if isinstance(content, str):
            return content, ""
        texts, reasoning = [], []
        for part in content or ():
            kind = getattr(part, "type", "")
            if kind == "text":
                texts.append(part.text)
            elif kind == "reasoning":
                reasoning.append("[redacted reasoning]" if part.redacted else part.reasoning)
            else:
                texts.append(f"[{kind} omitted]")
                self.tally.add(f"{kind} content")
        return "\n".join(texts), "\n".join(reasoning)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(getattr(part, "text", f"[{getattr(part, 'type', 'content')} omitted]") for part in content or ())


def _tool_calls(calls: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    taken: set[str] = set()
    for index, call in enumerate(calls):
        arguments = call.arguments if isinstance(call.arguments, dict) else {"input": call.arguments}
        found.append({"tool_call_id": unique(call.id or f"call-{index}", taken), "function_name": call.function,
                      "arguments": arguments})
    return found


def _metrics(usage: Any) -> dict[str, Any]:
    """Step metrics from a ``ModelUsage`` (fields that older inspect_ai versions lack are left out)."""
    return Usage(usage.input_tokens, usage.output_tokens, getattr(usage, "input_tokens_cache_read", None),
                 getattr(usage, "reasoning_tokens", None), getattr(usage, "total_cost", None)).metrics()
