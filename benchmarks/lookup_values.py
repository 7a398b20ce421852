"""What a lookup student wrote where it failed: the right cell, another whole cell, or a value stitched from pieces.

Reads the transcripts `bench_learning.py` saves (`<run>/eval/sft.part*.transcripts.jsonl`) and, for each
`lookup_answer_source` episode that read a markdown table, compares the value in the student's DM (`is X (source`)
with the cells of every table the episode read (docs/learning.md, L23/L24). Episodes answered from a config (no
table) are counted apart.

    python benchmarks/lookup_values.py runs/L19 runs/L23
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

_VALUE = re.compile(r" is (.+?) \(source")


def table_cells(markdown: str) -> set[str]:
    """The non-empty cells of every markdown table row (header included, separator rows left out)."""
    cells: set[str] = set()
    for line in markdown.split("\n"):
        if line.startswith("|") and not line.startswith("|---"):
            cells |= {c.strip() for c in line.strip("|").split("|") if c.strip()}
    return cells


def classify(record: dict[str, Any]) -> str:
    """One lookup episode: passed, config (no table read), no DM, other form, whole other cell or stitched."""
    cells: set[str] = set()
    dm: str | None = None
    for message in record["messages"]:
        if message["role"] == "tool":
            try:
                content = json.loads(message["content"])
            except ValueError:
                continue
            if isinstance(content, dict) and isinstance(content.get("content"), str):
                cells |= table_cells(content["content"])
        elif message["role"] == "assistant":
            for call in message["tool_calls"]:
                if call["function"]["name"] == "chat_send_dm":
                    try:
                        dm = str(json.loads(call["function"]["arguments"]).get("text", ""))
                    except (ValueError, AttributeError):
                        dm = None
    if not cells:
        return "config (no table)"
    if record["passed"]:
        return "passed"
    if dm is None:
        return "no DM"
    found = _VALUE.search(dm)
    if found is None:
        return "other form"
    return "whole other cell" if found.group(1).strip() in cells else "stitched (no cell)"


def main(runs: list[str]) -> None:
    for run in runs:
        counts: Counter[str] = Counter()
        for part in sorted(Path(run, "eval").glob("sft.part*.transcripts.jsonl")):
            for line in part.read_text(encoding="utf-8").splitlines():
                record = json.loads(line)
                if record["capability"] == "lookup_answer_source":
                    counts[classify(record)] += 1
        print(run, dict(sorted(counts.items())))


if __name__ == "__main__":
    main(sys.argv[1:])
