"""The self-contained HTML report of a scoring run (template ``atif_report.html``).

:class:`EvaluationResults` as plain template context (None stays None: the template shows "—"); each node's
section of the step list comes as markup from :mod:`~tracegrade.atif.output._step_list`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from tracegrade.atif.output._step_list import (
    NOT_A_CANDIDATE,
    KeptSections,
    anchor,
    filter_category,
    node_section,
    yes_no,
)
from tracegrade.atif.scoring._records import NodeResult, RunSummary
from tracegrade.atif.scoring._results import EvaluationResults
from tracegrade.render import MISSING, fmt_pct, fmt_score, render_html_chunks, score_bins

if TYPE_CHECKING:
    from tracegrade.atif.agreement._records import AgreementReport
    from tracegrade.atif.localising._records import LocalisationResults, TrajectoryLocalisation

__all__ = ["render_report", "report_chunks"]

LOWEST_LIMIT = 10
"""Trajectories listed in the "lowest" table."""
OPEN_LOWEST = 3
"""Nodes with the lowest own scores, shown open in the steps section."""

_SECTIONS = (
    ("overview", "Overview"),
    ("distributions", "Score distributions"),
    ("lowest", "Lowest trajectories"),
    ("categories", "Failure categories"),
    ("inputs", "Skipped and refused inputs"),
    ("run", "Run parameters"),
    ("steps", "Steps"),
)
_SECRET_NAME = re.compile(r"api_key|secret|password|credential|authorization|header|(^|_)url$", re.IGNORECASE)


def render_report(results: EvaluationResults, agreement: AgreementReport | None = None, *,
                  localisation: LocalisationResults | None = None) -> str:
    """The complete, self-contained HTML document of ``results`` (no external assets).

    With ``agreement`` (from ``tracegrade agree``) the report gains a section comparing the judge with
    human labels; with ``localisation`` (from ``tracegrade localise``) one naming each failure's decisive
    step, which the step list marks.
    """
    return "".join(report_chunks(results, agreement, localisation=localisation))


def report_chunks(results: EvaluationResults, agreement: AgreementReport | None = None, *,
                  localisation: LocalisationResults | None = None,
                  sections: KeptSections | None = None) -> Iterator[str]:
    """:func:`render_report`'s document in pieces.

    The step list copies the node ``sections`` a job kept as its roots finished, when it kept one for every
    node and nothing is to be marked in them.
    """
    marks = None if localisation is None else _decisive_marks(localisation)
    context = report_context(results, sections=sections if localisation is None else None, decisive=marks)
    if agreement is not None:
        from tracegrade.atif.agreement._report import agreement_rows, issue_rows, kappa_note

        rows = agreement_rows(agreement)
        context["sections"] = [*context["sections"], {"id": "agreement", "label": "Agreement with labels"}]
        context["agreement"] = {"report": agreement, "rows": rows, "kappa_note": kappa_note(rows),
                                "unmatched": issue_rows(agreement.unmatched)}
    if localisation is not None:
        _add_localisation(context, localisation)
    return render_html_chunks("atif_report.html", **context)


def _add_localisation(context: dict[str, Any], localisation: LocalisationResults) -> None:
    """The localisation section (the step list marks the decisive steps: :func:`_decisive_marks`)."""
    context["sections"] = [*context["sections"], {"id": "localisation", "label": "Failure localisation"}]
    rows = [_localisation_row(row) for row in localisation.trajectories]
    context["localisation"] = {"results": localisation, "rows": rows}


def _decisive_marks(localisation: LocalisationResults) -> dict[str, dict[int, str]]:
    """The note on each trajectory's decisive step, by node id and step index."""
    marks: dict[str, dict[int, str]] = {}
    for row in localisation.trajectories:
        if row.step is not None:
            marks.setdefault(row.step.node_id, {})[row.step.index] = (
                f"decisive step ({row.used.value}): {row.agent or MISSING}: {row.reason or MISSING}"
            )
    return marks


def _localisation_row(row: TrajectoryLocalisation) -> dict[str, Any]:
    step = row.step
    return {
        "node": {"text": row.node_id, "href": f"#{anchor(step.node_id if step else row.node_id)}"},
        "status": row.status.value,
        "strategy": row.used.value + (" (fallback)" if row.fallback else ""),
        "agent": row.agent,
        "step": f"{step.ref} (step {step.index} of {step.node_id})" if step else None,
        "reason": row.reason or row.error_code,
        "calls": row.calls,
        "agreement": row.repeats.step_agreement if row.repeats else None,
    }


def report_context(results: EvaluationResults, *, sections: KeptSections | None = None,
                   decisive: Mapping[str, Mapping[int, str]] | None = None) -> dict[str, Any]:
    """Everything the template shows, as plain values; ``nodes`` is an iterator, over the records themselves.

    ``nodes`` uses the ``sections`` a job kept for them when there is one for every node; ``decisive`` marks
    steps (by node id, then step index) with a note.
    """
    summary = results.summary
    found = _Aggregates.of(results.nodes.brief)
    opened = set(found.opened)
    return {
        "agreement": None,
        "localisation": None,
        "title": "ATIF trajectory judge",
        "subtitle": _subtitle(results),
        "sections": [{"id": key, "label": label} for key, label in _SECTIONS],
        "generated_at": results.created_at,
        "summary": summary,
        "cards": _cards(results),
        "judge": _judge_rows(results.provenance),
        "distribution": _distribution(results, found),
        "lowest": [row for _, _, row in found.lowest],
        "unranked": found.unranked,
        "categories": [{"label": k, "value": v} for k, v in summary.categories.items()],
        "inputs": [i.model_dump() for i in results.inputs if i.status != "loaded"],
        "input_count": len(results.inputs),
        "refused_nodes": found.refused,
        "parameters": _parameter_rows(results),
        "counts": _key_values(summary.counts),
        "judge_counts": _key_values(summary.judge),
        "nodes": _nodes(results.nodes, opened, found.heads, kept=sections,
                        decisive=decisive or {}),
        "status_options": sorted(found.statuses.items()),
        "category_options": sorted(found.categories.items()),
        "not_a_candidate": NOT_A_CANDIDATE,
    }


@dataclass
class _Aggregates:
    """What the report shows about every node and step, gathered in one walk."""

    step_scores: list[float] = field(default_factory=list)
    node_scores: list[float] = field(default_factory=list)
    opened: list[str] = field(default_factory=list)
    """Node ids of the lowest own scores (by score, then id), at most ``OPEN_LOWEST``."""
    lowest: list[tuple[float, str, dict[str, Any]]] = field(default_factory=list)
    """(aggregate, node id, row) of the lowest aggregates, at most ``LOWEST_LIMIT``."""
    unranked: int = 0
    refused: list[dict[str, Any]] = field(default_factory=list)
    statuses: Counter[str] = field(default_factory=Counter)
    categories: Counter[str] = field(default_factory=Counter)
    heads: list[tuple[str, int]] = field(default_factory=list)
    """Every node's id and depth, in order (what the step list's opening tags show)."""

    @classmethod
    def of(cls, nodes: Iterable[NodeResult]) -> _Aggregates:
        found = cls()
        opening: list[tuple[float, str]] = []
        for node in nodes:
            found.heads.append((node.node_id, node.depth))
            for step in node.steps:
                if step.score is not None:
                    found.step_scores.append(step.score)
                found.statuses[step.status.value] += 1
                found.categories[filter_category(step)] += 1
            if node.own_score is not None:
                found.node_scores.append(node.own_score)
                opening.append((node.own_score, node.node_id))
                if len(opening) > 4 * OPEN_LOWEST:
                    opening = sorted(opening)[:OPEN_LOWEST]
            if node.aggregate is None:
                found.unranked += 1
            else:
                found.lowest.append((node.aggregate, node.node_id, _node_row(node)))
                if len(found.lowest) > 4 * LOWEST_LIMIT:
                    found.lowest = _first(found.lowest, LOWEST_LIMIT)
            if node.status.value in ("invalid", "unscored"):
                found.refused.append(_node_row(node))
        found.opened = [node_id for _, node_id in sorted(opening)[:OPEN_LOWEST]]
        found.lowest = _first(found.lowest, LOWEST_LIMIT)
        return found


def _first(ranked: list[tuple[float, str, dict[str, Any]]], count: int) -> list[tuple[float, str, dict[str, Any]]]:
    """The ``count`` lowest by value, then node id (ids are unique, so the rows are never compared)."""
    return sorted(ranked, key=lambda item: (item[0], item[1]))[:count]


def _subtitle(results: EvaluationResults) -> str:
    parts = [f"job {results.job_id}", results.created_at]
    if results.shard:
        parts.append(f"shard {results.shard}")
    return " · ".join(parts)


def _cards(results: EvaluationResults) -> list[dict[str, Any]]:
    summary, provenance = results.summary, results.provenance
    recorded = provenance.get("judge")
    judge: dict[str, Any] = recorded if isinstance(recorded, dict) else {}
    complete = summary.atif_complete
    return [
        {"label": "collection score", "value": fmt_score(summary.atif_overall_score),
         "hint": f"{summary.subagent_aggregation} aggregation"},
        {"label": "trajectories scored", "value": str(summary.atif_trajectory_count),
         "hint": f"nodes of {summary.counts.get('roots', 0)} root trees (subagents, continuations)"},
        {"label": "categorisation rate", "value": fmt_pct(summary.atif_failure_categorization_rate),
         "hint": _rate_hint(summary)},
        {"label": "atif_complete", "value": "yes" if complete else "no",
         "hint": "every input and node scored" if complete else "something was not scored",
         "kind": "good" if complete else "bad"},
        _status_card(summary),
        *_repeat_cards(summary),
        {"label": "judge", "value": str(judge.get("model", MISSING)), "kind": "text",
         "hint": f"temperature {_text(judge.get('temperature'))} · seed {_text(judge.get('seed'))}"},
        {"label": "prompt version", "value": str(provenance.get("prompt_version", MISSING)),
         "hint": f"copied context: {provenance.get('copied_context', '—')}", "kind": "text"},
    ]


def _status_card(summary: RunSummary) -> dict[str, Any]:
    """The job's status; a completed job whose roots failed (skip_failed_trajectory) is not shown as a success."""
    failed, roots = summary.counts.get("roots_failed", 0), summary.counts.get("roots", 0)
    completed = summary.job_status.value == "completed"
    if completed and failed:
        return {"label": "job status", "value": f"completed, {failed} of {roots} roots failed",
                "hint": "the others were scored (--partial-result-policy skip_failed_trajectory); the command "
                        "exits 1", "kind": "bad"}
    return {"label": "job status", "value": summary.job_status.value, "hint": summary.failure_reason,
            "kind": "good" if completed else "bad"}


def _rate_hint(summary: RunSummary) -> str:
    if reason := summary.null_reasons.get("atif_failure_categorization_rate"):
        return f"none: {reason}"
    if not summary.counts.get("failure_candidates"):
        return "validity proxy; no step scored below the failure threshold"
    return "validity proxy (judge answers usable), not detection accuracy"


def _judge_rows(provenance: Mapping[str, Any]) -> list[dict[str, str]]:
    judge = provenance.get("judge")
    rows = _key_values(judge) if isinstance(judge, dict) else []
    hashes = provenance.get("template_hashes")
    if isinstance(hashes, dict):
        rows += [{"key": f"{k} template", "value": f"{str(v)[:16]}…"} for k, v in hashes.items()]
    rows += _key_values({k: v for k, v in provenance.items() if k not in ("judge", "template_hashes")})
    return rows


def _distribution(results: EvaluationResults, found: _Aggregates) -> dict[str, Any] | None:
    """Histograms of step scores and node own scores (bins of 0.1); None when nothing was scored."""
    if not found.step_scores:
        return None
    return {"steps": score_bins(found.step_scores), "nodes": score_bins(found.node_scores),
            "n_steps": len(found.step_scores), "n_nodes": len(found.node_scores),
            "threshold": results.parameters.failure_threshold}


def _node_row(node: NodeResult) -> dict[str, Any]:
    return {
        "node": {"text": node.node_id, "href": f"#{anchor(node.node_id)}"},
        "agent": node.agent,
        "depth": node.depth,
        "status": node.status.value,
        "error_code": node.error_code,
        "message": node.message,
        "own_score": node.own_score,
        "aggregate": node.aggregate,
        "passed": yes_no(node.passed),
        "complete": yes_no(node.complete),
        "scored_steps": f"{node.step_count} of {node.total_steps}",
    }


def _nodes(nodes: Sequence[NodeResult], opened: set[str], heads: list[tuple[str, int]], *, kept: KeptSections | None,
           decisive: Mapping[str, Mapping[int, str]]) -> Iterator[dict[str, Any]]:
    """The step list's nodes: with the sections a job ``kept``, else rendered from each record.

    ``heads`` are the nodes' ids and depths, in order (from an earlier walk).
    """
    if kept is not None and heads and len(kept) == len(heads):
        for (node_id, depth), section in zip(heads, kept.texts(), strict=True):
            yield {**_head(node_id, depth, opened), "section": Markup(section)}  # rendered (escaped) by _step_list
        return
    for node in nodes:
        section = node_section(node, decisive.get(node.node_id))
        yield {**_head(node.node_id, node.depth, opened), "section": Markup(section)}


def _head(node_id: str, depth: int, opened: set[str]) -> dict[str, Any]:
    """What the node's opening tag shows."""
    return {"anchor": anchor(node_id), "open": node_id in opened, "depth": depth}


def _parameter_rows(results: EvaluationResults) -> list[dict[str, str]]:
    """The recorded parameters; with the local judge, those it fixes say so."""
    from tracegrade.judge import LOCAL_MODEL_ALIAS, LOCAL_PINNED_OPTIONS  # _local only loads on demand

    rows = _key_values(results.parameters.model_dump(mode="json"))
    judge = results.provenance.get("judge")
    if isinstance(judge, dict) and judge.get("model") == LOCAL_MODEL_ALIAS:
        for row in rows:
            if row["key"] in LOCAL_PINNED_OPTIONS:
                row["value"] += " (fixed by the local judge)"
    return rows


def _repeat_cards(summary: RunSummary) -> list[dict[str, Any]]:
    repeats = summary.repeats
    if repeats is None:
        return []
    interval = repeats.overall_score_interval
    bounds = (MISSING if interval.low is None or interval.high is None
              else f"{fmt_score(interval.low)}–{fmt_score(interval.high)}")
    return [
        {"label": "unstable steps", "value": fmt_pct(repeats.unstable_share),
         "hint": f"{repeats.unstable_steps} of {repeats.steps} steps straddle the threshold "
                 f"({repeats.repeats} verdicts each)",
         "kind": "warn" if repeats.unstable_steps else "good"},
        {"label": "score interval", "value": bounds, "kind": "text",
         "hint": interval.reason or f"{interval.level:.0%} bootstrap over steps"},
    ]


def _key_values(values: Mapping[str, Any]) -> list[dict[str, str]]:
    """Rows of name and shown value; values whose name suggests a secret are withheld."""
    return [
        {"key": key, "value": "(withheld)" if _SECRET_NAME.search(key) else _text(value)}
        for key, value in values.items()
    ]


def _text(value: Any) -> str:
    if value is None:
        return MISSING
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
