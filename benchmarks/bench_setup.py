"""Benchmark: the README's first "Set up" command on a fresh clone with empty caches, as a new user runs it.

Usage:
    python benchmarks/bench_setup.py [--ref HEAD] [--keep] [--json PATH]

Clones this repository's committed ``--ref`` into a temporary folder (with ``../shared`` linked beside it, as
``../shared/tools/fresh-clone-check`` does), takes the first command block of the README's "Set up" section
and runs it there with ``bash``, with an empty pip cache (a fresh ``PIP_CACHE_DIR``) and an empty tracegrade
cache (a fresh ``TRACEGRADE_CACHE_DIR``: the model file is assembled and every judge call is made). Printed:
the command, its exit status, wall seconds, CPU seconds (user and system of every process it ran, the local
judge's server included) and the load average before, during (mean and peak of a sample every 5 s) and
after, with the last lines of its output. The machine's other work is not stopped: read the CPU seconds,
which depend little on it, beside the load.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

_SECTION = re.compile(r"^## Set up\s*$(.*?)(?=^## )", re.M | re.S)
_BLOCK = re.compile(r"```(?:bash|sh|console)?\n(.*?)```", re.S)


def first_setup_command(readme: str) -> str:
    """The first fenced command block of the README's "Set up" section."""
    section = _SECTION.search(readme)
    blocks = _BLOCK.findall(section.group(1) if section else "")
    if not blocks:
        raise SystemExit("the README has no command block under '## Set up'")
    return str(blocks[0]).strip()


def clone(repo: Path, ref: str, into: Path) -> str:
    """Clone ``repo`` at ``ref`` into ``into``/project (``../shared`` linked beside it); the commit's id."""
    commit = subprocess.run(["git", "-C", str(repo), "rev-parse", ref], capture_output=True, text=True,
                            check=True).stdout.strip()
    project = into / "project"
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(repo), str(project)], check=True)
    subprocess.run(["git", "-C", str(project), "checkout", "-q", commit], check=True)
    shared = repo.parent / "shared"
    if shared.is_dir():
        (into / "shared").symlink_to(shared)
    return commit


class LoadSampler(threading.Thread):
    """Samples the one-minute load average every ``period`` seconds until stopped."""

    def __init__(self, period: float = 5.0) -> None:
        super().__init__(daemon=True)
        self.period = period
        self.samples: list[float] = []
        self._done = threading.Event()

    def run(self) -> None:
        while not self._done.wait(self.period):
            self.samples.append(os.getloadavg()[0])

    def stop(self) -> None:
        self._done.set()
        self.join()


def measure(command: str, cwd: Path, env: dict[str, str], log: Path) -> dict[str, object]:
    """Run ``command`` with bash in ``cwd``; its exit status, wall and CPU seconds and the load around it."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load_before = os.getloadavg()
    sampler = LoadSampler()
    sampler.start()
    start = time.monotonic()
    with log.open("wb") as out:
        status = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, check=False).returncode
    wall = time.monotonic() - start
    sampler.stop()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    samples = sampler.samples or [os.getloadavg()[0]]
    return {
        "exit_status": status,
        "wall_s": round(wall, 1),
        "cpu_user_s": round(after.ru_utime - before.ru_utime, 1),
        "cpu_system_s": round(after.ru_stime - before.ru_stime, 1),
        "cpu_s": round(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, 1),
        "load_before": [round(x, 2) for x in load_before],
        "load_during_mean": round(sum(samples) / len(samples), 2),
        "load_during_max": round(max(samples), 2),
        "load_after": [round(x, 2) for x in os.getloadavg()],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", default="HEAD", help="the commit to clone (default: HEAD, committed work only)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    repo = Path(subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True,
                               check=True).stdout.strip())
    work = Path(tempfile.mkdtemp(prefix="tracegrade-setup-"))
    commit = clone(repo, args.ref, work)
    project = work / "project"
    command = first_setup_command((project / "README.md").read_text(encoding="utf-8"))
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PIP_NO_CACHE_DIR")}
    env.update(PIP_CACHE_DIR=str(work / "pip-cache"), TRACEGRADE_CACHE_DIR=str(work / "tracegrade-cache"))
    print(f"commit {commit[:12]}, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores, "
          f"Python {sys.version.split()[0]}\n$ {command}", flush=True)
    figures = {"commit": commit, "command": command, "utc": f"{datetime.now(UTC):%Y-%m-%dT%H:%M:%SZ}",
               "cores": os.cpu_count(), **measure(command, project, env, work / "setup.log")}
    tail = (work / "setup.log").read_text(encoding="utf-8", errors="replace").splitlines()
    print("\n".join(line for line in tail if "WARNING: Location" not in line)[-3000:])
    print(json.dumps(figures, indent=1))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    if args.keep:
        print(f"(left in {work})")
    else:
        subprocess.run(["rm", "-rf", str(work)], check=False)
    raise SystemExit(0 if figures["exit_status"] == 0 else 1)


if __name__ == "__main__":
    main()
