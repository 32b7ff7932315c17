"""Read ATIF trajectories (v1.0-v1.8) into trajectory trees."""

from tracegrade.atif._checks import check_trajectory
from tracegrade.atif._document import validate_document
from tracegrade.atif._load import load_trajectories
from tracegrade.atif._options import LoadOptions
from tracegrade.atif._records import (
    FileReport,
    InputAccount,
    InputStatus,
    LoadResult,
    LogicalStep,
    NodeStatus,
    TrajectoryNode,
    iter_nodes,
)

__all__ = [
    "FileReport",
    "InputAccount",
    "InputStatus",
    "LoadOptions",
    "LoadResult",
    "LogicalStep",
    "NodeStatus",
    "TrajectoryNode",
    "check_trajectory",
    "iter_nodes",
    "load_trajectories",
    "validate_document",
]
