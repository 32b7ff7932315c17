from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, NoReturn

import pytest
from hypothesis import HealthCheck, settings

from tests.atif.scripted import judge_rule
from tracegrade.judge import JudgeOptions, JudgeSettings
from tracegrade.judge.testing import ScriptedJudgeServer

settings.register_profile("tracegrade", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("tracegrade")
"""No property test reads the clock: examples are bounded by count (``max_examples``), never by time, so a
loaded machine cannot fail them (speed is measured in ``benchmarks/``)."""

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
EXAMPLES = REPO / "examples"


def unavailable(reason: str) -> NoReturn:
    """Skip a test whose required component is missing; in CI (``CI=true``) that is a failure instead."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"required in CI: {reason}", pytrace=False)
    pytest.skip(reason)


def browse(page: Path) -> str:
    """The DOM of ``page`` after its scripts ran in headless Chromium; fails on any console message."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        unavailable("chromium is not installed")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0"]
    command = [browser, *flags, "--virtual-time-budget=3000", "--dump-dom", page.as_uri()]
    run = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    console = [line for line in run.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert console == [], console
    return run.stdout


@pytest.fixture
def shared_corpus() -> Path:
    """The shared corpus of real files; skipped when ../shared is absent, a failure in CI."""
    corpus = SHARED / "corpus"
    if not corpus.is_dir():
        unavailable("../shared/corpus is not available")
    return corpus


def require_local_judge() -> None:
    """Skip (fail in CI) a test that needs the local judge when its extra is not installed."""
    import importlib.util

    if importlib.util.find_spec("xllamacpp") is None:
        unavailable("xllamacpp is not installed (pip install 'tracegrade[local-judge]')")


@pytest.fixture(scope="session")
def local_judge_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One judge cache for every local-judge run of the session: a question the local judge answered once
    (a step unchanged between two example folders) is not asked again."""
    return tmp_path_factory.mktemp("local-judge-cache") / "judge-cache.sqlite"


@pytest.fixture(scope="session")
def local_examples_run(tmp_path_factory: pytest.TempPathFactory, local_judge_cache: Path) -> Path:
    """The README's first step, ``tracegrade judge examples/atif --judge local -o runs/baseline``, run once a
    session (the costly local-judge path: the tests that need it share this run folder)."""
    from tracegrade.cli._app import app, run_app

    require_local_judge()
    out = tmp_path_factory.mktemp("local-examples") / "baseline"
    cache = ["--cache", str(local_judge_cache)]  # the README runs with the default cache; this one is the session's
    assert run_app(app, ["judge", str(EXAMPLES / "atif"), "--judge", "local", "-o", str(out), "-q", *cache]) == 0
    return out


@pytest.fixture
def server() -> Iterator[ScriptedJudgeServer]:
    """A scripted OpenAI-compatible judge on loopback (test folders override it with their own rules)."""
    with ScriptedJudgeServer(judge_rule()) as running:
        yield running


@pytest.fixture
def settings(server: ScriptedJudgeServer) -> JudgeSettings:
    """Judge settings for :func:`server` with quick retries."""
    return judge_settings(server.base_url, "judge-model", judge_initial_backoff_seconds=0.001,
                          judge_timeout_seconds=5.0)


def judge_settings(base_url: str, model: str, **values: Any) -> JudgeSettings:
    """Judge settings from endpoint fields and judge options given side by side."""
    return tuned(JudgeSettings(base_url=base_url, model=model), **values)


def tuned(settings: JudgeSettings, **changes: Any) -> JudgeSettings:
    """``settings`` with some endpoint fields and judge options changed (the options validated again)."""
    options = {name: changes.pop(name) for name in list(changes) if name in JudgeOptions.model_fields}
    current = {name: getattr(settings.options, name) for name in JudgeOptions.model_fields}
    return replace(settings, **changes, options=JudgeOptions.model_validate({**current, **options}))
