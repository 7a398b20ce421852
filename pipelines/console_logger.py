"""Dagster's console logger, its lines escaped: a step's log line (`context.log.info`, Dagster's own event lines)
naming a path whose name holds a line break or a terminal escape (a data folder reached through a link to
`da\\x1b[31mta\\nx`, a file of specs so named) was printed raw by Dagster's handler, so the line split in two or drove
the terminal, while the run's own lines (`pipelines.run._say`) were escaped.

The message a step logged is one line: its control characters, line breaks included, are shown escaped as
`error_line` shows them (`\\n`, `\\x1b`), and so is the message of each error (and its causes) Dagster appends to a
failure event. The rest of what Dagster appends (its headings, the stack traces: many lines) keeps its line breaks;
any other control character in it is escaped.
"""

from __future__ import annotations

import logging

import dagster as dg

from coworkenv.escaping import LINE_BREAKING, escape_hidden

_META = "dagster_meta"  # the record attribute Dagster's log manager passes each logger (its `extra`)


def escaped_line(message: str, whole: list[str]) -> str:
    """`message` fit for the terminal: each text of `whole` (what the step logged, an error's message) escaped whole
    where it occurs, the rest line by line."""
    for text in sorted({t.rstrip("\n") for t in whole if t.strip()}, key=len, reverse=True):
        message = message.replace(text, escape_hidden(text, LINE_BREAKING, undecodable_bytes=True))
    return "\n".join(escape_hidden(line, LINE_BREAKING, undecodable_bytes=True) for line in message.split("\n"))


def _messages(meta: object) -> list[str]:
    """What the step logged and the message of each error of the record's Dagster event (read defensively: a
    Dagster that changed them leaves the whole line escaped line by line)."""
    if not isinstance(meta, dict):
        return []
    found = [meta.get("orig_message")]
    error = getattr(getattr(meta.get("dagster_event"), "event_specific_data", None), "error", None)
    seen = 0
    while error is not None and seen < 20:  # its causes and contexts, a chain of a few
        found.append(getattr(error, "message", None))
        error, seen = getattr(error, "cause", None) or getattr(error, "context", None), seen + 1
    return [text for text in found if isinstance(text, str)]


class _Escaping(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = escaped_line(record.getMessage(), _messages(getattr(record, _META, None)))
        record.args = ()
        return True


@dg.logger(
    config_schema=dg.colored_console_logger.config_schema,
    description="Dagster's colored console logger, control characters in its lines escaped.",
)
def escaped_console_logger(init_context: dg.InitLoggerContext) -> logging.Logger:
    logger = dg.colored_console_logger.logger_fn(init_context)
    logger.addFilter(_Escaping())
    return logger
