"""CLI options and the EvalHub table come from the parameter models, so they cannot drift."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest
import typer
import typer.main

from tracegrade.atif import CriteriaInputs, JudgeTarget, ScoringOptions
from tracegrade.cli._app import app
from tracegrade.cli._options import NO_ENDPOINT, EndpointOptions, with_endpoint
from tracegrade.errors import ConfigError
from tracegrade.integrations.evalhub._provider import PARAMETERS
from tracegrade.judge import ResponseFormat


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


def _defaults_seen(argv: list[str]) -> tuple[frozenset[str], dict[str, Any]]:
    """What a command built by ``with_model_options`` receives, parsed from ``argv`` by typer."""
    from typer.testing import CliRunner

    from tracegrade.cli._options import OptionGroup, with_model_options
    from tracegrade.judge import JudgeOptions

    seen: dict[str, Any] = {}

    @with_model_options(OptionGroup(JudgeOptions, "Judge"))
    def command(*, parameters: dict[str, Any], defaulted: frozenset[str] = frozenset()) -> None:
        seen.update(parameters=parameters, defaulted=defaulted)

    tiny = typer.Typer()
    tiny.command()(command)
    result = CliRunner().invoke(tiny, argv)
    assert result.exit_code == 0, result.output
    return seen["defaulted"], seen["parameters"]


def test_options_left_at_their_default_are_named_and_given_ones_are_not() -> None:
    from tracegrade.judge import JudgeOptions

    defaulted, parameters = _defaults_seen(["--max-context-bytes", "65536", "--concurrency-limit", "10"])
    assert defaulted == set(JudgeOptions.model_fields) - {"max_context_bytes", "concurrency_limit"}
    assert parameters["max_context_bytes"] == 65536 and parameters["judge_max_tokens"] == 1024  # defaults kept


@pytest.mark.parametrize(("given", "budget"), [((), 16384), (("--max-context-bytes", "65536"), 65536)])
@pytest.mark.parametrize("command", ["judge", "localise"])
def test_the_local_judge_gets_its_smaller_budget_unless_one_is_given(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, command: str, given: tuple[str, ...], budget: int
) -> None:
    import tracegrade.atif
    from tests.conftest import EXAMPLES
    from tracegrade.atif._job import effective_options
    from tracegrade.cli._app import run_app

    used: list[int] = []

    def stop_the_job(job: Any, **kwargs: Any) -> Any:
        used.append(effective_options(job.options, job.target).max_context_bytes)
        raise KeyboardInterrupt  # the local judge itself runs in tests/atif/test_local_judge_e2e.py

    async def stop_before_the_judge(paths: Any, options: Any, target: Any, *args: Any, **kwargs: Any) -> Any:
        used.append(effective_options(options, target).max_context_bytes)
        raise KeyboardInterrupt

    if command == "judge":
        monkeypatch.setattr(tracegrade.atif, "run_judge_job", stop_the_job)
    else:
        monkeypatch.setattr(tracegrade.atif, "run_localise_job", stop_before_the_judge)
    argv = [command, str(EXAMPLES / "atif"), "--judge", "local", "--no-cache", "-q", "-o", str(tmp_path / "o"), *given]
    assert run_app(app, argv) == 130
    assert used == [budget]


def test_every_command_describes_the_judge_endpoint_in_the_same_words() -> None:
    root: Any = typer.main.get_command(app)
    commands = [root.commands["judge"], root.commands["localise"], root.commands["suite"].commands["run"],
                root.commands["suite"].commands["replay"]]
    for name in ("judge_url", "judge_model", "judge_api_key_env"):
        shown = {(p.help, p.rich_help_panel) for c in commands for p in c.params if p.name == name}
        assert len(shown) == 1, (name, shown)


def test_the_options_stand_where_the_command_declares_its_endpoint() -> None:
    def command(paths: list[str], endpoint: EndpointOptions = NO_ENDPOINT, quiet: bool = False) -> EndpointOptions:
        return endpoint

    wrapped = with_endpoint()(command)
    assert list(inspect.signature(wrapped).parameters) == [
        "paths", "judge_kind", "judge_url", "judge_model", "judge_api_key_env", "judge_response_format",
        "judge_cache_shared_across_endpoints", "quiet"]
    got = wrapped(paths=[], judge_url="http://x/v1", judge_model="m", judge_cache_shared_across_endpoints=True)
    assert got == EndpointOptions(url="http://x/v1", model="m", share_cache=True)
    narrow = with_endpoint(share_cache=False)(command)
    assert "judge_cache_shared_across_endpoints" not in inspect.signature(narrow).parameters


def test_the_target_is_the_endpoint_or_the_local_judge() -> None:
    assert EndpointOptions(kind="local").target() == JudgeTarget(local=True)
    target = EndpointOptions(url="http://x/v1", model="m", api_key_env="KEY",
                             response_format=ResponseFormat.JSON_SCHEMA, share_cache=True).target()
    assert target == JudgeTarget(url="http://x/v1", model="m", api_key_env="KEY",
                                 response_format=ResponseFormat.JSON_SCHEMA, share_cache=True)
    assert EndpointOptions(model="m").given and not NO_ENDPOINT.given


@pytest.mark.parametrize(("endpoint", "message"), [
    (EndpointOptions(kind="remote"), "only 'local' is accepted"),
    (EndpointOptions(kind="local", url="http://x/v1"), "cannot be combined"),
    (EndpointOptions(url="http://x/v1"), "give --judge-url and --judge-model"),
])
def test_a_contradictory_or_partial_endpoint_is_refused(endpoint: EndpointOptions, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        endpoint.target()
