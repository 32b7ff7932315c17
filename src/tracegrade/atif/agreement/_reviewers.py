"""Agreement of two reviewers with each other, on the steps both labelled: the measures ``agree`` uses.

Pass/fail and category agreement (share and Cohen's kappa), Spearman's rho of their scores and how
often they mark the same decisive step, each with its n and a bootstrap interval over trajectories.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict

from tracegrade import stats
from tracegrade.atif.agreement._agree import UNCATEGORIZED, _correlation, match_labels
from tracegrade.atif.agreement._labels import LABEL_CATEGORIES, Label
from tracegrade.atif.agreement._localise import share_estimate
from tracegrade.atif.agreement._maths import Bootstrap, label_agreement, spearman_rho
from tracegrade.atif.agreement._records import Estimate
from tracegrade.atif.scoring._results import EvaluationResults

__all__ = ["ReviewerAgreement", "measure_reviewers"]

_VERDICTS = ("failed", "passed")


class ReviewerAgreement(BaseModel):
    """How two reviewers' step labels agree (only steps both of them labelled count)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    first: str
    second: str
    common_steps: int
    """Steps of the run both reviewers labelled."""
    pass_fail_share: Estimate
    pass_fail_kappa: Estimate
    spearman: Estimate
    category_share: Estimate
    category_kappa: Estimate
    decisive_exact: Estimate
    """Share of trajectories both marked a decisive step in where they marked the same one."""


def measure_reviewers(results: EvaluationResults, first: tuple[str, Sequence[Label]],
                      second: tuple[str, Sequence[Label]], *, resamples: int = 2000, level: float = 0.95,
                      seed: int = 0) -> ReviewerAgreement:
    """Compare the step labels of two reviewers, each given as (name, that reviewer's labels).

    Raises:
        InputError: one reviewer labelled the same step twice.
    """
    boot = Bootstrap(resamples, level, seed)
    a, b = _steps(results, first[1]), _steps(results, second[1])
    common = sorted(a.keys() & b.keys())
    verdicts = [(key, a[key].failed, b[key].failed) for key in common]
    verdicts = [(key, x, y) for key, x, y in verdicts if x is not None and y is not None]
    share, kappa = label_agreement([_VERDICTS[0] if x else _VERDICTS[1] for _, x, _ in verdicts],
                                   [_VERDICTS[0] if y else _VERDICTS[1] for _, _, y in verdicts], _VERDICTS,
                                   [key[0] for key, _, _ in verdicts], boot)
    scored = [(key, a[key].score, b[key].score) for key in common]
    scored = [(key, x, y) for key, x, y in scored if x is not None and y is not None]
    x = np.asarray([v for _, v, _ in scored], dtype=np.float64)
    y = np.asarray([v for _, _, v in scored], dtype=np.float64)
    rho = boot.estimate([key[0] for key, _, _ in scored], _correlation(spearman_rho, x, y), whole=stats.spearman(x, y))
    named = [(key, a[key].category, b[key].category) for key in common]
    named = [(key, p, q) for key, p, q in named if p is not None and q is not None]
    category_share, category_kappa = label_agreement([str(p) for _, p, _ in named], [str(q) for _, _, q in named],
                                                     (*LABEL_CATEGORIES, UNCATEGORIZED),
                                                     [key[0] for key, _, _ in named], boot)
    return ReviewerAgreement(first=first[0], second=second[0], common_steps=len(common), pass_fail_share=share,
                             pass_fail_kappa=kappa, spearman=rho, category_share=category_share,
                             category_kappa=category_kappa, decisive_exact=_decisive(a, b, level, resamples, seed))


def _steps(results: EvaluationResults, labels: Sequence[Label]) -> dict[tuple[str, int], Label]:
    matches, _ = match_labels(results, labels)
    return {(m.node.node_id, m.step.index): m.label for m in matches if m.step is not None}


def _decisive(a: dict[tuple[str, int], Label], b: dict[tuple[str, int], Label], level: float, resamples: int,
              seed: int) -> Estimate:
    first = {node: step for (node, step), label in a.items() if label.decisive}
    second = {node: step for (node, step), label in b.items() if label.decisive}
    hits = [first[node] == second[node] for node in sorted(first.keys() & second.keys())]
    return share_estimate(hits, level, resamples, seed, empty="no trajectory where both marked a decisive step")
