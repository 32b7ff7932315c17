"""Run folders, job status and ids, shards, progress, interrupts and capped reads for every front door.

A job writes its files through a :class:`RunFolder` (each file atomically) and finishes it with a
manifest written last; :func:`read_manifest` tells a complete folder from a crashed one::

    folder = RunFolder(Path("out"), kind="suite-run", job_id=job_id_for(inputs))
    folder.write_json("report.json", report)
    folder.finish(JobStatus.COMPLETED, {"cases": 12})
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracegrade._lazy import lazy_attributes

if TYPE_CHECKING:
    from tracegrade.runs._folder import JSON_OPTIONS as JSON_OPTIONS
    from tracegrade.runs._folder import MANIFEST_NAME as MANIFEST_NAME
    from tracegrade.runs._folder import Manifest as Manifest
    from tracegrade.runs._folder import RunFolder as RunFolder
    from tracegrade.runs._folder import amend_manifest as amend_manifest
    from tracegrade.runs._folder import claim_output as claim_output
    from tracegrade.runs._folder import dump_json as dump_json
    from tracegrade.runs._folder import read_manifest as read_manifest
    from tracegrade.runs._folder import read_verified as read_verified
    from tracegrade.runs._ids import job_id_for as job_id_for
    from tracegrade.runs._interrupts import STOP_SIGNALS as STOP_SIGNALS
    from tracegrade.runs._interrupts import interrupts as interrupts
    from tracegrade.runs._interrupts import stop_signals as stop_signals
    from tracegrade.runs._interrupts import uninterrupted as uninterrupted
    from tracegrade.runs._progress import drawing as drawing
    from tracegrade.runs._progress import live_console as live_console
    from tracegrade.runs._progress import progress as progress
    from tracegrade.runs._read import MAX_INPUT_BYTES as MAX_INPUT_BYTES
    from tracegrade.runs._read import UnreadableFile as UnreadableFile
    from tracegrade.runs._read import read_capped as read_capped
    from tracegrade.runs._read import read_lines as read_lines
    from tracegrade.runs._shard import Shard as Shard
    from tracegrade.runs._shard import parse_shard as parse_shard
    from tracegrade.runs._status import JobStatus as JobStatus

__getattr__, __dir__, __all__ = lazy_attributes(__name__)
