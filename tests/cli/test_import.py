from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.atif.importing.test_whowhen import ALGORITHM, write_logs
from tracegrade.cli._app import app, run_app


def test_import_whowhen_writes_trajectories_and_labels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    logs = write_logs(tmp_path / "logs")
    assert run_app(app, ["import", "whowhen", str(logs), "-o", str(tmp_path / "out")]) == 0
    assert sorted(p.name for p in (tmp_path / "out" / "trajectories").iterdir()) == [
        "Algorithm-Generated-1.json",
        "Hand-Crafted-1.json",
    ]
    assert len((tmp_path / "out" / "labels.jsonl").read_text().splitlines()) == 4
    assert "imported 2 logs" in capsys.readouterr().out


def test_import_whowhen_bad_log_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(orjson.dumps({**ALGORITHM, "mistake_step": 40}))
    assert run_app(app, ["import", "whowhen", str(path), "-o", str(tmp_path / "out")]) == 2
    assert f"{path}: mistake_step" in capsys.readouterr().err
