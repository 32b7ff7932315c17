from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import orjson
import pyarrow.parquet as pq
import pytest

from tests.atif.scripted import CUSTOM, trajectory, write
from tracegrade.atif import EvaluationResults, JobContext, parse_parameters, read_results, score_paths, write_artifacts
from tracegrade.atif.output import _artifacts
from tracegrade.atif.output._step_list import KeptSections
from tracegrade.atif.scoring._spool import ListedNodes, SpooledNodes
from tracegrade.errors import InputError
from tracegrade.judge import Judge, JudgeSettings
from tracegrade.judge.testing import ScriptedJudgeServer
from tracegrade.runs import dump_json

SCHEMAS = Path(__file__).resolve().parents[3] / "docs" / "schemas"


@pytest.fixture(params=[False, True], ids=["rendered-when-written", "sections-kept-while-scoring"])
def scored(
    judge_server: ScriptedJudgeServer, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[tuple[EvaluationResults, KeptSections | None]]:
    """A job's (spooled) results; in the second case with each node's report section, kept as its root finished."""
    kept = KeptSections(tmp_path)
    context = JobContext("job-1", on_root=kept.add if request.param else None)
    write(
        tmp_path / "in/p.json",
        trajectory("SCORE:0.8", "SCORE:0.2 CAT:context_loss", refs={2: [{"trajectory_path": "c.json"}]}),
    )
    write(tmp_path / "in/c.json", trajectory("SCORE:0.4", "<script>alert(1)</script>"))
    options, criteria = parse_parameters(CUSTOM)

    async def main() -> EvaluationResults:
        async with Judge(JudgeSettings(base_url=judge_server.base_url, model="scripted")) as judge:
            return await score_paths([tmp_path / "in"], options, criteria, judge, context)

    scored = asyncio.run(main())
    if not request.param:
        yield scored, None
        return
    assert len(kept) == len(scored.nodes)
    yield scored, kept
    kept.close()


@pytest.fixture
def results(scored: tuple[EvaluationResults, KeptSections | None]) -> EvaluationResults:
    return scored[0]


@pytest.fixture
def sections(scored: tuple[EvaluationResults, KeptSections | None]) -> KeptSections | None:
    return scored[1]


def test_artifacts_validate_and_round_trip(results: EvaluationResults, sections: KeptSections | None,
                                           tmp_path: Path) -> None:
    paths = write_artifacts(results, tmp_path / "run", sections=sections)
    for name in ("evaluation_results", "summary"):
        schema = orjson.loads((SCHEMAS / f"{name}.schema.json").read_bytes())
        jsonschema.validate(orjson.loads(paths[f"{name}.json"].read_bytes()), schema)
    assert read_results(tmp_path / "run") == results
    parameters = results.parameters
    assert parameters.atif_prompt_version == "atif-context-v4" and parameters.atif_scored_frames == "all"
    assert parameters.atif_judge == "scripted" and parameters.atif_complete is True


def test_steps_parquet_has_one_row_per_step(results: EvaluationResults, sections: KeptSections | None,
                                            tmp_path: Path) -> None:
    rows = pq.read_table(write_artifacts(results, tmp_path, sections=sections)["steps.parquet"]).to_pylist()
    assert len(rows) == 4
    ordered = sorted(rows, key=lambda row: (row["node_id"], row["index"]))
    assert [row["score"] for row in ordered] == pytest.approx([0.8, 0.2, 0.4, 0.9])
    assert [row["category"] for row in rows if row["failure_candidate"]] == ["context_loss", "reasoning_failure"]


def test_report_is_self_contained_and_escaped(results: EvaluationResults, sections: KeptSections | None,
                                              tmp_path: Path) -> None:
    html = write_artifacts(results, tmp_path, sections=sections)["report.html"].read_text()
    counts = "0.0: 0; 0.1: 0; 0.2: 1; 0.3: 0; 0.4: 1; 0.5: 0; 0.6: 0; 0.7: 0; 0.8: 1; 0.9: 1"
    assert f'aria-label="Step scores (n=4): {counts}"' in html
    assert "<img" not in html  # the histograms are drawn in HTML, not embedded images
    assert not re.search(r"(src|href)=['\"]https?://", html)
    assert "<script>alert(1)</script>" not in html
    assert "proxy of judge response validity" in html
    assert "p.json::c.json" in html


def test_summary_json_holds_the_three_metrics(results: EvaluationResults, sections: KeptSections | None,
                                              tmp_path: Path) -> None:
    summary = orjson.loads(write_artifacts(results, tmp_path, sections=sections)["summary.json"].read_bytes())
    assert summary["atif_overall_score"] == pytest.approx((0.5 + 0.65) / 2)
    assert summary["atif_trajectory_count"] == 2 and summary["overall_score"] == summary["atif_overall_score"]
    assert summary["atif_failure_categorization_rate"] == 1.0


def test_read_results_names_the_path_of_a_missing_or_foreign_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"nowhere: no evaluation_results.json there"):
        read_results(tmp_path / "nowhere")
    (tmp_path / "other.json").write_text('{"not": "results"}')
    with pytest.raises(InputError, match=r"other.json: not a tracegrade evaluation_results.json \(ValidationError\)"):
        read_results(tmp_path / "other.json")


def test_spooled_records_are_written_as_the_same_records_held_in_a_list(
    results: EvaluationResults, sections: KeptSections | None, tmp_path: Path
) -> None:
    assert isinstance(results.nodes, SpooledNodes)  # a job's results: spooled
    held = results.model_copy(update={"nodes": ListedNodes(results.nodes)})
    write_artifacts(results, tmp_path / "spooled", sections=sections)
    write_artifacts(held, tmp_path / "held")
    for name in ("evaluation_results.json", "summary.json", "steps.parquet", "report.html"):
        assert (tmp_path / "spooled" / name).read_bytes() == (tmp_path / "held" / name).read_bytes(), name
    assert results.model_dump(mode="json") == held.model_dump(mode="json")


@pytest.mark.parametrize("copies", [0, 1, 1500])
def test_input_records_are_written_in_pieces_as_the_whole_list_would_be(
    results: EvaluationResults, copies: int
) -> None:
    """No inputs, two, and 3,000 (written a thousand or so at a time): the bytes of the whole document."""
    results = results.model_copy(update={"inputs": list(results.inputs) * copies})
    assert len(results.inputs) == 2 * copies
    written = b"".join(_artifacts.results_json(results))
    held = results.model_copy(update={"nodes": ListedNodes(results.nodes)})
    assert written == dump_json(held.model_dump(mode="json"))
