"""What resolving criteria for one trajectory node produces: criteria with provenance, or a failure."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from tracegrade.atif.criteria._benchmark import BENCHMARK_RUBRIC_NOTE
from tracegrade.rubric import Rubric, ScoringMode

__all__ = ["CriteriaFailure", "CriteriaFailureCode", "ResolvedCriteria"]


class CriteriaFailureCode(StrEnum):
    """Failure codes the resolver produces itself (derivation failures keep the judge's code)."""

    TASK_UNRESOLVED = "task_unresolved"
    """Auto mode found neither ``extra.task_instruction`` nor a textual user step."""
    REFERENCE_MISSING = "reference_missing"
    """Reference mode found no reference for the trajectory."""
    NODE_NOT_LOADED = "node_not_loaded"
    """The node holds no loaded trajectory."""
    INVALID_CRITERIA = "invalid_criteria"
    """Derived criteria failed validation without the judge client reporting it."""


@dataclass(frozen=True, slots=True)
class CriteriaFailure:
    """Criteria could not be resolved for one node; the node fails, the job goes on.

    ``code`` is safe to log and persist; ``message`` is one human-readable line.
    """

    code: str
    """A :class:`CriteriaFailureCode` value, or the judge's error code for a failed derivation."""
    message: str
    mode: ScoringMode
    task_hash: str | None = None

    def provenance(self) -> dict[str, Any]:
        """JSON-ready record of the failure: the scoring mode, the code and, when known, the task hash."""
        record: dict[str, Any] = {"scoring_mode": self.mode.value, "criteria_error": self.code}
        if self.task_hash is not None:
            record["task_hash"] = self.task_hash
        return record


@dataclass(frozen=True, slots=True)
class ResolvedCriteria:
    """The rubric that scores one node, and everything needed to say where it came from."""

    rubric: Rubric
    mode: ScoringMode
    task: str | None = None
    """The normalised task (every mode resolves it when it can; only auto mode requires it)."""
    task_hash: str | None = None
    prompt_version: str | None = None
    """The judge prompt generation, when the caller supplied it."""
    template_hash: str | None = None
    """Hash of the judge's criteria-derivation prompt template (auto mode)."""
    benchmark_name: str | None = None
    benchmark_registry_version: int | None = None
    reference_rubric: str | None = None
    reference_id: str | None = None
    reference_answer: str | None = None
    """Expected answer for the judge; untrusted evidence, never an instruction."""
    reference_registry_version: str | None = None
    reference_registry_sha256: str | None = None
    rubric_source: str | None = None
    """Custom mode: the parameter that supplied the rubric (and the file, when there was one); auto mode
    with the local judge: ``local_judge_generic_rubric`` (no derivation was asked for)."""

    @property
    def criteria_hash(self) -> str:
        """SHA-256 of the normalised criteria and aggregation."""
        return self.rubric.criteria_hash

    def provenance(self) -> dict[str, Any]:
        """JSON-ready record kept with every score made with these criteria (a new dict).

        The mode, the rubric's name, version and aggregation, the normalised criteria and their hash, and the
        keys of the mode that apply; of the task and the reference answer only their hashes.
        """
        record: dict[str, Any] = {
            "scoring_mode": self.mode.value,
            "rubric_name": self.rubric.name,
            "rubric_version": self.rubric.version,
            "aggregation": self.rubric.aggregation.value,
            "criteria": self.rubric.normalized(),
            "criteria_hash": self.criteria_hash,
            "task_hash": self.task_hash,
        }
        record.update({key: value for key, value in self._optional().items() if value is not None})
        return record

    def _optional(self) -> dict[str, Any]:
        return {
            "prompt_version": self.prompt_version,
            "criteria_template_hash": self.template_hash,
            "benchmark_name": self.benchmark_name,
            "benchmark_registry_version": self.benchmark_registry_version,
            "benchmark_rubric_note": BENCHMARK_RUBRIC_NOTE if self.mode is ScoringMode.BENCHMARK else None,
            "reference_rubric": self.reference_rubric,
            "reference_id": self.reference_id,
            "reference_answer_sha256": _sha256(self.reference_answer),
            "reference_registry_version": self.reference_registry_version,
            "reference_registry_sha256": self.reference_registry_sha256,
            "rubric_source": self.rubric_source,
        }


def _sha256(text: str | None) -> str | None:
    return None if text is None else hashlib.sha256(text.encode("utf-8")).hexdigest()
