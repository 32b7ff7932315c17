from __future__ import annotations

from pathlib import Path

import pytest

from tracegrade._cache_root import cache_root


def test_the_variable_names_the_cache_root_with_the_home_expanded() -> None:
    assert cache_root({"TRACEGRADE_CACHE_DIR": "/srv/cache"}) == Path("/srv/cache")
    assert cache_root({"TRACEGRADE_CACHE_DIR": "~/tg"}) == Path.home() / "tg"


@pytest.mark.parametrize("environ", [{}, {"TRACEGRADE_CACHE_DIR": ""}])
def test_without_the_variable_the_cache_lives_in_the_home_cache_folder(environ: dict[str, str]) -> None:
    assert cache_root(environ) == Path.home() / ".cache" / "tracegrade"


def test_the_process_environment_is_read_when_none_is_given(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TRACEGRADE_CACHE_DIR", str(tmp_path))
    assert cache_root() == tmp_path
