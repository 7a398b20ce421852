"""Bounds of numeric options: seeds, counts and sizes are stored, hashed and computed on as signed 64-bit integers
(Arrow, Polars, orjson), so a number past 64 bits is refused on the command line, for every command, before any work."""

from __future__ import annotations

import re

SEED_MIN = -(2**63)
SEED_MAX = 2**63 - 1
_INTEGER = re.compile(r"^[+-]?\d+$")


def oversized_option(args: list[str]) -> str | None:
    """The first `--option VALUE` (or `--option=VALUE`) of `args` whose VALUE is an integer past 64 bits, as a
    message saying what to do; None when there is none."""
    for index, arg in enumerate(args):
        option, equals, value = arg.partition("=")
        if not option.startswith("-"):
            continue
        if not equals:
            value = args[index + 1] if index + 1 < len(args) else ""
        if _INTEGER.match(value) and not SEED_MIN <= int(value) <= SEED_MAX:
            return (f"{option} {value}: the number is past 64 bits (from {SEED_MIN} to {SEED_MAX}); "
                    "give a smaller one")
    return None
