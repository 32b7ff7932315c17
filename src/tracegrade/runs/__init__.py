"""Run folders, job status and ids, shards, progress, interrupt handling and GC pauses, shared by every front door.

A job writes its files through a :class:`RunFolder` (each file atomically) and finishes it with a
manifest written last; :func:`read_manifest` tells a complete folder from a crashed one::

    folder = RunFolder(Path("out"), kind="suite-run", job_id=job_id_for(inputs))
    folder.write_json("report.json", report)
    folder.finish(JobStatus.COMPLETED, {"cases": 12})
"""

from tracegrade.runs._atomic import write_atomic
from tracegrade.runs._folder import MANIFEST_NAME, Manifest, RunFolder, amend_manifest, dump_json, read_manifest
from tracegrade.runs._gc import gc_paused
from tracegrade.runs._ids import job_id_for
from tracegrade.runs._progress import progress
from tracegrade.runs._shard import Shard, parse_shard
from tracegrade.runs._signals import interrupts
from tracegrade.runs._status import JobStatus

__all__ = [
    "MANIFEST_NAME",
    "JobStatus",
    "Manifest",
    "RunFolder",
    "Shard",
    "amend_manifest",
    "dump_json",
    "gc_paused",
    "interrupts",
    "job_id_for",
    "parse_shard",
    "progress",
    "read_manifest",
    "write_atomic",
]
