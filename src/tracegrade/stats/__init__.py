"""Pure statistics: descriptive summaries, intervals, paired tests, effect sizes, agreement, run comparison.

The only package of tracegrade that uses scipy; it is imported inside the functions that need it,
so importing this package stays cheap. Undefined results are None, never NaN.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracegrade._lazy import lazy_attributes

if TYPE_CHECKING:
    from tracegrade.stats._agreement import cohens_kappa as cohens_kappa
    from tracegrade.stats._agreement import confusion_matrix as confusion_matrix
    from tracegrade.stats._correlation import kendall_tau as kendall_tau
    from tracegrade.stats._correlation import pearson as pearson
    from tracegrade.stats._correlation import spearman as spearman
    from tracegrade.stats._descriptive import mean as mean
    from tracegrade.stats._descriptive import median as median
    from tracegrade.stats._descriptive import nearest_rank_percentile as nearest_rank_percentile
    from tracegrade.stats._descriptive import std as std
    from tracegrade.stats._effect import cohens_d as cohens_d
    from tracegrade.stats._effect import cohens_d_paired as cohens_d_paired
    from tracegrade.stats._gate import GateOptions as GateOptions
    from tracegrade.stats._gate import GateVerdict as GateVerdict
    from tracegrade.stats._intervals import bootstrap_mean_ci as bootstrap_mean_ci
    from tracegrade.stats._intervals import mean_ci as mean_ci
    from tracegrade.stats._intervals import paired_bootstrap_ci as paired_bootstrap_ci
    from tracegrade.stats._many import PairedSample as PairedSample
    from tracegrade.stats._many import UnitTotals as UnitTotals
    from tracegrade.stats._many import paired_bootstrap_many as paired_bootstrap_many
    from tracegrade.stats._many import unit_bootstrap_many as unit_bootstrap_many
    from tracegrade.stats._paired import PairChange as PairChange
    from tracegrade.stats._paired import PairedComparison as PairedComparison
    from tracegrade.stats._paired import PairedUnits as PairedUnits
    from tracegrade.stats._paired import apply_gate as apply_gate
    from tracegrade.stats._paired import compare_paired as compare_paired
    from tracegrade.stats._paired import pair_changes as pair_changes
    from tracegrade.stats._paired import paired_ratio_bootstrap as paired_ratio_bootstrap
    from tracegrade.stats._paired import signed_places as signed_places
    from tracegrade.stats._rank_tests import mann_whitney_u as mann_whitney_u
    from tracegrade.stats._rank_tests import wilcoxon_signed_rank as wilcoxon_signed_rank
    from tracegrade.stats._ratio import ratio as ratio
    from tracegrade.stats._records import ConfusionMatrix as ConfusionMatrix
    from tracegrade.stats._records import Interval as Interval
    from tracegrade.stats._records import TestResult as TestResult
    from tracegrade.stats._sign import sign_test as sign_test

__getattr__, __dir__, __all__ = lazy_attributes(__name__)
