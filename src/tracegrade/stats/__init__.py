"""Pure statistics: descriptive summaries, confidence intervals, paired tests, effect sizes, agreement.

The only package of tracegrade that uses scipy; it is imported inside the functions that need it,
so importing this package stays cheap. Undefined results are None, never NaN.
"""

from tracegrade.stats._agreement import cohens_kappa, confusion_matrix
from tracegrade.stats._correlation import kendall_tau, pearson, spearman
from tracegrade.stats._descriptive import mean, median, nearest_rank_percentile, std
from tracegrade.stats._effect import cohens_d, cohens_d_paired
from tracegrade.stats._intervals import bootstrap_mean_ci, mean_ci, paired_bootstrap_ci
from tracegrade.stats._many import PairedSample, paired_bootstrap_many
from tracegrade.stats._rank_tests import mann_whitney_u, wilcoxon_signed_rank
from tracegrade.stats._records import ConfusionMatrix, Interval, TestResult

__all__ = [
    "ConfusionMatrix",
    "Interval",
    "PairedSample",
    "TestResult",
    "bootstrap_mean_ci",
    "cohens_d",
    "cohens_d_paired",
    "cohens_kappa",
    "confusion_matrix",
    "kendall_tau",
    "mann_whitney_u",
    "mean",
    "mean_ci",
    "median",
    "nearest_rank_percentile",
    "paired_bootstrap_ci",
    "paired_bootstrap_many",
    "pearson",
    "spearman",
    "std",
    "wilcoxon_signed_rank",
]
