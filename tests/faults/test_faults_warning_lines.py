"""Fault corpus, the warnings a module logs naming a path. No command configures logging, so `coworkenv.store`'s
"published v1 to <repository> at <commit>", the LLM cache's "ignoring unreadable LLM cache entry <path>" and any
library's warning reach the terminal through Python's `logging.lastResort`, which prints the message raw. Measured on
`main` (a fresh interpreter, the warning `_local_git` logs with a repository reached through a link to
`da\\x1b[31mta\\nx`): "published v1 to /tmp/da" ESC "[31mta" and "x/hub at abc" on two lines, the escape colouring the
terminal. Now every entry point (`coworkenv`, `python -m pipelines.run`, `pipelines.distributed`, `trainers.sft`,
`trainers.rl`) puts `coworkenv.log_lines.EscapedLastResort` in its place: one line, `\\x1b` and `\\n` shown."""

from __future__ import annotations

import logging

import pytest

from coworkenv.log_lines import EscapedLastResort, escape_last_resort

ODD = "/tmp/da\x1b[31mta\nx/hub"


@pytest.fixture
def last_resort(monkeypatch: pytest.MonkeyPatch) -> None:
    """Python's own last-resort handler while the test runs, put back after it."""
    monkeypatch.setattr(logging, "lastResort", logging._StderrHandler(logging.WARNING))  # type: ignore[attr-defined]


def _warn(message: str, *args: object, exc_info: bool = False) -> logging.LogRecord:
    """A warning record of `coworkenv.store._local_git`, handled as Python does when no logging is configured
    (pytest's capture handlers stand on the root logger here: the last resort is called as Python would)."""
    record = logging.getLogger("coworkenv.store._local_git").makeRecord(
        "coworkenv.store._local_git", logging.WARNING, __file__, 1, message, args, None)
    if exc_info:
        try:
            raise OSError("disk")
        except OSError as exc:
            record.exc_info = (type(exc), exc, exc.__traceback__)
    assert logging.lastResort is not None
    logging.lastResort.handle(record)
    return record


@pytest.mark.usefixtures("last_resort")
def test_a_warning_naming_an_odd_path_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    escape_last_resort()
    _warn("published %s to %s at %s", "v1", ODD, "abc")
    _warn("could not restore %s", ODD, exc_info=True)
    err = capsys.readouterr().err
    assert "\x1b" not in err, "main: the escape reached the terminal"
    lines = err.splitlines()
    assert lines[0] == "published v1 to /tmp/da\\x1b[31mta\\nx/hub at abc", err
    assert lines[1] == "could not restore /tmp/da\\x1b[31mta\\nx/hub" and lines[2].startswith("Traceback"), err
    assert lines[-1] == "OSError: disk", err


@pytest.mark.usefixtures("last_resort")
def test_the_entry_points_escape_the_last_resort(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    import coworkenv.cli
    from pipelines import run

    monkeypatch.setattr(coworkenv.cli, "app", lambda: None)  # the entry's set-up only: no command, no signal
    monkeypatch.setattr(coworkenv.cli, "unhandled_stop_signals", lambda: [])
    coworkenv.cli.main()
    assert isinstance(logging.lastResort, EscapedLastResort), "main: Python's, printing the message raw"
    monkeypatch.setattr(logging, "lastResort", logging._StderrHandler(logging.WARNING))  # type: ignore[attr-defined]
    with pytest.raises(SystemExit):
        run.main(["--no-such-flag"])  # refused by its parser, after the set-up
    assert isinstance(logging.lastResort, EscapedLastResort)
    capsys.readouterr()


def test_guard_logging_the_caller_configured_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression guard: a handler another caller set as the last resort (or none) is not replaced."""
    mine = logging.StreamHandler()
    monkeypatch.setattr(logging, "lastResort", mine)
    escape_last_resort()
    assert logging.lastResort is mine
    monkeypatch.setattr(logging, "lastResort", None)
    escape_last_resort()
    assert logging.lastResort is None
