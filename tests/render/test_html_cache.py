"""Compiled templates are cached on disk; a cached template renders exactly what a fresh compile renders."""

from __future__ import annotations

import os
from pathlib import Path

import jinja2
import pytest

from tracegrade.render import TemplateBytecodeCache, html_environment, render_html
from tracegrade.render._html import _OPTIONS, template_cache_dir

CONTEXT = {"title": "Run <7>", "subtitle": "suite & smoke", "sections": [{"id": "a", "label": "A"}]}


def _environment(cache: jinja2.BytecodeCache | None) -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("tracegrade.render", "templates"), bytecode_cache=cache, **_OPTIONS
    )
    environment.filters.update(html_environment().filters)
    return environment


def _compiles(environment: jinja2.Environment, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    compiled: list[str] = []
    original = environment.compile

    def spy(source: object, name: str | None = None, *args: object, **kwargs: object) -> object:
        compiled.append(str(name))
        return original(source, name, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(environment, "compile", spy)
    return compiled


def test_second_environment_loads_compiled_templates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = _environment(TemplateBytecodeCache(tmp_path))
    first_compiles = _compiles(first, monkeypatch)
    fresh = first.get_template("base.html").render(**CONTEXT)
    assert first_compiles == ["base.html"] and len(list(tmp_path.iterdir())) == 1
    second = _environment(TemplateBytecodeCache(tmp_path))
    second_compiles = _compiles(second, monkeypatch)
    assert second.get_template("base.html").render(**CONTEXT) == fresh
    assert second_compiles == []
    assert fresh == _environment(None).get_template("base.html").render(**CONTEXT)


def test_a_damaged_cache_file_is_compiled_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _environment(TemplateBytecodeCache(tmp_path)).get_template("base.html")
    (cached,) = tmp_path.iterdir()
    cached.write_bytes(cached.read_bytes()[:40] + b"\x00garbage")
    environment = _environment(TemplateBytecodeCache(tmp_path))
    compiles = _compiles(environment, monkeypatch)
    assert environment.get_template("base.html").render(**CONTEXT).startswith("<!DOCTYPE html>")
    assert compiles == ["base.html"]


def test_an_unwritable_cache_folder_only_means_compiling(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    html = _environment(TemplateBytecodeCache(blocker / "templates")).get_template("base.html").render(**CONTEXT)
    assert html.startswith("<!DOCTYPE html>") and blocker.read_text() == "not a folder"


def test_file_names_depend_on_the_environment_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = TemplateBytecodeCache(tmp_path).pattern
    monkeypatch.setitem(_OPTIONS, "trim_blocks", False)
    assert TemplateBytecodeCache(tmp_path).pattern != before


def test_cache_folder_follows_tracegrade_cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACEGRADE_CACHE_DIR", str(tmp_path))
    assert template_cache_dir() == tmp_path / "templates"
    monkeypatch.delenv("TRACEGRADE_CACHE_DIR")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert template_cache_dir() == tmp_path / "home" / ".cache" / "tracegrade" / "templates"


def test_render_html_is_unchanged_by_the_cache() -> None:
    html = render_html("base.html", **CONTEXT)
    assert html == _environment(None).get_template("base.html").render(**CONTEXT)
    assert "Run &lt;7&gt;" in html


def test_a_cache_file_of_another_user_is_not_loaded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _environment(TemplateBytecodeCache(tmp_path)).get_template("base.html")
    monkeypatch.setattr(os, "getuid", lambda: os.stat(tmp_path).st_uid + 1)
    environment = _environment(TemplateBytecodeCache(tmp_path))
    compiles = _compiles(environment, monkeypatch)
    environment.get_template("base.html")
    assert compiles == ["base.html"]
