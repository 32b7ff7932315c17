"""CLI options and the EvalHub table come from the parameter models, so they cannot drift."""

from __future__ import annotations

from typing import Any

import typer.main

from tracegrade.atif import CriteriaInputs, ScoringOptions
from tracegrade.cli._app import app
from tracegrade.integrations.evalhub._provider import PARAMETERS


def _judge_options() -> dict[str, Any]:
    command: Any = typer.main.get_command(app)
    judge = command.commands["judge"]
    return {p.name: p for p in judge.params if p.param_type_name == "option" and p.name}


def test_every_model_field_is_a_judge_option_with_the_models_default_and_help() -> None:
    options = _judge_options()
    fields = {**ScoringOptions.model_fields, **CriteriaInputs.model_fields}
    for name, info in fields.items():
        if name in ("trajectory_path", "provider_params"):  # positional PATHS and --rubric stand for these
            continue
        option = options[name]
        default = info.default.value if hasattr(info.default, "value") else info.default
        assert option.default == default, name
        assert option.help == info.description, name


def test_the_evalhub_table_lists_every_field_with_its_description_and_default() -> None:
    table = {name: (kind, text) for name, kind, text in PARAMETERS}
    assert set(table) == set(ScoringOptions.model_fields) | set(CriteriaInputs.model_fields)
    assert table["concurrency_limit"] == ("integer", "Judge requests in flight at once. Default 10.")
    assert table["subagent_aggregation"][1].endswith("Default flat.")
    assert table["provider_params"][0] == "object"
    assert table["judge_seed"] == ("integer", "Judge sampling seed, when the endpoint supports one.")
