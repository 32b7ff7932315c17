"""Resolve file references safely: they must stay inside the input root."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["RefProblem", "resolve_ref"]

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:(//|[^\\/])")


@dataclass(frozen=True, slots=True)
class RefProblem:
    """Why a file reference was not followed."""

    code: str
    message: str


def resolve_ref(ref: str, referrer: Path, root: Path) -> Path | RefProblem:
    """Resolve ``ref`` (relative to ``referrer``'s folder) to a real file inside ``root``."""
    if _URL.match(ref) and not re.match(r"^[A-Za-z]:[\\/]", ref):
        return RefProblem("url_ref", f"reference {ref!r} is a URL; only files inside the input root are read")
    candidate = Path(ref) if os.path.isabs(ref) else referrer.parent / ref
    lexical = Path(os.path.normpath(candidate))
    if not lexical.is_relative_to(root):
        return RefProblem("ref_outside_root", f"reference {ref!r} points outside the input root {root}")
    try:
        real = lexical.resolve(strict=True)
    except FileNotFoundError:
        return RefProblem("unresolvable_ref", f"referenced file {ref!r} does not exist")
    except (OSError, RuntimeError):
        return RefProblem("symlink_loop", f"reference {ref!r} cannot be resolved (symlink loop)")
    if not real.is_relative_to(root):
        return RefProblem("ref_outside_root", f"reference {ref!r} resolves outside the input root {root}")
    if not real.is_file():
        return RefProblem("unresolvable_ref", f"reference {ref!r} is not a file")
    return real
