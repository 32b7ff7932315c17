"""steps.parquet is built from typed buffers: same table and bytes as ``Table.from_pylist``, without pandas."""

from __future__ import annotations

import asyncio
import io
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.atif.scripted import CUSTOM, trajectory, write
from tracegrade.atif import EvaluationResults, JobContext, parse_parameters, score_paths
from tracegrade.atif.output import _artifacts
from tracegrade.atif.output._artifacts import _step_schema
from tracegrade.atif.scoring._spool import ListedNodes
from tracegrade.judge import Judge, JudgeSettings
from tracegrade.judge.testing import ScriptedJudgeServer

MAP = pa.map_(pa.string(), pa.float64())


def test_step_schema_columns_are_all_built_from_buffers() -> None:
    kinds = {field.type for field in _step_schema()}
    assert kinds == {pa.string(), pa.int32(), pa.float64(), pa.bool_(), MAP}


def test_writing_the_artifacts_does_not_import_pandas(judge_server: ScriptedJudgeServer, tmp_path: Path) -> None:
    write(tmp_path / "in/p.json", trajectory("SCORE:0.8", "SCORE:0.2 CAT:context_loss"))
    options, criteria = parse_parameters(CUSTOM)

    async def main() -> EvaluationResults:
        async with Judge(JudgeSettings(base_url=judge_server.base_url, model="scripted")) as judge:
            return await score_paths([tmp_path / "in"], options, criteria, judge, JobContext("job-1"))

    (tmp_path / "results.json").write_text(asyncio.run(main()).model_dump_json())
    code = (
        "import sys; from pathlib import Path\n"
        "from tracegrade.atif import read_results, write_artifacts\n"
        f"write_artifacts(read_results(Path({str(tmp_path / 'results.json')!r})), Path({str(tmp_path / 'run')!r}))\n"
        "print('pandas' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "False"
    table = pq.read_table(tmp_path / "run/steps.parquet")
    assert table.column("score").to_pylist() == [0.8, 0.2]
    assert table.column("failure_candidate").to_pylist() == [False, True]


def test_a_table_written_in_parts_holds_the_rows_of_the_table_written_whole(
    judge_server: ScriptedJudgeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Parts end with whole nodes; one part gives ``pq.write_table``'s bytes, several give a row group each."""
    write(tmp_path / "in/a.json", trajectory("SCORE:0.8", "SCORE:0.2 CAT:context_loss", "SCORE:0.6"))
    write(tmp_path / "in/b.json", trajectory("SCORE:0.9", "SCORE:0.1 CAT:context_loss"))
    write(tmp_path / "in/c.json", trajectory("SCORE:0.3 CAT:context_loss"))
    options, criteria = parse_parameters(CUSTOM)

    async def main() -> EvaluationResults:
        async with Judge(JudgeSettings(base_url=judge_server.base_url, model="scripted")) as judge:
            return await score_paths([tmp_path / "in"], options, criteria, judge, JobContext("job-1"))

    results = asyncio.run(main())
    (table,) = _artifacts.step_parts(results)
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    whole = buffer.getvalue()
    assert b"".join(_artifacts.steps_parquet(results)) == whole  # one part: the bytes pyarrow writes for it

    # a part ends with the node that reaches 2 steps
    assert [len(part["status"]) for part in _artifacts.step_columns(results.nodes, "job-1", 2)] == [3, 2, 1]
    assert [part.num_rows for part in _artifacts.step_parts(results, 2)] == [3, 2, 1]
    written = b"".join(_artifacts.steps_parquet(results, 2))  # one row group per part, the whole never held
    assert pq.ParquetFile(io.BytesIO(written)).metadata.num_row_groups == 3
    assert pq.read_table(io.BytesIO(written)).equals(pq.read_table(io.BytesIO(whole)))
    expected = pa.Table.from_pylist(
        [{"job_id": "job-1", "score": s} for s in (0.8, 0.2, 0.6, 0.9, 0.1, 0.3)],
        schema=pa.schema([("job_id", pa.string()), ("score", pa.float64())]),
    )
    assert pq.read_table(io.BytesIO(written), columns=["job_id", "score"]).equals(expected)


def test_a_run_without_steps_writes_the_empty_table_pyarrow_writes() -> None:
    from tests.atif.output.test_report import sample_results

    empty = sample_results().model_copy(update={"nodes": ListedNodes()})
    buffer = io.BytesIO()
    (part,) = _artifacts.step_parts(empty)
    pq.write_table(part, buffer)
    assert b"".join(_artifacts.steps_parquet(empty)) == buffer.getvalue()
    assert pq.read_table(io.BytesIO(buffer.getvalue())).num_rows == 0
