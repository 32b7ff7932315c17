"""Score trajectory trees: step scores, tree roll-ups, failure categories, collection metrics."""

from tracegrade.scoring._assemble import node_results, summarize
from tracegrade.scoring._engine import NodeState, RunProgress, ScoringEngine
from tracegrade.scoring._maths import (
    NodeDraft,
    NodeRollup,
    SubagentAggregation,
    categorization_rate,
    collection_score,
    rollup,
)
from tracegrade.scoring._merge import merge_results
from tracegrade.scoring._options import PartialResultPolicy, ScoringOptions, parse_parameters
from tracegrade.scoring._records import (
    CategorizationStatus,
    NodeResult,
    NodeStatusCode,
    RunSummary,
    StepResult,
    StepStatus,
)
from tracegrade.scoring._results import RESULTS_FORMAT, EvaluationResults, InputRecord
from tracegrade.scoring._run import run_parameters, score_loaded, score_paths
from tracegrade.scoring._shard import Shard, parse_shard

__all__ = [
    "RESULTS_FORMAT",
    "CategorizationStatus",
    "EvaluationResults",
    "InputRecord",
    "NodeDraft",
    "NodeResult",
    "NodeRollup",
    "NodeState",
    "NodeStatusCode",
    "PartialResultPolicy",
    "RunProgress",
    "RunSummary",
    "ScoringEngine",
    "ScoringOptions",
    "Shard",
    "StepResult",
    "StepStatus",
    "SubagentAggregation",
    "categorization_rate",
    "collection_score",
    "merge_results",
    "node_results",
    "parse_parameters",
    "parse_shard",
    "rollup",
    "run_parameters",
    "score_loaded",
    "score_paths",
    "summarize",
]
