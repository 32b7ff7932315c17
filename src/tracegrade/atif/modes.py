"""The judge's other ways to run a job: through provider batch jobs, as a dry run (nothing sent), or pairwise.

Kept off the face of :mod:`tracegrade.atif` so that it stays small::

    from tracegrade.atif.modes import dry_run_job
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracegrade._lazy import lazy_attributes

if TYPE_CHECKING:
    from tracegrade.atif._batch import BATCH_STATE_NAME as BATCH_STATE_NAME
    from tracegrade.atif._batch import BatchOptions as BatchOptions
    from tracegrade.atif._batch import Exported as Exported
    from tracegrade.atif._batch import cancel_batches as cancel_batches
    from tracegrade.atif._batch import run_batch_job as run_batch_job
    from tracegrade.atif._batch import run_localise_batch as run_localise_batch
    from tracegrade.atif._dry_run import dry_run_document as dry_run_document
    from tracegrade.atif._dry_run import dry_run_job as dry_run_job
    from tracegrade.atif._job import judge_settings as judge_settings
    from tracegrade.atif._job import judged_run as judged_run
    from tracegrade.atif._pairwise import PairwiseOutcome as PairwiseOutcome
    from tracegrade.atif._pairwise import compare_pairwise as compare_pairwise
    from tracegrade.atif._pairwise import run_pairwise as run_pairwise

__getattr__, __dir__, __all__ = lazy_attributes(__name__)
