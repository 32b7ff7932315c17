"""The judge endpoint options: declared once, offered where a command asks for them, read as one judge target."""

from __future__ import annotations

import inspect

import pytest

from tracegrade.atif import JudgeTarget
from tracegrade.cli._endpoint import NO_ENDPOINT, Endpoint, with_endpoint
from tracegrade.errors import ConfigError
from tracegrade.judge import ResponseFormat


def test_the_options_stand_where_the_command_declares_its_endpoint() -> None:
    def command(paths: list[str], endpoint: Endpoint = NO_ENDPOINT, quiet: bool = False) -> Endpoint:
        return endpoint

    wrapped = with_endpoint()(command)
    assert list(inspect.signature(wrapped).parameters) == [
        "paths", "judge_kind", "judge_url", "judge_model", "judge_api_key_env", "judge_response_format",
        "judge_cache_shared_across_endpoints", "quiet"]
    got = wrapped(paths=[], judge_url="http://x/v1", judge_model="m", judge_cache_shared_across_endpoints=True)
    assert got == Endpoint(url="http://x/v1", model="m", share_cache=True)
    narrow = with_endpoint(share_cache=False)(command)
    assert "judge_cache_shared_across_endpoints" not in inspect.signature(narrow).parameters


def test_the_target_is_the_endpoint_or_the_local_judge() -> None:
    assert Endpoint(kind="local").target() == JudgeTarget(local=True)
    target = Endpoint(url="http://x/v1", model="m", api_key_env="KEY", response_format=ResponseFormat.JSON_SCHEMA,
                      share_cache=True).target()
    assert target == JudgeTarget(url="http://x/v1", model="m", api_key_env="KEY",
                                 response_format=ResponseFormat.JSON_SCHEMA, share_cache=True)
    assert Endpoint(model="m").given and not NO_ENDPOINT.given


@pytest.mark.parametrize(("endpoint", "message"), [
    (Endpoint(kind="remote"), "only 'local' is accepted"),
    (Endpoint(kind="local", url="http://x/v1"), "cannot be combined"),
    (Endpoint(url="http://x/v1"), "give --judge-url and --judge-model"),
])
def test_a_contradictory_or_partial_endpoint_is_refused(endpoint: Endpoint, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        endpoint.target()
