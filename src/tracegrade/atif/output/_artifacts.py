"""Write a scoring run's artifacts: results JSON, summary JSON, per-step Parquet and the HTML report.

``steps.parquet`` is built column by column (``Table.from_pylist`` would import pandas), with the bytes
``Table.from_pylist`` gives for one row per step in the same schema.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracegrade._io import Pieces, arrow_column, items_piece, write_document
from tracegrade.atif.output._report import report_chunks
from tracegrade.atif.output._step_list import KeptSections
from tracegrade.atif.scoring._records import NodeResult
from tracegrade.atif.scoring._results import EvaluationResults
from tracegrade.errors import InputError
from tracegrade.runs import (
    JSON_OPTIONS,
    MAX_INPUT_BYTES,
    JobStatus,
    RunFolder,
    UnreadableFile,
    dump_json,
    read_capped,
)

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["ARTIFACT_NAMES", "open_run_folder", "read_results", "step_columns", "write_artifacts"]

ARTIFACT_NAMES = ("evaluation_results.json", "summary.json", "steps.parquet", "report.html")


_NODE_COLUMNS = ("root_id", "node_id", "parent_id", "depth", "agent", "source_path")
_STEP_COLUMNS = ("index", "segment", "step_id", "source", "score", "rationale", "omitted_history", "error_code",
                 "failure_candidate", "category", "categorization_error_code")
_STEP_VALUES = attrgetter(*_STEP_COLUMNS)


_PIECE_STEPS = 1 << 13
"""Steps held as Python values at once while the step table is built: the rows of a ``steps.parquet`` row group."""


def step_columns(nodes: Iterable[NodeResult], job_id: str, piece: int) -> Iterator[dict[str, list[Any]]]:
    """The step table's columns (one value per step, with its node's identifiers), in the step schema's order.

    They come in parts of whole nodes, each closed once it holds ``piece`` steps or more (none without steps).
    """
    names = _step_schema().names
    columns: dict[str, list[Any]] = {name: [] for name in names}
    for node in nodes:
        _add_steps(columns, node)
        if len(columns["status"]) >= piece:
            yield _with_job(columns, job_id, names)
            columns = {name: [] for name in names}
    if columns["status"]:
        yield _with_job(columns, job_id, names)


def _add_steps(columns: dict[str, list[Any]], node: NodeResult) -> None:
    count = len(node.steps)
    for name in _NODE_COLUMNS:
        columns[name].extend([getattr(node, name)] * count)
    columns["node_status"].extend([node.status.value] * count)
    steps = node.steps
    by_column = zip(*map(_STEP_VALUES, steps), strict=True)  # each step's values, turned into columns
    for name, values in zip(_STEP_COLUMNS, by_column, strict=False):  # no columns when the node has no steps
        columns[name].extend(values)
    columns["status"].extend([step.status.value for step in steps])
    columns["criterion_scores"].extend([list((step.criterion_scores or {}).items()) or None for step in steps])
    columns["categorization_status"].extend([step.categorization_status.value for step in steps])


def _with_job(columns: dict[str, list[Any]], job_id: str, names: list[str]) -> dict[str, list[Any]]:
    columns["job_id"] = [job_id] * len(columns["status"])
    return {name: columns[name] for name in names}


def step_parts(results: EvaluationResults, piece: int = _PIECE_STEPS) -> Iterator[pa.Table]:
    """The ``steps.parquet`` table in parts of whole nodes and about ``piece`` steps (:func:`step_columns`).

    A run without steps has one empty part.
    """
    import pyarrow as pa

    schema = _step_schema()
    kinds = [schema.field(name).type for name in schema.names]
    made = False
    for columns in step_columns(results.nodes.brief, results.job_id, piece):
        made = True
        yield pa.Table.from_arrays(
            [arrow_column(values, kind) for values, kind in zip(columns.values(), kinds, strict=True)], schema=schema
        )
    if not made:
        yield pa.Table.from_arrays([arrow_column([], kind) for kind in kinds], schema=schema)


def steps_parquet(results: EvaluationResults, piece: int = _PIECE_STEPS) -> Iterator[bytes]:
    """The bytes of ``steps.parquet``, one row group per :func:`step_parts` part, given as each part is written.

    A table of one part gives the bytes ``pq.write_table`` gives for it.
    """
    import pyarrow.parquet as pq

    sink = _Pieces()
    with pq.ParquetWriter(sink, _step_schema()) as writer:
        for part in step_parts(results, piece):
            writer.write_table(part)
            yield sink.take()
    yield sink.take()


class _Pieces(io.RawIOBase):
    """A write-only stream that keeps what was written until it is taken."""

    def __init__(self) -> None:
        self._pieces: list[bytes] = []
        self._size = 0

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        piece = bytes(data)
        self._pieces.append(piece)
        self._size += len(piece)
        return len(piece)

    def tell(self) -> int:
        return self._size

    def take(self) -> bytes:
        """What was written since the last call."""
        data = b"".join(self._pieces)
        self._pieces.clear()
        return data


def write_artifacts(results: EvaluationResults, out_dir: Path | RunFolder, *,
                    sections: KeptSections | None = None) -> dict[str, Path]:
    """Write the four artifacts into the run folder, then its manifest; returns their paths by name.

    The report's step list copies the ``sections`` the job kept as its roots finished (one for every node).

    Raises:
        OutputError: when the folder cannot be written.
    """
    folder = out_dir if isinstance(out_dir, RunFolder) else open_run_folder(out_dir, results.job_id)
    folder.write_chunks("evaluation_results.json", results_json(results))
    folder.write_json("summary.json", {"job_id": results.job_id, **results.summary.model_dump(mode="json")})
    folder.write_chunks("steps.parquet", steps_parquet(results))
    folder.write_chunks("report.html", _encoded(report_chunks(results, sections=sections)))
    folder.finish(JobStatus(results.summary.job_status), {"atif_complete": results.summary.atif_complete})
    return {name: folder.path / name for name in ARTIFACT_NAMES}


_CHUNK = 1 << 20
_INPUTS_PIECE = 1024
"""Input records dumped at once (the list of them is never dumped whole)."""


def results_json(results: EvaluationResults) -> Iterator[bytes | memoryview]:
    """The bytes of ``dump_json(results.model_dump(mode="json"))``, in pieces."""
    nodes = results.nodes
    if not nodes:
        yield dump_json(results.model_dump(mode="json"))
        return
    document = results.model_copy(update={"nodes": [], "inputs": []}).model_dump(mode="json")
    document["inputs"] = Pieces(_input_texts(results))
    document["nodes"] = Pieces(nodes.texts(), indented=True)
    yield from write_document(document, JSON_OPTIONS)
    yield b"\n"


def _input_texts(results: EvaluationResults) -> Iterator[bytes]:
    inputs = results.inputs
    for start in range(0, len(inputs), _INPUTS_PIECE):
        yield items_piece((record.model_dump(mode="json") for record in inputs[start:start + _INPUTS_PIECE]),
                          JSON_OPTIONS)


def _encoded(texts: Iterator[str]) -> Iterator[bytes]:
    """UTF-8 pieces of about a megabyte from many small strings."""
    pending: list[str] = []
    size = 0
    for text in texts:
        pending.append(text)
        size += len(text)
        if size >= _CHUNK:
            yield "".join(pending).encode()
            pending, size = [], 0
    if pending:
        yield "".join(pending).encode()


def open_run_folder(path: Path, job_id: str) -> RunFolder:
    """The run folder of an ATIF judge job, checked to be writable before any judge call is paid."""
    return RunFolder(path, kind="atif-judge", job_id=job_id)


def read_results(path: Path) -> EvaluationResults:
    """Read an ``evaluation_results.json`` (or the run folder holding one).

    Raises:
        InputError: when there is no such file, or it is not tracegrade's results (one line naming ``path``).
    """
    file = path / "evaluation_results.json" if path.is_dir() else path
    try:
        data = read_capped(file, MAX_INPUT_BYTES)  # a FIFO or device is refused, never waited on
    except UnreadableFile:
        if not file.exists():
            raise InputError(f"{path}: no evaluation_results.json there") from None
        raise
    try:
        return EvaluationResults.model_validate_json(data)
    except ValueError as exc:  # pydantic's ValidationError included
        raise InputError(f"{path}: not a tracegrade evaluation_results.json ({type(exc).__name__})") from None


def _step_schema() -> pa.Schema:
    import pyarrow as pa

    text, integer, number = pa.string(), pa.int32(), pa.float64()
    return pa.schema([
        ("job_id", text), ("root_id", text), ("node_id", text), ("parent_id", text), ("depth", integer),
        ("agent", text), ("source_path", text), ("node_status", text), ("index", integer), ("segment", integer),
        ("step_id", integer), ("source", text), ("status", text), ("score", number),
        ("criterion_scores", pa.map_(text, number)), ("rationale", text), ("omitted_history", integer),
        ("error_code", text), ("failure_candidate", pa.bool_()), ("category", text), ("categorization_status", text),
        ("categorization_error_code", text),
    ])
