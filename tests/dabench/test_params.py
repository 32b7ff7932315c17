from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from tracegrade.dabench import EvalOptions, MetricParams, Mode, PipelineOptions, Resampling, RunLocation


def test_pipeline_defaults() -> None:
    options = PipelineOptions()
    assert (options.mode, options.baseline, options.resampling, options.figures) == (
        Mode.STANDARD, None, Resampling(), True
    )


def test_a_mode_may_be_named_by_its_value_and_an_unknown_one_is_refused() -> None:
    assert PipelineOptions.model_validate({"mode": "research", "baseline": "runs/a"}).mode is Mode.RESEARCH
    assert PipelineOptions.model_validate({"baseline": "runs/a"}).baseline == Path("runs/a")
    with pytest.raises(ValidationError, match="mode"):
        PipelineOptions.model_validate({"mode": "loud"})
    with pytest.raises(ValidationError, match="resamples"):
        PipelineOptions.model_validate({"resamples": 500})  # it belongs in resampling


def test_the_runs_root_default_is_declared_once() -> None:
    assert RunLocation().runs_root == Path("artifacts/runs") == EvalOptions(run="r").runs_root


DOC = Path(__file__).resolve().parents[2] / "docs" / "dabench.md"
MODELS = {"PipelineOptions": PipelineOptions(), "MetricParams": MetricParams(), "Resampling": Resampling(),
          "RunLocation": RunLocation()}


def test_the_documented_defaults_are_the_models() -> None:
    rows = [line.split("|")[1:-1] for line in DOC.read_text().splitlines() if line.startswith("| `--")]
    assert len(rows) == 6
    for flag, field, default, _ in rows:
        model, name = field.strip().split(" ")[0].strip("`").split(".")
        value = getattr(MODELS[model], name)
        assert default.strip().strip("`") == ("none" if value is None else str(value)), flag
