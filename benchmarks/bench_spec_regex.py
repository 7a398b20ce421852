"""The bounded spec regexes (coworkenv/spec_regex.py) against Python's `re` on the shipped specs' patterns.

Collects every `regex` of a text rule and every `matches` value of the 5 examples and of all taxonomy
capabilities x seeds 1-5, checks that each passes the load-time limits and that `re` and the `regex` package find
the same spans in every string of those specs (with and without IGNORECASE), then times one search of each
pattern on texts of three lengths.

    PYTHONPATH=. python benchmarks/bench_spec_regex.py
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

from coworkenv.examples import __file__ as examples_init
from coworkenv.spec_regex import compiled, pattern_problem, search
from coworkenv.synth.generate import generate_spec
from coworkenv.synth.taxonomy import load_taxonomy


def _walk(node: Any, patterns: set[str], texts: set[str]) -> None:
    if isinstance(node, dict):
        if node.get("kind") == "text" and node.get("regex") is not None:
            patterns.add(node["regex"])
        if node.get("op") == "matches":
            patterns.add(str(node.get("value")))
        for value in node.values():
            _walk(value, patterns, texts)
    elif isinstance(node, list):
        for value in node:
            _walk(value, patterns, texts)
    elif isinstance(node, str):
        texts.add(node)


def main() -> None:
    docs = [json.loads(f.read_text()) for f in sorted(Path(examples_init).parent.glob("*.json"))]
    taxonomy = load_taxonomy(Path("taxonomy"))
    docs += [generate_spec(cap, seed).model_dump(mode="json") for cap in taxonomy.capabilities.values()
             for seed in range(1, 6)]
    patterns: set[str] = set()
    texts: set[str] = set()
    for doc in docs:
        _walk(doc, patterns, texts)
    refused = [p for p in patterns if pattern_problem(p)]
    longest = max(map(len, patterns), default=0)
    print(f"{len(docs)} specs, {len(patterns)} distinct patterns (longest {longest} chars), refused: {len(refused)}")
    searches = differing = 0
    for pattern in sorted(patterns):
        for ignorecase in (False, True):
            plain, bounded = re.compile(pattern, re.IGNORECASE if ignorecase else 0), compiled(pattern, ignorecase)
            for text in texts:
                a, b = plain.search(text), search(bounded, text)
                searches += 1
                differing += (a and a.span()) != (b and b.span())
    print(f"{searches} searches over the specs' {len(texts)} strings: {differing} with a different match")
    plain_patterns = [re.compile(p) for p in sorted(patterns)]
    bounded_patterns = [compiled(p) for p in sorted(patterns)]
    for repeat in (1, 20, 2000):
        text = "Rolled back svc-api to v1; see OPS-7 at 14:00 UTC. " * repeat
        n = len(plain_patterns) * 20
        start = time.perf_counter()
        for p in plain_patterns * 20:
            p.search(text)
        plain_s = time.perf_counter() - start
        start = time.perf_counter()
        for q in bounded_patterns * 20:
            search(q, text)
        bounded_s = time.perf_counter() - start
        print(f"text of {len(text):7d} chars: re {plain_s / n * 1e6:8.1f} us/search, "
              f"bounded regex {bounded_s / n * 1e6:8.1f} us/search")


if __name__ == "__main__":
    main()
