from __future__ import annotations

import pytest
from pydantic import ValidationError

from tracegrade.errors import ConfigError
from tracegrade.judge import JudgeOptions, JudgeSettings, ResponseFormat, chat_completions_url, endpoint_identity
from tracegrade.judge._settings import Endpoint, redact_url, resolve_endpoint


@pytest.mark.parametrize(
    ("base", "url"),
    [
        ("http://h:8000", "http://h:8000/v1/chat/completions"),
        ("http://h:8000/", "http://h:8000/v1/chat/completions"),
        ("http://h:8000/v1", "http://h:8000/v1/chat/completions"),
        ("http://h:8000/v1/", "http://h:8000/v1/chat/completions"),
        ("https://h/openai/v1/chat/completions", "https://h/openai/v1/chat/completions"),
    ],
)
def test_chat_completions_url(base: str, url: str) -> None:
    assert chat_completions_url(base) == url


def test_defaults_follow_the_documented_parameters() -> None:
    s = JudgeSettings(base_url="http://h", model="m")
    o = s.options
    assert o == JudgeOptions()
    assert (o.concurrency_limit, o.judge_timeout_seconds, o.judge_max_attempts) == (10, 30.0, 3)
    assert (o.judge_initial_backoff_seconds, o.max_judge_requests, o.judge_temperature) == (0.5, None, 0.0)
    assert (o.max_context_bytes, o.judge_max_tokens, o.judge_seed) == (65536, 1024, None)
    assert s.response_format is ResponseFormat.AUTO


@pytest.mark.parametrize(
    "change",
    [
        {"judge_max_attempts": 0},
        {"judge_max_attempts": 11},
        {"concurrency_limit": 0},
        {"concurrency_limit": 1025},
        {"concurrency_limit": True},
        {"judge_timeout_seconds": 0},
        {"judge_timeout_seconds": float("inf")},
        {"judge_initial_backoff_seconds": -1},
        {"max_judge_requests": 0},
        {"max_context_bytes": 1023},
        {"judge_temperature": float("nan")},
        {"judge_temperature": 2.5},
        {"judge_max_tokens": 0},
        {"judge_seed": 2**63},
        {"temperature": 0.5},
    ],
)
def test_options_out_of_their_bounds_are_refused_with_their_name(change: dict[str, object]) -> None:
    with pytest.raises(ValidationError) as caught:
        JudgeOptions.model_validate(change)
    assert caught.value.errors()[0]["loc"] == (next(iter(change)),)


@pytest.mark.parametrize("change", [{"response_format": "xml"}, {"base_url": "ftp://h"}, {"model": " "}])
def test_an_unusable_endpoint_is_a_config_error(change: dict[str, object]) -> None:
    values: dict[str, object] = {"base_url": "http://h", "model": "m", **change}
    with pytest.raises(ConfigError, match=next(iter(change))):
        JudgeSettings(**values)  # type: ignore[arg-type]


def test_response_format_accepts_strings() -> None:
    assert JudgeSettings(base_url="http://h", model="m", response_format="none").response_format is ResponseFormat.NONE  # type: ignore[arg-type]


def test_provenance_records_judge_settings_and_the_endpoint_without_credentials_or_key() -> None:
    options = JudgeOptions(judge_seed=7, concurrency_limit=3)
    for s in (JudgeSettings(base_url="http://user:pw@h", model="m", options=options),
              JudgeSettings(base_url="http://h", model="m", api_key_env="MY_KEY", options=options)):
        assert s.provenance() == {"model": "m", "endpoint": "http://h:80/v1/chat/completions", "temperature": 0.0,
                                  "max_tokens": 1024, "seed": 7, "response_format": "auto", "system_role": True}


@pytest.mark.parametrize("url", ["http://Judge.Example:80/v1/", "http://judge.example/v1/chat/completions",
                                 "HTTP://judge.example", "http://u:secret@judge.example/v1?key=secret#frag",
                                 "http://judge.example//v1"])
def test_the_endpoint_is_normalised_and_never_holds_credentials_query_or_key(url: str) -> None:
    assert endpoint_identity(url) == "http://judge.example:80/v1/chat/completions"


def test_other_ports_paths_schemes_and_hosts_are_other_endpoints() -> None:
    names = {endpoint_identity(u) for u in ("http://h:8000/v1", "http://h:8001/v1", "https://h/v1",
                                            "http://h/proxy/v1", "http://g/v1", "http://[::1]:8000/v1")}
    assert len(names) == 6 and "http://[::1]:8000/v1/chat/completions" in names


def test_a_shared_cache_leaves_the_endpoint_out_of_the_key_and_says_so_in_provenance() -> None:
    own = JudgeSettings(base_url="http://h/v1", model="m")
    shared = JudgeSettings(base_url="http://h/v1", model="m", share_cache_across_endpoints=True)
    elsewhere = JudgeSettings(base_url="http://g:9/v1", model="m", share_cache_across_endpoints=True)
    assert shared.provenance()["cache_shared_across_endpoints"] is True
    assert shared.provenance()["endpoint"] == "http://h:80/v1/chat/completions"
    assert shared.cache_identity() == elsewhere.cache_identity() != own.cache_identity()
    assert "endpoint" not in shared.cache_identity() and own.cache_identity() == own.provenance()


def test_credentials_in_the_url_and_a_key_variable_are_refused_together() -> None:
    with pytest.raises(ConfigError, match="holds credentials") as caught:  # before: every request failed unsent
        JudgeSettings(base_url="http://user:secret-pw@h/v1", model="m", api_key_env="MY_KEY")
    assert "secret-pw" not in str(caught.value)


def test_api_key_comes_from_the_named_variable() -> None:
    s = JudgeSettings(base_url="http://h/v1", model="m", api_key_env="MY_KEY")
    endpoint = resolve_endpoint(s, {"MY_KEY": "sk-abc"})
    assert endpoint.url == "http://h/v1/chat/completions"
    assert endpoint.authorization == "Bearer sk-abc"
    assert "sk-abc" not in repr(endpoint)


def test_missing_api_key_variable_is_a_config_error_naming_the_variable() -> None:
    s = JudgeSettings(base_url="http://h", model="m", api_key_env="MY_KEY")
    with pytest.raises(ConfigError, match="MY_KEY"):
        resolve_endpoint(s, {})


def test_kubernetes_mode_goes_through_the_sidecar_with_a_credential_reference() -> None:
    s = JudgeSettings(base_url="http://judge.example/v1", model="m", api_key_env="MY_KEY")
    endpoint = resolve_endpoint(s, {"EVALHUB_MODE": "k8s", "MY_KEY": "sk-abc"})
    assert endpoint.url == "http://localhost:8080/v1/chat/completions"
    assert endpoint.authorization == "Bearer api-key:ref"
    custom = resolve_endpoint(s, {"EVALHUB_MODE": "k8s", "EVALHUB_JUDGE_PROXY_URL": "http://proxy:9000/v1"})
    assert custom.url == "http://proxy:9000/v1/chat/completions"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://user:pw@judge.example:8443/v1?key=s#f", "https://judge.example:8443/v1"),
        ("http://[::1]:8080/v1", "http://[::1]:8080/v1"),
        ("http://judge.example:99999/v1", "http://judge.example/v1"),  # a port urllib cannot read
    ],
)
def test_a_url_is_shown_without_credentials_query_or_fragment(url: str, shown: str) -> None:
    assert redact_url(url) == shown
    assert f"url={shown!r}" in repr(Endpoint(url, "Bearer secret"))  # the one redaction, also in repr
