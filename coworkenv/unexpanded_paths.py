"""A path written as a shell would expand it, which reached us as written: `--out=~/specs` (bash expands `~` only
at the start of a word, so not after `--out=`), `"~/specs"` in quotes, `COWORKENV_DATA_DIR=~/data` or `$HOME/data`
in an env file (`docker run --env-file`, systemd's `Environment=`, Dagster's `.env` keep both as written).

Taken as written, the files went to a folder named `~` (or `$HOME`) under the current folder while the command
said it wrote to `~/specs`: the user found nothing in their home folder, and a later command given the expanded
path read another (or no) dataset. Refused before any work, naming the path meant."""

from __future__ import annotations

import os
import pwd
import re

_HOME = re.compile(r"~([A-Za-z0-9._-]*)(/|$)")  # ~, ~/x, ~user, ~user/x
_VARIABLE = re.compile(r"\$(?:\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*)")


def unexpanded_home(value: str) -> str | None:
    """Why `value`, a path starting with `~` that no shell expanded, cannot be meant as written; None otherwise."""
    match = _HOME.match(value)
    if match is None:
        return None
    user = match[1]
    if user:
        try:
            pwd.getpwnam(user)
        except KeyError:  # `~draft`: not a user's home, a name that merely starts with `~`
            return None
    meant = os.path.expanduser(value)
    if meant == value:  # no home folder known: nothing to suggest, and nothing a shell would have done either
        return None
    return (f"starts with `~{user}`, which only a shell turns into a home folder (not after `--option=`, not in "
            f"quotes, not in an env file), so it names a folder `~{user}` under {os.getcwd()}, not a home folder; "
            f"write the full path, {meant} (for a folder named `~{user}` here, write ./~{user})")


# Why a `$NAME` on the command line reached us: bash expands it everywhere but in single quotes, and a launcher that
# runs the command without a shell (Docker's exec-form CMD, a Kubernetes `args:` list, a `subprocess` list) keeps it.
KEPT_ON_THE_COMMAND_LINE = ("no shell expanded it here: single quotes keep it, and so does a launcher without a shell, "
                            "an exec-form CMD or an args list")


def unexpanded_variable(value: str, kept_by: str = "an env file keeps it as written") -> str | None:
    """Why `value`, a path holding `$NAME` or `${NAME}` that no shell expanded (`kept_by` says what kept it), cannot
    be meant as written; None otherwise."""
    match = _VARIABLE.search(value)
    if match is None:
        return None
    meant = os.path.expandvars(value)
    name = match[0].strip("${}")
    if name not in os.environ:  # a shell would have made it empty: `$DATA/specs` became `/specs`
        hint = f"{name} is not set here either; write the full path"
    elif "$" not in meant:
        hint = f"write the full path, {meant}"
    else:
        hint = "write the full path"
    return (f"holds `{match[0]}`, which only a shell expands ({kept_by}), so the path names a folder called "
            f"`{match[0]}` as written; {hint}")


def unexpanded_path(value: str) -> str | None:
    """`unexpanded_home` or `unexpanded_variable`: for a path from a setting, where either was left by an env file."""
    return unexpanded_home(value) or unexpanded_variable(value)
