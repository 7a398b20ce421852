"""File names Arrow, Polars and Dagster's storage cannot take: Python hands over a name it could not decode with
surrogate escapes. Two causes need different fixes: the name's bytes are not UTF-8 (rename it), or they are, and
this Python decodes names as ASCII because its locale is not UTF-8 and UTF-8 mode is off (fix the environment)."""

from __future__ import annotations

import os
import sys


def holds_undecodable_bytes(text: str) -> bool:
    """Whether `text` holds a byte Python could not decode (a surrogate escape, U+DC80..U+DCFF)."""
    return any(0xDC80 <= ord(ch) <= 0xDCFF for ch in text)


def undecodable_name_reason(text: str) -> str:
    """Why the readers cannot take the name `text` and what to do, for a name `holds_undecodable_bytes` flags."""
    encoding = sys.getfilesystemencoding()
    try:
        os.fsencode(text).decode("utf-8")
    except UnicodeDecodeError:
        return "the name holds bytes that are not UTF-8, which the Parquet readers cannot open; rename it to a " \
            "UTF-8 name and run again"
    locale = os.environ.get("LC_ALL") or os.environ.get("LC_CTYPE") or os.environ.get("LANG") or "unset"
    return (f"the name is UTF-8, but this Python reads file names as {encoding} (locale {locale} with UTF-8 mode "
            "off), so the Parquet readers cannot open it; run with PYTHONUTF8=1 (or LC_ALL=C.UTF-8) and run again")
