"""Text shown to a person (an error line, a sandbox report) with the characters that would act instead of show
escaped as Python writes them: a newline would split a line, a terminal escape would reach the terminal."""

from __future__ import annotations

import unicodedata

LINE_BREAKING = frozenset({"Cc", "Zl", "Zp"})  # controls (ANSI escapes, CR, LF) and line/paragraph separators
HIDDEN = LINE_BREAKING | {"Cf", "Cs"}  # also format characters (bidi overrides, zero-width) and lone surrogates


def escape_hidden(text: str, categories: frozenset[str] = HIDDEN, *, undecodable_bytes: bool = False) -> str:
    """`text` with each character of the Unicode `categories` escaped (`\\x1b`, `\\n`, `\\u202e`, `\\ud800`).

    With `undecodable_bytes`, a byte Python decoded with surrogateescape (from a file name that is not UTF-8) is
    written as the byte, `\\xNN`, before the categories are looked at.
    """
    if text.isprintable():  # no character of any of these categories is printable
        return text
    return "".join(_escaped(ch, categories, undecodable_bytes) for ch in text)


def _escaped(ch: str, categories: frozenset[str], undecodable_bytes: bool) -> str:
    if undecodable_bytes and 0xDC80 <= ord(ch) <= 0xDCFF:
        return f"\\x{ord(ch) - 0xDC00:02x}"
    return ch.encode("unicode_escape").decode("ascii") if unicodedata.category(ch) in categories else ch


def holds_control_character(text: str) -> bool:
    """Whether `text` holds a control character (a line break, a tab, an escape): what no credential or header
    value can carry (an HTTP client refuses it, quoting the whole value in its error)."""
    return any(unicodedata.category(ch) == "Cc" for ch in text)
