"""Read ATIF trajectories (v1.0-v1.8) into trajectory trees."""

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
    "LoadResult",
    "LogicalStep",
    "NodeStatus",
    "TrajectoryNode",
    "iter_nodes",
]
