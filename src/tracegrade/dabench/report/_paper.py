"""Paper-ready tables (research mode): ``paper_tables.md`` and ``paper_tables.tex``.

Table 1 main results (mean ± std, bootstrap interval), 2 difficulty breakdown, 3 task type,
4 multi-agent participation, 5 top root causes, and 6 the comparison with a baseline run when one
is given. Every number is computed from task_metrics; a cell without data is "—".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import fmean

from tracegrade.dabench.analyses._compare import RunComparison, interval_text
from tracegrade.dabench.analyses._mas import missing_artefact_note
from tracegrade.dabench.analyses._overview import DIFFICULTY_ORDER
from tracegrade.dabench.analyses._params import Resampling, ci_label
from tracegrade.dabench.analyses._research import describe
from tracegrade.dabench.analyses._sections import fmt
from tracegrade.dabench.metrics._failure import FAILED_OUTCOMES, HARNESS_OUTCOME
from tracegrade.dabench.tables._evaluated import Row, RunRows, count_true, numbers
from tracegrade.render import fmt_pct
from tracegrade.stats import ratio

__all__ = ["PaperTable", "paper_tables", "render_latex", "render_markdown"]

MAIN_METRICS = ("final_score", "analyst_score", "answer_f1", "autonomy_score", "tool_efficiency")
DASH = "—"


@dataclass(frozen=True, slots=True)
class PaperTable:
    """A numbered table: caption, header and text cells."""

    number: int
    caption: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    note: str = ""


def _pm(values: list[float]) -> str:
    from tracegrade.stats import std

    if not values:
        return DASH
    spread = std(values)
    return f"{fmean(values):.3f} ± {spread:.3f}" if spread is not None else f"{fmean(values):.3f}"


def _main(run: RunRows, resampling: Resampling) -> PaperTable:
    rows = []
    for metric in MAIN_METRICS:
        values = numbers(run.rows, metric)
        stats = describe(values, resampling)
        ci = stats["ci"]
        interval = f"[{ci[0]:.3f}, {ci[1]:.3f}]" if isinstance(ci, list) else DASH
        rows.append((metric, str(len(values)), _pm(values), interval))
    label = ci_label(resampling.level)
    note = f"{label}: percentile bootstrap of the mean ({resampling.resamples} resamples, seed {resampling.seed})."
    return PaperTable(1, "Main results", ("Metric", "n", "Mean ± std", label), tuple(rows), note)


def _groups(rows: Sequence[Row], key: str) -> dict[str, list[Row]]:
    out: dict[str, list[Row]] = {}
    for row in rows:
        value = row.get(key)
        out.setdefault("unknown" if value is None or value == "" else str(value), []).append(row)  # as the report
    return out


def _difficulty(run: RunRows) -> PaperTable:
    groups = _groups(run.rows, "difficulty")
    rows = []
    for name in sorted(groups, key=lambda d: (DIFFICULTY_ORDER.get(d, 9), d)):
        group = groups[name]
        scores = numbers(group, "final_score")
        executed, known = count_true(group, "execution_success")
        accuracy = ratio(sum(s >= run.success_threshold for s in scores), len(scores))
        rows.append((name, str(len(group)), fmt_pct(ratio(executed, known)), fmt_pct(accuracy), _pm(scores)))
    header = ("Difficulty", "n", "Execution success", "Answer accuracy", "Final score")
    note = f"Answer accuracy: final_score ≥ {run.success_threshold:g}."
    return PaperTable(2, "Breakdown by difficulty", header, tuple(rows), note)


def _task_type(run: RunRows) -> PaperTable:
    groups = _groups(run.rows, "task_type")
    rows = tuple(
        (name, str(len(g)), _pm(numbers(g, "final_score")), _pm(numbers(g, "analyst_score")))
        for name, g in sorted(groups.items())
    )
    return PaperTable(3, "Breakdown by task type", ("Task type", "n", "Final score", "Analyst score"), rows)


def _participation(run: RunRows) -> PaperTable:
    groups: dict[str, list[Row]] = {}
    for row in run.rows:
        value = row.get("specialist_participation")
        label = DASH if not isinstance(value, float | int) else f"{float(value):.2f}"
        groups.setdefault(label, []).append(row)
    rows = tuple(
        (name, str(len(g)), _mean(numbers(g, "final_score")), _mean(numbers(g, "autonomy_score")))
        for name, g in sorted(groups.items())
    )
    note = "Specialist participation: specialists called / 3 (— : trace format without specialists)."
    return PaperTable(4, "Multi-agent participation", ("Participation", "n", "Final score", "Autonomy"), rows, note)


def _mean(values: list[float]) -> str:
    return f"{fmean(values):.3f}" if values else DASH


def _root_causes(run: RunRows) -> PaperTable:
    failed = [r for r in run.rows if r.get("outcome_status") in FAILED_OUTCOMES]
    counts = Counter(str(r["root_cause"]) for r in failed if r.get("root_cause"))
    rows = tuple((cause, str(n), fmt_pct(n / len(failed))) for cause, n in counts.most_common(10))
    note = f"Failed or partial tasks (final_score < {run.success_threshold:g} or no answer): {len(failed)}."
    note = note if failed else "No failed task."
    missing = sum(1 for r in run.rows if r.get("outcome_status") == HARNESS_OUTCOME)
    if missing:
        note += f" {missing_artefact_note(missing)}"
    return PaperTable(5, "Top root causes", ("Root cause", "Tasks", "Share of failed"), rows, note)


def _comparison(c: RunComparison) -> PaperTable:
    row = (c.primary, str(c.n), fmt(c.baseline_score), fmt(c.candidate_score), fmt(c.mean_delta, "+.3f"),
           interval_text(c), fmt(c.wilcoxon.statistic, ".1f"), fmt(c.p_value, ".4f"), fmt(c.cohens_d))
    header = ("Metric", "Pairs", "Baseline", "Proposed", "Δ", ci_label(c.level), "Wilcoxon W", "p", "Cohen's d")
    note = (
        f"Baseline {c.baseline.run_id}, proposed {c.candidate.run_id}; paired by task_id; "
        f"{len(c.only_in_baseline) + len(c.only_in_candidate)} tasks in one run only and {len(c.unscored)} unscored "
        "pairs excluded."
    )
    return PaperTable(6, "Comparison with the baseline", header, (row,), note)


def paper_tables(
    run: RunRows, comparison: RunComparison | None = None, *, resampling: Resampling | None = None
) -> list[PaperTable]:
    """Tables 1–5, plus 6 when a baseline comparison is given."""
    main = _main(run, resampling or Resampling())
    tables = [main, _difficulty(run), _task_type(run), _participation(run), _root_causes(run)]
    if comparison is not None:
        tables.append(_comparison(comparison))
    return tables


def render_markdown(run_id: str, tables: Sequence[PaperTable], health: str | None = None) -> str:
    """The tables as Markdown, under the run's harness health line when given."""
    lines = [f"# Paper tables: {run_id}", "", *([health, ""] if health else [])]
    for t in tables:
        lines += [
            f"## Table {t.number}: {t.caption}",
            "",
            "| " + " | ".join(t.header) + " |",
            "|" + "|".join("---" for _ in t.header) + "|",
        ]
        lines += ["| " + " | ".join(cells) + " |" for cells in t.rows] or [
            "| " + " | ".join(DASH for _ in t.header) + " |"
        ]
        lines += ["", t.note, ""] if t.note else [""]
    return "\n".join(lines)


_TEX = str.maketrans({"&": r"\&", "%": r"\%", "_": r"\_", "#": r"\#", "$": r"\$", "{": r"\{", "}": r"\}",
                      "±": r"$\pm$", "≥": r"$\geq$", "Δ": r"$\Delta$", "—": "--", "–": "--", "−": "-"})


def render_latex(run_id: str, tables: Sequence[PaperTable], health: str | None = None) -> str:
    """The tables as LaTeX ``table`` environments (booktabs), the harness health line first when given."""
    lines = [f"% Paper tables: {run_id.translate(_TEX)} (written by tracegrade dabench eval-v2; needs booktabs)",
             *([f"% {health}", f"\\noindent {health.translate(_TEX)}\\par"] if health else []), ""]
    for t in tables:
        lines += [
            r"\begin{table}[t]",
            r"\centering",
            f"\\caption{{{t.caption.translate(_TEX)}}}",
            f"\\label{{tab:dabench-{t.number}}}",
            r"\begin{tabular}{l" + "r" * (len(t.header) - 1) + "}",
            r"\toprule",
            " & ".join(h.translate(_TEX) for h in t.header) + r" \\",
            r"\midrule",
        ]
        lines += [" & ".join(c.translate(_TEX) for c in cells) + r" \\" for cells in t.rows]
        lines += [r"\bottomrule", r"\end{tabular}"]
        if t.note:
            lines.append(f"\\par\\smallskip\\footnotesize {t.note.translate(_TEX)}")
        lines += [r"\end{table}", ""]
    return "\n".join(lines)
