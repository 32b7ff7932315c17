"""A judge comparison shown: ``comparison.html`` (agreement, shifts, the steps they disagree on) and 80-column lines."""

from __future__ import annotations

import textwrap
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tracegrade.atif.agreement._records import Estimate
from tracegrade.atif.output._judges import JudgesComparison, JudgesLevelAgreement, JudgesOutcome
from tracegrade.render import MISSING, render_html
from tracegrade.runs import JobStatus, RunFolder

__all__ = ["estimate_text", "judges_lines", "render_judges", "write_judges"]

WIDTH = 80


def estimate_text(estimate: Estimate, *, signed: bool = False) -> str:
    """``0.612 [0.41, 0.78] n=80``, or the reason the value is missing."""
    if estimate.value is None:
        return f"{MISSING} ({estimate.reason or 'undefined'}; n={estimate.n})"
    form = "{:+.3f}" if signed else "{:.3f}"
    interval = "" if estimate.low is None or estimate.high is None else \
        f" [{form.format(estimate.low)}, {form.format(estimate.high)}]"
    return f"{form.format(estimate.value)}{interval} n={estimate.n}"


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
    lines += _gate_lines(c)
    return [line if len(line) <= WIDTH else line[: WIDTH - 1] + "…" for line in lines]


def _gate_lines(c: JudgesComparison) -> list[str]:
    if not c.gate.checked:
        return ["gate: off (exit 0)"]
    if not c.gate.fired:
        return [f"gate: passed ({', '.join(c.gate.checked)}): exit 0"]
    wrapped = (textwrap.wrap(rule, WIDTH, initial_indent="  ", subsequent_indent="    ") for rule in c.gate.fired)
    return ["gate: FAILED: exit 1", *(line for rule in wrapped for line in rule)]


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
    folder = RunFolder(out_dir, kind="atif-compare-judges", job_id=f"{c.a.job_id}..{c.b.job_id}")
    stamp = datetime.now(UTC).replace(microsecond=0).isoformat()
    paths = {
        "comparison.json": folder.write_json("comparison.json", c.model_dump(mode="json")),
        "comparison.html": folder.write_text("comparison.html", render_judges(outcome, generated_at=stamp)),
    }
    folder.finish(JobStatus.COMPLETED, {"gate_exit_code": c.gate.exit_code})
    return paths
