"""What a value copied from an env file keeps that the user never meant: the carriage return of a line saved on
Windows, blanks around it, the quotes around it (`docker run --env-file` keeps them as part of the value).

Kept, `COWORKENV_DATA_DIR=data\\r` made a second data folder whose name ends in an invisible character, and
`COWORKENV_HELD_OUT_CAPABILITY="inbox_triage_reply"` named no capability.
"""

from __future__ import annotations

_QUOTES = ('"', "'")


def env_file_leftover(value: str) -> str | None:
    """Why `value` cannot be meant as written (what to remove), or None. A blank value is left to the setting."""
    if not value.strip():
        return None
    if value.rstrip(" \t\n").endswith("\r"):
        return "ends with a carriage return (a line end of an env file saved on Windows); remove it"
    if value != value.strip():
        return "begins or ends with a blank or a line break; remove it"
    if len(value) >= 2 and value[0] == value[-1] and value[0] in _QUOTES:
        return ("is wrapped in quotes that became part of the value (`docker run --env-file` keeps them); remove "
                "the quotes")
    return None
