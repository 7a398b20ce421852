"""Library-level scenarios the fault corpus runs in a child process (`python -m tests.faults.child --call ...`)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from coworkenv.store import write_table


def store_write(root: str, size: str) -> None:
    """Store a small or a large table as dataset `table` under `root`."""
    rows = 10 if size == "small" else 5000
    write_table(pa.table({"text": [f"{size} row {i} " * 8 for i in range(rows)]}), Path(root), "table")
