"""Regenerate docs/dabench-columns.md: ``python -m tracegrade.dabench.columns_doc [PATH]``."""

from __future__ import annotations

import sys
from pathlib import Path

from tracegrade._io import write_atomic
from tracegrade.dabench.tables._docs import render_columns_doc

if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/dabench-columns.md")
    write_atomic(target, render_columns_doc().encode())
    print(f"wrote {target}")
