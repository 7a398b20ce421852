"""Python's last-resort log handler, its lines escaped.

No command of the project configures logging, so a warning a module logs (`coworkenv.store`'s "published v1 to
<repository>", the LLM cache's "ignoring unreadable LLM cache entry <path>", any library's) reaches the terminal
through `logging.lastResort`, which prints the message raw: a path whose name holds a line break or a terminal escape
(a data folder reached through a link to `da\\x1b[31mta\\nx`, a cache folder so named) split the line in two or drove
the terminal, while the commands' own lines are escaped (`commands.say`, `error_line`). The entry points put this
handler in its place (`escape_last_resort`): the same records, the same stream (standard error as it is at each
write) and level, the message escaped as `error_line` escapes it; a traceback logged with it keeps its lines.
Logging configured by the caller (a handler on the root logger, pytest's capture) is used instead, as before.
"""

from __future__ import annotations

import logging
import sys
from typing import TextIO

from coworkenv.escaping import LINE_BREAKING, escape_hidden


class EscapedLastResort(logging.StreamHandler):  # type: ignore[type-arg]
    """`logging.lastResort` (warnings and worse, `%(message)s` on the current standard error), escaped."""

    def __init__(self, level: int = logging.WARNING) -> None:
        logging.Handler.__init__(self, level)  # not StreamHandler's: the stream is read at each write

    @property  # type: ignore[override]
    def stream(self) -> TextIO:
        return sys.stderr

    def format(self, record: logging.LogRecord) -> str:
        text = escape_hidden(record.getMessage(), LINE_BREAKING, undecodable_bytes=True)
        if record.exc_info:
            text = f"{text}\n{logging.Formatter().formatException(record.exc_info)}"
        return text


def escape_last_resort() -> None:
    """Make Python's last-resort handler escape what it prints (once; what another caller set is kept)."""
    current = logging.lastResort
    if current is not None and type(current).__name__ == "_StderrHandler":
        logging.lastResort = EscapedLastResort(current.level)
