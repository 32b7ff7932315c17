"""A comparison shown: ``comparison.html`` (pairs with both runs' step verdicts side by side) and 80-column lines."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tracegrade.atif.output._compare import AtifComparison, ComparisonOutcome, PairRecord
from tracegrade.atif.output._compared import ComparedNode, ComparedStep
from tracegrade.atif.output._comparison_output import WIDTH, fit, gate_lines, write_comparison_folder
from tracegrade.atif.output._pairing import matched_nodes, matched_steps, root_trees
from tracegrade.render import MISSING, fmt_score, render_html

__all__ = ["DETAILED_PAIRS", "comparison_lines", "render_comparison", "write_comparison"]

DETAILED_PAIRS = 300
"""Pairs whose steps the HTML report shows side by side (biggest regressions first); the rest link to nothing."""


def _signed(value: float | None) -> str:
    return MISSING if value is None else f"{value:+.4f}"


def _interval(comparison: AtifComparison) -> str:
    interval = comparison.interval
    if interval.low is None or interval.high is None:
        return f"no interval (n={interval.n})"
    return f"{interval.level:.0%} CI [{interval.low:+.4f}, {interval.high:+.4f}] (n={interval.n})"


def comparison_lines(comparison: AtifComparison) -> list[str]:
    """The terminal summary: every line at most 80 characters."""
    c = comparison
    lines = [f"compare: baseline {c.baseline.job_id} vs candidate {c.candidate.job_id}"]
    lines += [f"ALLOWED DIFFERENCE {d.line()}" for d in c.allowed_differences]
    lines += [line for warning in c.warnings for line in _wrapped(f"warning: {warning}", indent="")]
    methods = ", ".join(f"{name} {count}" for name, count in c.pairing.items() if count) or "none"
    lines.append(f"pairs {len(c.pairs)} (by {methods})")
    lines.append(f"  only in baseline {len(c.only_in_baseline)}, only in candidate {len(c.only_in_candidate)}, "
                 f"unscored {len(c.unscored)}")
    lines.append(f"{c.primary} {fmt_score(c.baseline_score, 4)} -> {fmt_score(c.candidate_score, 4)}: "
                 f"delta {_signed(c.mean_delta)}")
    lines.append(f"  {_interval(c)}; Wilcoxon p {fmt_score(c.p_value, 4)} (n={c.wilcoxon.n})")
    lines.append(f"improved {len(c.improved)}, regressed {len(c.regressed)}, unchanged {len(c.unchanged)} "
                 f"(min delta {c.min_delta:g})")
    lines.append(f"  newly failing {len(c.newly_failing)}, newly passing {len(c.newly_passing)} "
                 "(against completion_threshold)")
    worst = [p for p in c.pairs if p.outcome == "regressed"][:5]
    if worst:
        lines.append("biggest regressions:")
        lines += [f"  {_signed(p.delta)}  {p.id}" for p in worst]
    errors = c.protocol_errors
    lines.append(f"judge protocol errors: baseline {errors['baseline'].protocol_errors}, "
                 f"candidate {errors['candidate'].protocol_errors}; failed steps "
                 f"{errors['baseline'].failed_steps} / {errors['candidate'].failed_steps}")
    lines += gate_lines(c.gate, _wrapped, c.gate.warnings)
    return [piece for line in lines for piece in _folded(line)]


def _folded(line: str) -> list[str]:
    """``line`` as it fits 80 columns: wrapped between words, only a single word wider than that cut.

    Its indent is kept, with two more on the lines it continues on.
    """
    if len(line) <= WIDTH:
        return [line]
    stripped = line.lstrip()
    return [fit(piece) for piece in _wrapped(stripped, line[: len(line) - len(stripped)])]


def _wrapped(rule: str, indent: str = "  ") -> list[str]:
    return textwrap.wrap(rule, WIDTH, initial_indent=indent, subsequent_indent=indent + "  ",
                         break_long_words=False, break_on_hyphens=False)


def _step_row(node: str, first: ComparedStep | None, second: ComparedStep | None) -> dict[str, Any]:
    step = first or second
    assert step is not None
    delta = None if first is None or second is None or first.score is None or second.score is None \
        else second.score - first.score
    return {
        "node": node or "(root)", "step": step.index, "delta": delta,
        "baseline": _verdict(first), "candidate": _verdict(second),
    }


def _verdict(step: ComparedStep | None) -> dict[str, Any] | None:
    if step is None:
        return None
    return {"status": step.status.value, "score": step.score, "rationale": step.rationale,
            "message": step.content.message if step.content else None, "error_code": step.error_code,
            "category": step.category if step.failure_candidate else None}


def _steps(base_tree: list[ComparedNode], cand_tree: list[ComparedNode]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for place, base, cand in matched_nodes(base_tree, cand_tree):
        if base is not None and cand is not None:
            matched = list(matched_steps(base, cand))
            rows += [_step_row(place, first, second) for first, second in matched]
            seen = {(s.segment, s.step_id) for s, _ in matched}
            rows += [_step_row(place, None, s) for s in cand.steps if (s.segment, s.step_id) not in seen]
        else:
            rows += [_step_row(place, s, None) for s in (base.steps if base else [])]
            rows += [_step_row(place, None, s) for s in (cand.steps if cand else [])]
    return rows


@dataclass(frozen=True, slots=True)
class _PairRow:
    """A row of the pairs table (attributes: jinja reads a dict's keys only after a failed attribute lookup)."""

    href: str | None
    id: str
    matched_by: str
    outcome: str
    baseline: float | None
    candidate: float | None
    delta: float | None
    aggregate_delta: float | None
    passed: str


def _pair_row(index: int, pair: PairRecord, detailed: bool) -> _PairRow:
    return _PairRow(
        href=f"#pair-{index}" if detailed else None, id=pair.id, matched_by=pair.matched_by, outcome=pair.outcome,
        baseline=pair.baseline_score, candidate=pair.candidate_score, delta=pair.delta,
        aggregate_delta=pair.aggregate_delta,
        passed=f"{_flag(pair.baseline_passed)} → {_flag(pair.candidate_passed)}",
    )


def _flag(value: bool | None) -> str:
    return MISSING if value is None else ("pass" if value else "fail")


def render_comparison(outcome: ComparisonOutcome, *, generated_at: str) -> str:
    """The self-contained ``comparison.html``."""
    c = outcome.comparison
    detailed = c.pairs[:DETAILED_PAIRS]
    base_ids, cand_ids = {p.id for p in detailed}, {p.candidate_root for p in detailed}
    base_trees = root_trees(n for n in outcome.baseline.results.nodes if n.root_id in base_ids)
    cand_trees = root_trees(n for n in outcome.candidate.results.nodes if n.root_id in cand_ids)
    details = [{"index": i, "pair": p, "steps": _steps(base_trees.get(p.id, []), cand_trees.get(p.candidate_root, []))}
               for i, p in enumerate(detailed)]
    return render_html(
        "atif_comparison.html", title=f"Comparison: {c.baseline.job_id} → {c.candidate.job_id}",
        subtitle=f"baseline {c.baseline.path} · candidate {c.candidate.path}", comparison=c,
        pair_rows=[_pair_row(i, p, i < DETAILED_PAIRS) for i, p in enumerate(c.pairs)], details=details,
        criterion_rows=[r.model_dump() for r in c.per_criterion],
        category_rows=[r.model_dump() for r in c.category_shift],
        interval=_interval(c), generated_at=generated_at, detailed_limit=DETAILED_PAIRS,
        sections=[{"id": "pairs", "label": "Pairs"}, {"id": "criteria", "label": "Criteria"},
                  {"id": "categories", "label": "Failure categories"}, {"id": "judge", "label": "Judge errors"},
                  {"id": "steps", "label": "Step verdicts"}],
    )


def write_comparison(outcome: ComparisonOutcome, out_dir: Path) -> dict[str, Path]:
    """Write ``comparison.json`` and ``comparison.html`` into a run folder, then its manifest; paths by name.

    Raises:
        OutputError: the folder cannot be written.
    """
    c = outcome.comparison
    return write_comparison_folder(out_dir, kind="atif-compare", job_id=f"{c.baseline.job_id}..{c.candidate.job_id}",
                                   comparison=c, gate=c.gate,
                                   render=lambda stamp: render_comparison(outcome, generated_at=stamp))
