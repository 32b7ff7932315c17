"""A judge comparison shown: ``comparison.html`` (agreement, shifts, the steps they disagree on) and 80-column lines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tracegrade.atif.agreement._records import Estimate
from tracegrade.atif.output._comparison_output import fit, gate_lines, interval_text, write_comparison_folder
from tracegrade.atif.output._judges import JudgesComparison, JudgesLevelAgreement, JudgesOutcome
from tracegrade.render import MISSING, render_html

__all__ = ["estimate_text", "judges_lines", "render_judges", "write_judges"]


def estimate_text(estimate: Estimate, *, signed: bool = False) -> str:
    """``0.612 [0.41, 0.78] n=80``, or the reason the value is missing."""
    if estimate.value is None:
        return f"{MISSING} ({estimate.reason or 'undefined'}; n={estimate.n})"
    return f"{interval_text(estimate.value, estimate.low, estimate.high, signed=signed)} n={estimate.n}"


def _judge_name(judge: dict[str, object]) -> str:
    panel = judge.get("panel")
    if isinstance(panel, list):
        return f"panel of {len(panel)}"
    return str(judge.get("model", MISSING))


def _level_lines(name: str, level: JudgesLevelAgreement) -> list[str]:
    return [
        f"{name} (n={level.n})",
        f"  spearman {estimate_text(level.spearman)}",
        f"  pearson  {estimate_text(level.pearson)}",
        f"  pass/fail kappa {estimate_text(level.kappa)}",
        f"  pass/fail agreement {estimate_text(level.pass_fail_agreement)}",
        f"  shift B-A {estimate_text(level.shift, signed=True)}",
    ]


def judges_lines(comparison: JudgesComparison) -> list[str]:
    """The terminal summary of ``compare --judges``: every line at most 80 characters."""
    c = comparison
    lines = [f"judges: A {_judge_name(c.judge_a)} ({c.a.job_id}) vs B {_judge_name(c.judge_b)} ({c.b.job_id})"]
    if not c.judge_differences:
        lines.append("  the two runs record the same judge")
    lines += [f"ALLOWED DIFFERENCE {d.line()}" for d in c.allowed_differences]
    lines.append(f"pairs {c.pairs}; {c.level:.0%} intervals over trajectories ({c.resamples} resamples)")
    lines += _level_lines("steps", c.step)
    lines.append(f"  categories kappa {estimate_text(c.categories.kappa)}")
    lines += _level_lines("trajectories", c.trajectory)
    u = c.unscored
    lines.append(f"steps left out: scored by A only {u.only_a}, B only {u.only_b}, neither {u.neither}")
    top = sorted(c.shift_by, key=lambda g: -abs(g.shift.value or 0.0))[:3]
    if top:
        lines.append("largest shifts:")
        lines += [f"  {g.by} {g.key}: {estimate_text(g.shift, signed=True)}" for g in top]
    if c.disagreements:
        lines.append("steps most disagreed on:")
        lines += [f"  {d.score_a:.2f} -> {d.score_b:.2f}  {d.pair} {d.node or '(root)'} step {d.index}"
                  for d in c.disagreements[:5]]
    lines += gate_lines(c.gate)
    return [fit(line) for line in lines]


def _rows(c: JudgesComparison) -> list[dict[str, Any]]:
    rows = []
    for name, level in (("steps", c.step), ("trajectories", c.trajectory)):
        for measure, estimate in (("spearman", level.spearman), ("pearson", level.pearson),
                                  ("pass/fail kappa", level.kappa), ("pass/fail agreement", level.pass_fail_agreement),
                                  ("shift B − A", level.shift)):
            rows.append({"level": name, "measure": measure, "text": estimate_text(estimate, signed="shift" in measure)})
    for measure, estimate in (("category kappa", c.categories.kappa), ("category agreement", c.categories.agreement)):
        rows.append({"level": "steps", "measure": measure, "text": estimate_text(estimate)})
    return rows


def render_judges(outcome: JudgesOutcome, *, generated_at: str) -> str:
    """The self-contained ``comparison.html`` of a judge comparison."""
    c = outcome.comparison
    return render_html(
        "atif_judges.html", title=f"Judges: {_judge_name(c.judge_a)} vs {_judge_name(c.judge_b)}",
        subtitle=f"run A {c.a.path} · run B {c.b.path}", comparison=c, measure_rows=_rows(c),
        shift_rows=[{"by": g.by, "key": g.key, "text": estimate_text(g.shift, signed=True), "n": g.shift.n}
                    for g in c.shift_by],
        generated_at=generated_at,
        sections=[{"id": "agreement", "label": "Agreement"}, {"id": "shift", "label": "Where the shift is"},
                  {"id": "categories", "label": "Categories"}, {"id": "disagreements", "label": "Disagreements"}],
    )


def write_judges(outcome: JudgesOutcome, out_dir: Path) -> dict[str, Path]:
    """Write ``comparison.json`` and ``comparison.html``, then the manifest; paths by name.

    Raises:
        OutputError: the folder cannot be written.
    """
    c = outcome.comparison
    return write_comparison_folder(out_dir, kind="atif-compare-judges", job_id=f"{c.a.job_id}..{c.b.job_id}",
                                   comparison=c, gate=c.gate,
                                   render=lambda stamp: render_judges(outcome, generated_at=stamp))
