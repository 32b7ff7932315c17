"""The two sides of a comparison: run folders read and verified, and the fields that must agree between them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field

from tracegrade.atif.output._compared import ComparedNode, ComparedResults, decode_results
from tracegrade.atif.reading._records import FrozenRecord
from tracegrade.errors import ConfigError, InputError
from tracegrade.runs import read_verified

__all__ = ["GUARDED_FIELDS", "NODE_FIELDS", "ComparedRun", "Difference", "Side", "check_allowed", "check_field_names",
           "guarded_differences", "node_differences", "read_side", "read_sides", "run_differences"]

_JUDGE_SETTINGS = ("model", "temperature", "max_tokens", "seed", "response_format", "system_role")
_RUN_PARAMETERS = (
    "atif_prompt_version", "judge_repeats", "max_context_bytes", "scoring_mode", "benchmark_name", "reference_rubric",
    "atif_criteria_source", "subagent_aggregation", "completion_threshold", "failure_threshold", "atif_scored_frames",
    "atif_copied_context",
)
NODE_FIELDS = ("criteria_hash", "rubric_source", "rubric_version")
"""Criteria fields that must agree between paired nodes (per task)."""
GUARDED_FIELDS = (
    *(f"judge.{name}" for name in _JUDGE_SETTINGS), "template_hashes", *_RUN_PARAMETERS, *NODE_FIELDS,
)
"""Every field two runs must agree on to be compared; ``--allow-different`` takes these names."""


class ComparedRun(FrozenRecord):
    """One side of a comparison, as read."""

    path: str = Field(description="The folder given.")
    layout: str = Field(description="run_folder (plain or merged shards) or evalhub_job (its results/ folder).")
    job_id: str
    created_at: str
    job_status: str
    atif_overall_score: float | None = Field(description="The run's own collection score, over all its roots.")
    atif_trajectory_count: int
    roots: int = Field(description="Root trajectories in the run.")
    judge: str = Field(description="The judge model.")
    atif_prompt_version: str


class Difference(FrozenRecord):
    """A guarded field that differs, with both values (for a per-task field: the first pair that differs)."""

    field: str
    baseline: Any
    candidate: Any
    pairs: int | None = Field(None, description="For a per-task field: how many pairs differ.")
    example: str | None = Field(None, description="For a per-task field: the first pair that differs.")

    def line(self) -> str:
        """The difference in one line."""
        where = f" (pair {self.example}; {self.pairs} pair(s) differ)" if self.example else ""
        return f"{self.field} differs{where}: baseline {self.baseline!r}, candidate {self.candidate!r}"


@dataclass(frozen=True)
class Side:
    """A verified run folder and its results."""

    folder: Path
    layout: str
    results: ComparedResults

    def judge(self) -> dict[str, Any]:
        """The judge the run recorded in its provenance (empty when none was)."""
        recorded = self.results.provenance.get("judge")
        return dict(recorded) if isinstance(recorded, dict) else {}

    def record(self, given: Path) -> ComparedRun:
        """What the comparison records of this side."""
        summary, results = self.results.summary, self.results
        return ComparedRun(
            path=str(given), layout=self.layout, job_id=results.job_id, created_at=results.created_at,
            job_status=str(summary.job_status), atif_overall_score=summary.atif_overall_score,
            atif_trajectory_count=summary.atif_trajectory_count,
            roots=sum(1 for n in results.nodes if n.depth == 0), judge=results.parameters.atif_judge,
            atif_prompt_version=results.parameters.atif_prompt_version,
        )


def read_side(path: Path, which: str) -> Side:
    """The run folder at ``path`` (plain, merged shards, or an EvalHub job folder), its manifest verified.

    Raises:
        InputError: no such folder, no verified manifest, not ATIF judge results, or one shard of a job.
    """
    if not path.is_dir():
        raise InputError(f"{which} {path}: not a folder", code="not_a_run_folder")
    folder, layout = path, "run_folder"
    if not (path / "evaluation_results.json").exists() and (path / "results" / "evaluation_results.json").exists():
        folder, layout = path / "results", "evalhub_job"
    manifest, data = read_verified(folder, "evaluation_results.json")
    if manifest.get("kind") != "atif-judge":
        raise InputError(f"{which} {folder}: a {manifest.get('kind')} run folder, not an ATIF judge run",
                         code="not_a_judge_run")
    results = _decoded(folder / "evaluation_results.json", data)
    _check_summary_score(folder / "evaluation_results.json", results)
    if results.shard is not None:
        raise InputError(f"{which} {folder}: shard {results.shard} of job {results.job_id}; merge the shards first "
                         "(tracegrade merge)", code="shard_not_merged")
    return Side(folder, layout, results)


def _decoded(file: Path, data: bytes | None) -> ComparedResults:
    if data is None:
        raise InputError(f"{file.parent}: no evaluation_results.json there")
    try:
        return decode_results(data)
    except ValueError as exc:  # msgspec's errors included
        raise InputError(f"{file}: not a tracegrade evaluation_results.json ({exc})") from None


def _check_summary_score(file: Path, results: ComparedResults) -> None:
    score = results.summary.atif_overall_score
    if score is not None and not 0.0 <= score <= 1.0:  # NaN fails both comparisons
        raise InputError(f"{file}: not a tracegrade evaluation_results.json (a score is finite and in [0, 1], "
                         f"got {score!r} - at `$.summary.atif_overall_score`)")


def _run_fields(results: ComparedResults) -> dict[str, Any]:
    judge = results.provenance.get("judge", {})
    recorded = results.parameters.model_dump(mode="json")
    fields = {f"judge.{name}": judge.get(name) for name in _JUDGE_SETTINGS}
    fields["template_hashes"] = results.provenance.get("template_hashes")
    fields.update({name: recorded.get(name) for name in _RUN_PARAMETERS})
    fields["judge_repeats"] = results.parameters.judge_repeats
    return fields


def run_differences(baseline: ComparedResults, candidate: ComparedResults) -> list[Difference]:
    """The run-level guarded fields that differ, in the order of :data:`GUARDED_FIELDS`."""
    base, cand = _run_fields(baseline), _run_fields(candidate)
    return [Difference(field=name, baseline=base[name], candidate=cand[name]) for name in base
            if base[name] != cand[name]]


def node_differences(matched: Iterable[tuple[str, ComparedNode, ComparedNode]]) -> list[Difference]:
    """The per-task criteria fields that differ between matched nodes (both with criteria), one record per field."""
    found: dict[str, Difference] = {}
    counts = dict.fromkeys(NODE_FIELDS, 0)
    for pair, base, cand in matched:
        if base.criteria is None or cand.criteria is None:
            continue
        for name in NODE_FIELDS:
            first, second = base.criteria.get(name), cand.criteria.get(name)
            if first != second:
                counts[name] += 1
                found.setdefault(name, Difference(field=name, baseline=first, candidate=second, example=pair))
    return [d.model_copy(update={"pairs": counts[d.field]}) for name in NODE_FIELDS if (d := found.get(name))]


def read_sides(first: Path, second: Path, names: tuple[str, str], allow_different: Iterable[str]) -> tuple[Side, Side]:
    """The two run folders (:func:`read_side`), once ``allow_different`` is known to name guarded fields only.

    Raises:
        ConfigError: ``allow_different`` names a field that is not guarded.
        InputError: a folder is not a verified, whole judge run.
    """
    check_field_names(allow_different)
    return read_side(first, names[0]), read_side(second, names[1])


def guarded_differences(first: Side, second: Side,
                        matched: Iterable[tuple[str, ComparedNode, ComparedNode]]) -> list[Difference]:
    """The run-level guarded fields that differ, then the per-task ones of the matched nodes (by pair)."""
    return [*run_differences(first.results, second.results), *node_differences(matched)]


def check_allowed(differences: list[Difference], allowed: Iterable[str]) -> list[Difference]:
    """The differences ``allowed`` names; the first one it does not name refuses the comparison.

    Raises:
        InputError: ``not_comparable``, one line naming the field and both values.
    """
    allowed = set(allowed)
    for difference in differences:
        if difference.field not in allowed:
            raise InputError(f"runs are not comparable: {difference.line()} "
                             f"(--allow-different {difference.field} compares them anyway)", code="not_comparable")
    return [d for d in differences if d.field in allowed]


def check_field_names(names: Iterable[str]) -> None:
    """Refuse a name that is not a guarded field.

    Raises:
        ConfigError: naming the field and the valid names.
    """
    for name in names:
        if name not in GUARDED_FIELDS:
            raise ConfigError(f"--allow-different {name}: not a guarded field (one of {', '.join(GUARDED_FIELDS)})")
