from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tracegrade._lazy import declared_names

FACE = '''
from typing import TYPE_CHECKING

from tracegrade._lazy import lazy_attributes

if TYPE_CHECKING:
    from lazyface._impl import ZERO as ZERO
    from lazyface._impl import Thing as Thing
    from lazyface._impl import make as make
    from lazyface._impl import helper as renamed

from lazyface._impl import not_declared

__getattr__, __dir__, __all__ = lazy_attributes(__name__)
'''
IMPL = '''
ZERO = 0
class Thing: ...
def make(): return Thing()
def helper(): return "helped"
def not_declared(): ...
renamed = helper
'''


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    (tmp_path / "lazyface").mkdir()
    (tmp_path / "lazyface" / "__init__.py").write_text(FACE)
    (tmp_path / "lazyface" / "_impl.py").write_text(IMPL)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path / "lazyface"
    for name in ("lazyface", "lazyface._impl"):
        sys.modules.pop(name, None)


def test_only_the_type_checking_imports_are_declared(package: Path) -> None:
    assert declared_names(package / "__init__.py") == {
        "ZERO": "lazyface._impl", "Thing": "lazyface._impl", "make": "lazyface._impl", "renamed": "lazyface._impl"
    }


def test_the_face_lists_constants_then_classes_then_functions_and_nothing_else(package: Path) -> None:
    face = importlib.import_module("lazyface")
    assert face.__all__ == ["ZERO", "Thing", "make", "renamed"]
    assert dir(face) == sorted(face.__all__)  # not the face's own helpers, nor names it imports undeclared


def test_a_name_is_imported_on_first_use_and_then_kept(package: Path) -> None:
    face = importlib.import_module("lazyface")
    assert "make" not in vars(face)
    assert face.make().__class__ is face.Thing and face.renamed() == "helped"
    assert vars(face)["make"] is sys.modules["lazyface._impl"].make


def test_an_undeclared_name_is_an_attribute_error(package: Path) -> None:
    face = importlib.import_module("lazyface")
    with pytest.raises(AttributeError, match="module 'lazyface' has no attribute 'missing'"):
        face.missing  # noqa: B018
