"""When the Dagster instance of `python -m pipelines.run` cannot be used (DAGSTER_HOME's dagster.yaml, or the SQLite
storage it names, damaged, locked, full or in the way): one line naming the file, the problem and what to do, in
place of a traceback from deep inside Dagster and SQLAlchemy.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import yaml

from coworkenv.atomic import os_reason, path_advice
from coworkenv.yaml_files import YAMLFileError, check_unique_keys, read_config_text

CONFIG_NAME = "dagster.yaml"
# What SQLite says, in its own words, for each kind of trouble, and what to do about it.
_LOCKED = ("database is locked", "database table is locked")
_FULL = ("database or disk is full", "disk i/o error")
_DAMAGED = ("file is not a database", "malformed", "not a database")
_UNWRITABLE = ("readonly database", "unable to open database file")
_CONFIG_ERROR = re.compile(r"Error 1: (.*?)(?:\. Expected|$)", re.MULTILINE)  # Dagster's first, without its schema
KEEP = ("its run history is lost; the outputs under COWORKENV_DATA_DIR are kept, and the next run redoes what it "
        "cannot show complete")


class InstanceError(Exception):
    """The instance cannot be used; the message says which file, why and what to do."""

    def __init__(self, message: str, *, usage: bool) -> None:
        super().__init__(message)
        self.usage = usage  # a file the user edits (dagster.yaml), not the machine, is at fault


def check_dagster_home(value: str) -> None:
    """InstanceError unless DAGSTER_HOME names an existing folder by its full path, as Dagster requires (it said so
    in a traceback, from deep inside the run's start)."""
    shown = f"DAGSTER_HOME={value!r}"
    blank = " (it starts or ends with a blank)" if value != value.strip() else ""
    home = Path(value)
    if not home.is_absolute():
        raise InstanceError(f"{shown} is not an absolute path{blank}, and Dagster takes only one; set it to the "
                            f"folder's full path, e.g. {os.path.abspath(os.path.expanduser(value.strip() or '.'))}",
                            usage=True)
    if home.is_dir():
        return
    if os.path.lexists(home) and not home.is_symlink():
        raise InstanceError(f"{shown} is a file, not a folder{blank}; move the file away, or point DAGSTER_HOME at "
                            "a folder", usage=True)
    raise InstanceError(f"{shown}: no such folder{blank} (or a symbolic link on the way that points nowhere); "
                        f"create it (`mkdir -p {value.strip()}`) or point DAGSTER_HOME at an existing folder",
                        usage=True)


def check_instance_config(home: Path) -> None:
    """InstanceError for a key written twice in DAGSTER_HOME's dagster.yaml, which Dagster reads keeping the last
    one without a word (a second `storage:` moves the run history elsewhere), and for a class it names (`module:`,
    `class:`) that Dagster could not load or that does not take its `config:` (found inside the first run)."""
    try:
        if (home / CONFIG_NAME).is_file():  # Dagster read one not UTF-8 (saved as Latin-1, binary) with a traceback
            read_config_text(home / CONFIG_NAME)
        check_unique_keys(home / CONFIG_NAME)
    except YAMLFileError as exc:
        raise InstanceError(f"{exc}; fix the file (the project's dagster.yaml shows a working one)", usage=True
                            ) from None
    from pipelines.instance_classes import first_class_problem  # imports Dagster's modules the file names

    problem = first_class_problem(home / CONFIG_NAME)
    if problem is not None:
        raise InstanceError(f"{home / CONFIG_NAME}:{problem[0]}: {problem[1]}", usage=True)


def check_instance_config_read_by_dagster() -> None:
    """`check_instance_config` of the dagster.yaml Dagster's own commands read (`dagster dev`, its daemon and code
    server): DAGSTER_HOME's when it is set (as an absolute path: Dagster refuses another), else the current folder's,
    which `dagster dev` reads beside its temporary storage (`make ui`). `python -m pipelines.run` checks it before any
    run; `dagster dev` read it as it stood (a second `storage:` moved the run history elsewhere without a word)."""
    home = os.environ.get("DAGSTER_HOME")
    if home is None or not home.strip():
        check_instance_config(Path.cwd())
    elif Path(home).is_absolute():
        check_instance_config(Path(home))


def main() -> int:
    """`python -m pipelines.instance_errors`, which `make ui` runs before `dagster dev`: exit 2 with one `error:` line
    when DAGSTER_HOME or the dagster.yaml Dagster would read cannot be used as written."""
    import sys

    try:
        home = os.environ.get("DAGSTER_HOME")
        if home is not None and home.strip():
            check_dagster_home(home)
        check_instance_config_read_by_dagster()
    except InstanceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def instance_problem(error: BaseException, home: Path) -> InstanceError | None:
    """`error` (raised while the run used its instance) as an InstanceError, or None if it is not about one.

    An OSError naming a file is one too: its line names the file, and the instance storage only when the file is
    under DAGSTER_HOME or the storage folder dagster.yaml names."""
    config = home / CONFIG_NAME
    for cause in _chain(error):
        if isinstance(cause, InstanceError):
            return cause
        if isinstance(cause, yaml.YAMLError):
            mark = getattr(cause, "problem_mark", None)
            # The mark names the file a stream was read from ("<unicode string>" for text): another YAML file
            # read during the run is named as itself, not as the instance's dagster.yaml.
            source = Path(mark.name) if mark is not None and not str(mark.name).startswith("<") else config
            line = f"{source}:{mark.line + 1}" if mark is not None else str(source)
            problem = getattr(cause, "problem", None) or str(cause).splitlines()[0]
            example = " (the project's dagster.yaml shows a working one)" \
                if os.path.abspath(source) == os.path.abspath(config) else ""
            return InstanceError(f"{line}: not valid YAML ({problem}); fix the file{example}", usage=True)
        if type(cause).__name__ == "DagsterInvalidConfigError":
            found = _CONFIG_ERROR.search(str(cause))
            detail = found[1] if found else str(cause).splitlines()[0]
            return InstanceError(f"{config}: {detail}; fix the file (the project's dagster.yaml shows a working "
                                 "one)", usage=True)
        if isinstance(cause, sqlite3.Error):
            return _storage_problem(str(cause), home)
        if isinstance(cause, OSError) and cause.errno and cause.filename:
            path = Path(os.path.abspath(str(cause.filename)))
            # Only a file of the instance is the instance's: a data file or a temp file is named as what it is.
            owner = next((f" (the Dagster instance storage in {home})" for root in (home, _storage_dir(home))
                          if path == Path(os.path.abspath(root)) or Path(os.path.abspath(root)) in path.parents), "")
            return InstanceError(f"{path}: {os_reason(cause)}{owner}; {path_advice(path, cause)}", usage=False)
    return None


def _chain(error: BaseException) -> Iterator[BaseException]:
    """`error` and the errors behind it (SQLAlchemy keeps the driver's as `orig` and as the cause)."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [error]
    while todo:
        item = todo.pop(0)
        if item is None or id(item) in seen:
            continue
        seen.add(id(item))
        yield item
        orig = getattr(item, "orig", None)
        todo += [orig if isinstance(orig, BaseException) else None, item.__cause__, item.__context__]


def _storage_problem(reason: str, home: Path) -> InstanceError:
    said = reason.lower()
    storage = _storage_dir(home)
    if any(words in said for words in _LOCKED):
        advice = "another process holds it (`make ui`, `dagster dev`, a second run?); let it finish or stop it, " \
                 "then run again"
        return InstanceError(f"the Dagster instance storage in {storage} is locked ({reason}); {advice}", usage=False)
    if any(words in said for words in _FULL):
        return InstanceError(f"the Dagster instance storage in {storage} could not be written ({reason}); free disk "
                             "space (or raise the file size limit or quota) and run again", usage=False)
    if any(words in said for words in _UNWRITABLE):
        return InstanceError(f"the Dagster instance storage in {storage} could not be opened for writing "
                             f"({reason}); make {storage} writable and run again", usage=False)
    damaged = next((db for db in _damaged_databases(storage)), None)
    what = f"{damaged} in the Dagster instance storage" if damaged else f"the Dagster instance storage in {storage}"
    verdict = "is damaged" if damaged or any(words in said for words in _DAMAGED) else "failed"
    return InstanceError(f"{what} {verdict} ({reason}); move the folder {storage} aside ({KEEP}) and run again",
                         usage=False)


def _storage_dir(home: Path) -> Path:
    """Where dagster.yaml keeps the SQLite storage (relative paths are taken from the current folder, as Dagster
    does); DAGSTER_HOME/storage when it names none or cannot be read."""
    try:
        config = yaml.safe_load((home / CONFIG_NAME).read_text()) or {}
        base = config["storage"]["sqlite"]["base_dir"]
        if isinstance(base, dict):  # {env: VARIABLE}
            base = os.environ.get(str(base.get("env")), "")
        return Path(os.path.abspath(str(base))) if base else home / "storage"
    except (OSError, yaml.YAMLError, RecursionError, KeyError, TypeError, AttributeError):
        return home / "storage"


def _damaged_databases(storage: Path) -> Iterator[Path]:
    """The SQLite files under `storage` that SQLite cannot read through (a quick check of each, read-only)."""
    for db in sorted(storage.rglob("*.db")) if storage.is_dir() else ():
        if not _readable(db):
            yield db


def _readable(db: Path) -> bool:
    try:
        connection = sqlite3.connect(f"{db.absolute().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return False
    try:
        return connection.execute("PRAGMA quick_check").fetchone() == ("ok",)
    except sqlite3.Error:
        return False
    finally:
        connection.close()


if __name__ == "__main__":
    raise SystemExit(main())
