"""benchmarks/bench_setup.py: what it runs (the README's first set-up command) and how it measures."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "bench_setup.py"


def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_setup", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_setup"] = module
    spec.loader.exec_module(module)
    return module


def test_the_first_set_up_command_installs_the_local_judge_prebuilt_and_judges_the_examples() -> None:
    command = bench().first_setup_command((ROOT / "README.md").read_text(encoding="utf-8"))
    assert "'.[local-judge]'" in command and "tracegrade judge examples/atif --judge local" in command
    assert "CMAKE_ARGS" not in command  # nothing is compiled: the local judge's llama.cpp comes as a wheel


def test_only_the_set_up_sections_first_block_is_taken() -> None:
    readme = "# x\n```bash\nnot this\n```\n## Set up\n\ntext\n\n```bash\nfirst\n```\n\n```bash\nsecond\n```\n## Next\n"
    assert bench().first_setup_command(readme) == "first"


def test_the_measurement_counts_the_cpu_of_every_process_the_command_ran(tmp_path: Path) -> None:
    script = tmp_path / "busy.py"
    script.write_text("import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end:\n    pass\n")
    command = f"bash -c '{sys.executable} {script}' && exit 3"  # the busy process is a grandchild
    figures = bench().measure(command, tmp_path, {"PATH": "/usr/bin:/bin"}, tmp_path / "log")
    assert figures["exit_status"] == 3
    assert figures["cpu_s"] >= 0.3
    assert len(figures["load_before"]) == 3 and figures["load_during_max"] >= 0.0
