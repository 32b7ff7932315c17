"""A self-contained HTML report of a scoring run (inline CSS, plot embedded as a data URI)."""

from __future__ import annotations

from html import escape

from tracegrade.atif._results import EvaluationResults
from tracegrade.atif._scores import NodeResult, StepResult
from tracegrade.render import figure_to_data_uri, new_figure
from tracegrade.runs._status import JobStatus

__all__ = ["render_report"]

_CSS = """
body{font-family:system-ui,sans-serif;margin:2rem;color:#222;max-width:1200px}
h1{margin-bottom:.2rem}.muted{color:#666}table{border-collapse:collapse;margin:.5rem 0 1.5rem}
th,td{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top;font-size:.9rem}
th{background:#f4f4f4}.num{text-align:right;font-variant-numeric:tabular-nums}
.big{font-size:2.2rem;font-weight:600}.bad{color:#b00020}.ok{color:#1b5e20}
details{margin:.3rem 0;border:1px solid #eee;padding:.3rem .6rem}summary{cursor:pointer}
.note{background:#fff8e1;border-left:4px solid #f9a825;padding:.5rem .8rem}
"""


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _plot(results: EvaluationResults) -> str:
    steps = [s.score for n in results.nodes for s in n.steps if s.score is not None]
    trajectories = [n.own_score for n in results.nodes if n.own_score is not None]
    if not steps:
        return "<p class='muted'>No scored steps to plot.</p>"
    fig = new_figure(9, 3)
    axes = fig.subplots(1, 2)
    bins = [i / 10 for i in range(11)]
    axes[0].hist(steps, bins=bins, color="#3f51b5")
    axes[0].set_title(f"Step scores (n={len(steps)})")
    axes[1].hist(trajectories, bins=bins, color="#009688")
    axes[1].set_title(f"Node own scores (n={len(trajectories)})")
    for axis in axes:
        axis.set_xlim(0, 1)
        axis.set_xlabel("score")
    threshold = results.parameters.get("failure_threshold")
    if isinstance(threshold, int | float):
        axes[0].axvline(threshold, color="#b00020", linestyle="--", linewidth=1)
    return f"<img alt='score distributions' src='{figure_to_data_uri(fig)}'>"


def _headline(results: EvaluationResults) -> str:
    s = results.summary
    status_class = "ok" if s.job_status is JobStatus.COMPLETED else "bad"
    complete = "complete" if s.atif_complete else "incomplete (some nodes or inputs could not be scored)"
    rate = _fmt(s.atif_failure_categorization_rate)
    if not s.counts.get("failure_candidates"):
        rate += " (no step scored below the failure threshold)"
    return (
        f"<p><span class='big'>{_fmt(s.atif_overall_score)}</span> collection score "
        f"({escape(s.subagent_aggregation)} aggregation over {s.atif_trajectory_count} trajectories)</p>"
        f"<p>Job <b class='{status_class}'>{escape(s.job_status)}</b>"
        f"{' — ' + escape(s.failure_reason) if s.failure_reason else ''}; run is {escape(complete)}.</p>"
        f"<p>Failure categorisation rate: <b>{rate}</b> "
        "<span class='muted'>(a proxy of judge response validity, not of detection accuracy)</span></p>"
    )


def _params_table(results: EvaluationResults) -> str:
    keys = [
        "atif_judge",
        "atif_prompt_version",
        "scoring_mode",
        "atif_scored_frames",
        "completion_threshold",
        "failure_threshold",
        "subagent_aggregation",
        "partial_result_policy",
        "max_subagent_depth",
    ]
    rows = "".join(f"<tr><th>{escape(k)}</th><td>{escape(str(results.parameters.get(k)))}</td></tr>" for k in keys)
    counts = "".join(
        f"<tr><th>{escape(k)}</th><td class='num'>{v}</td></tr>" for k, v in results.summary.counts.items()
    )
    return f"<table>{rows}</table><h3>Counts</h3><table>{counts}</table>"


def _worst(results: EvaluationResults, limit: int = 10) -> str:
    scored = sorted((n for n in results.nodes if n.aggregate is not None), key=lambda n: n.aggregate or 0.0)
    rows = "".join(
        f"<tr><td>{escape(n.node_id)}</td><td>{escape(n.agent or '')}</td><td class='num'>{n.depth}</td>"
        f"<td class='num'>{_fmt(n.own_score)}</td><td class='num'>{_fmt(n.aggregate)}</td>"
        f"<td>{'yes' if n.passed else 'no'}</td><td>{'yes' if n.complete else 'no'}</td></tr>"
        for n in scored[:limit]
    )
    head = (
        "<tr><th>node</th><th>agent</th><th>depth</th><th>own</th><th>aggregate</th><th>pass</th><th>complete</th></tr>"
    )
    return f"<table>{head}{rows}</table>"


def _categories(results: EvaluationResults) -> str:
    if not results.summary.categories:
        return "<p class='muted'>No step scored below the failure threshold.</p>"
    rows = "".join(
        f"<tr><td>{escape(k)}</td><td class='num'>{v}</td></tr>" for k, v in results.summary.categories.items()
    )
    return f"<table><tr><th>category</th><th>steps</th></tr>{rows}</table>"


def _step_row(step: StepResult) -> str:
    criteria = ", ".join(f"{escape(k)}={v:.2f}" for k, v in (step.criterion_scores or {}).items())
    note = step.error_code or ""
    category = step.category or (
        "" if step.categorization_status.value == "not_needed" else step.categorization_status.value
    )
    return (
        f"<tr><td class='num'>{step.index}</td><td>{escape(step.source)}</td><td>{escape(step.status.value)}</td>"
        f"<td class='num'>{_fmt(step.score)}</td><td>{criteria}</td><td>{escape(category)}</td>"
        f"<td>{escape(step.rationale or '')}<br><span class='muted'>{escape(note)}</span></td></tr>"
    )


def _drilldown(node: NodeResult) -> str:
    head = "".join(f"<th>{c}</th>" for c in ("#", "source", "status", "score", "criteria", "category", "rationale"))
    head = f"<tr>{head}</tr>"
    rows = "".join(_step_row(s) for s in node.steps)
    indent = "&nbsp;&nbsp;" * node.depth
    label = (
        f"{indent}{escape(node.node_id)} — {escape(node.status.value)}"
        f"{' (' + escape(node.error_code) + ')' if node.error_code else ''}; own {_fmt(node.own_score)}, "
        f"aggregate {_fmt(node.aggregate)}"
    )
    return f"<details><summary>{label}</summary><table>{head}{rows}</table></details>"


def render_report(results: EvaluationResults) -> str:
    """The complete HTML document."""
    drill = "".join(_drilldown(n) for n in results.nodes)
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>tracegrade — {escape(results.job_id)}</title><style>{_CSS}</style></head><body>"
        f"<h1>ATIF trajectory judge</h1><p class='muted'>job {escape(results.job_id)} · {escape(results.created_at)}"
        f"{' · shard ' + escape(results.shard) if results.shard else ''}</p>"
        f"{_headline(results)}"
        "<p class='note'>Judge scores are model opinions: compare runs that share the judge, prompt version and "
        "rubric; do not read them as absolute quality.</p>"
        f"<h2>Score distribution</h2>{_plot(results)}"
        f"<h2>Lowest-scoring trajectories</h2>{_worst(results)}"
        f"<h2>Failure categories</h2>{_categories(results)}"
        f"<h2>Run</h2>{_params_table(results)}"
        f"<h2>Every node and step</h2>{drill}"
        "</body></html>"
    )
