"""Stage 4: the scoring engine, the tree maths that roll scores up, and the result records.

:class:`~tracegrade.atif.EvaluationResults` is on :mod:`tracegrade.atif`; this face holds the records it is
made of and the engine behind :func:`~tracegrade.atif.score_loaded`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracegrade._lazy import lazy_attributes

if TYPE_CHECKING:
    from tracegrade.atif.scoring._engine import RunProgress as RunProgress
    from tracegrade.atif.scoring._engine import ScoringEngine as ScoringEngine
    from tracegrade.atif.scoring._params import PartialResultPolicy as PartialResultPolicy
    from tracegrade.atif.scoring._params import SubagentAggregation as SubagentAggregation
    from tracegrade.atif.scoring._records import NodeResult as NodeResult
    from tracegrade.atif.scoring._records import RunSummary as RunSummary
    from tracegrade.atif.scoring._records import StepResult as StepResult
    from tracegrade.atif.scoring._records import StepStatus as StepStatus

__getattr__, __dir__, __all__ = lazy_attributes(__name__)
