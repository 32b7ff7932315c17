"""Loader limits and modes."""

from __future__ import annotations

from dataclasses import dataclass

from tracegrade.errors import ConfigError

__all__ = ["LoadOptions"]


@dataclass(frozen=True, slots=True)
class LoadOptions:
    """Limits and modes of the ATIF loader (names match the EvalHub provider parameters)."""

    max_file_bytes: int = 10 * 1024 * 1024
    max_trajectory_files: int = 10_000
    max_steps_per_trajectory: int = 500
    max_total_steps: int = 10_000
    max_subagent_depth: int = 3
    strict: bool = True
    """Strict: an invalid file is an error. Tolerant: it is recorded and the rest loads."""

    def __post_init__(self) -> None:
        for name in ("max_file_bytes", "max_trajectory_files", "max_steps_per_trajectory", "max_total_steps"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name} must be a positive integer, got {value!r}")
        depth = self.max_subagent_depth
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
            raise ConfigError(f"max_subagent_depth must be a non-negative integer, got {depth!r}")
