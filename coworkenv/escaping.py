"""Text shown to a person (an error line, a sandbox report) with the characters that would act instead of show
escaped as Python writes them: a newline would split a line, a terminal escape would reach the terminal."""

from __future__ import annotations

import unicodedata

LINE_BREAKING = frozenset({"Cc", "Zl", "Zp"})  # controls (ANSI escapes, CR, LF) and line/paragraph separators
HIDDEN = LINE_BREAKING | {"Cf", "Cs"}  # also format characters (bidi overrides, zero-width) and lone surrogates
_JOINERS = frozenset("\u200c\u200d")  # zero-width (non-)joiners: written inside words of Persian, Hindi, emoji


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


def hidden_character_problem(text: str) -> str | None:
    """Why `text`, a path the user named, cannot be meant as written: it holds a character that acts instead of
    showing (a line break, a tab, a terminal escape, a bidi override), which no file or folder name is meant to have
    (a line pasted with it); kept, the folder would be made under that name and every line naming it would be split
    or would drive the terminal. None when it holds none."""
    if text.isprintable():
        return None
    at = next((i for i, ch in enumerate(text) if escape_hidden(ch) != ch and ch not in _JOINERS), None)
    if at is None:  # only spaces other than " " (U+00A0 and the like), or joiners: a name can hold them
        return None
    shown = escape_hidden(text[at])
    return (f"holds a control character ({shown} at character {at + 1}), which no file or folder name is meant to "
            "have (a line pasted with it?); remove it")
