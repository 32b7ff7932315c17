from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson

from tracegrade.atif.output._schemas import json_schemas

SCHEMAS = Path(__file__).resolve().parents[3] / "docs" / "schemas"


def test_committed_schemas_are_current() -> None:
    for name, schema in json_schemas().items():
        assert orjson.loads((SCHEMAS / name).read_bytes()) == schema, f"regenerate {name}"


def test_the_summary_schema_requires_the_job_id_first() -> None:
    summary = json_schemas()["summary.schema.json"]
    assert next(iter(summary["properties"])) == "job_id" and summary["required"][0] == "job_id"
    assert summary["$id"].endswith("/summary.schema.json")


def test_running_the_module_writes_the_committed_files_byte_for_byte(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-m", "tracegrade.atif.output._schemas", str(tmp_path / "out")], check=True)
    for name in json_schemas():
        assert (tmp_path / "out" / name).read_bytes() == (SCHEMAS / name).read_bytes(), name
