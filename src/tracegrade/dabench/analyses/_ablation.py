"""Ablations over one run: verification, replanning, tool-efficiency quartiles (Mann-Whitney U tests)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from statistics import fmean

from tracegrade.dabench.analyses._params import Mode
from tracegrade.dabench.analyses._sections import Cell, Section, SectionColumn, column
from tracegrade.dabench.tables._evaluated import Row, RunRows, num, numbers

__all__ = ["ablation_sections", "efficiency_quartiles"]

Pick = Callable[[Row], bool]
METRIC = "final_score"


def _group_columns(first: str) -> list[SectionColumn]:
    return [
        column("name", first, min_width=14),
        column("n_a", "n A", "int", min_width=4),
        column("mean_a", "Mean A", "score", min_width=6),
        column("n_b", "n B", "int", min_width=4),
        column("mean_b", "Mean B", "score", min_width=6),
        column("diff", "A − B", "score", min_width=6),
        column("u", "U", "float", priority=1, min_width=6),
        column("p", "p", "score", min_width=6),
    ]


def _compare(name: str, rows: Sequence[Row], a: Pick, b: Pick) -> dict[str, Cell]:
    from tracegrade.stats import mann_whitney_u

    xs, ys = numbers([r for r in rows if a(r)], METRIC), numbers([r for r in rows if b(r)], METRIC)
    test = mann_whitney_u(xs, ys)
    mean_a, mean_b = (fmean(xs) if xs else None), (fmean(ys) if ys else None)
    diff = mean_a - mean_b if mean_a is not None and mean_b is not None else None
    return {"name": name, "n_a": len(xs), "mean_a": mean_a, "n_b": len(ys), "mean_b": mean_b, "diff": diff,
            "u": test.statistic, "p": test.p_value}


def _flag(key: str, value: int) -> Pick:
    return lambda row: row.get(key) == value


def _verification(run: RunRows) -> Section:
    flags = (("Critic", "verification_triggered"), ("AAT verifier", "aat_verification_triggered"))
    rows = [_compare(name, run.rows, _flag(key, 1), _flag(key, 0)) for name, key in flags]
    return _groups_section(
        "ablation-verification", "Ablation: verification", "Verification", rows,
        "A: tasks where it ran, B: where it did not; final_score; two-sided Mann-Whitney U.",
        "no task with a known final_score and verification flag",
    )


def _replanning(run: RunRows) -> Section:
    row = _compare("First try vs replanned", run.rows, _flag("first_try_success", 1),
                   lambda r: (num(r.get("replan_count")) or 0) > 0)
    return _groups_section(
        "ablation-replanning", "Ablation: replanning", "Groups", [row],
        "A: first_try_success = 1, B: replan_count > 0; final_score; two-sided Mann-Whitney U.",
        "no final_score with replan data (DAG or rich traces)",
    )


def _groups_section(id_: str, title: str, first: str, rows: list[dict[str, Cell]], note: str, empty: str) -> Section:
    """Group A against group B, one row per comparison that has a task in either group."""
    rows = [r for r in rows if r["n_a"] or r["n_b"]]
    return Section(id=id_, title=title, mode=Mode.RESEARCH, columns=_group_columns(first), rows=rows, notes=[note],
                   empty=None if rows else empty)


def efficiency_quartiles(rows: Sequence[Row]) -> list[tuple[str, float, float, list[float]]]:
    """(label, low, high, final scores) of tool_efficiency quartiles cut at nearest-rank 25/50/75 %."""
    from tracegrade.stats import nearest_rank_percentile

    found = [(num(r.get("tool_efficiency")), num(r.get(METRIC))) for r in rows]
    pairs = [(e, s) for e, s in found if e is not None and s is not None]
    if not pairs:
        return []
    effs = [e for e, _ in pairs]
    cuts = [nearest_rank_percentile(effs, q) for q in (0.25, 0.5, 0.75)]
    edges = [min(effs), *(float(c) for c in cuts if c is not None), max(effs)]
    out = []
    for i in range(4):
        low, high = edges[i], edges[i + 1]
        inside = [s for e, s in pairs if (e <= high if i == 0 else low < e <= high)]
        out.append((f"Q{i + 1}", low, high, inside))
    return out


def _quartiles(run: RunRows) -> Section:
    from tracegrade.stats import mann_whitney_u, std

    columns = [
        column("quartile", "Quartile", min_width=8),
        column("range", "tool_efficiency", min_width=11),
        column("n", "n", "int", min_width=4),
        column("pm", "final_score mean ± std", "pm", min_width=13),
    ]
    quartiles = efficiency_quartiles(run.rows)
    rows: list[dict[str, Cell]] = [
        {"quartile": q, "range": f"{lo:.2f}–{hi:.2f}", "n": len(s), "pm": [fmean(s), std(s)] if s else None}
        for q, lo, hi, s in quartiles
    ]
    section = Section(id="ablation-efficiency", title="Ablation: tool-efficiency quartiles", mode=Mode.RESEARCH,
                      columns=columns, rows=rows)
    if not rows:
        section.empty = "no tool_efficiency with final_score"
        return section
    test = mann_whitney_u(quartiles[3][3], quartiles[0][3])
    u = "—" if test.statistic is None else f"{test.statistic:g}"
    p = "—" if test.p_value is None else f"{test.p_value:.3f}"
    section.notes = [f"Q4 vs Q1 Mann-Whitney U = {u}, p = {p}; ties at a cut stay in the lower quartile."]
    return section


def ablation_sections(run: RunRows) -> list[Section]:
    """The three ablations of the seed's research workflow."""
    return [_verification(run), _replanning(run), _quartiles(run)]
