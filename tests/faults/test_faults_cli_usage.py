"""Fault corpus, a command line typed wrong: a value of the wrong type or out of range, an option misspelt, given
without its value or missing, an argument missing, a command misspelt; in a command, a nested command (`env run`)
and a plugin's (`train sft`).

On main Typer answered each with a "Usage:" line, a "Try ... --help" line and a box drawn to the terminal's width
(80 columns in a log), the message wrapped inside it: no line said `error:` (what a script or a log search looks
for, and what every other refusal of the product writes), and a narrow terminal cut the message mid-word. Now each
is one `error:` line naming the command, what is wrong, the range where there is one, and where the help is; the
exit status stays 2 (`coworkenv/cli/__init__.py: _usage_error_line`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.faults.harness import run_child, spec_folder

BOX = ("╭", "│", "╰", "─")
CASES = {
    "not-a-number": (["synth", "--n", "abc"], "coworkenv synth", ["'--n'", "valid integer", "from 1 to 1000000"]),
    "below-range": (["synth", "--n", "0"], "coworkenv synth", ["'--n'", "from 1 to 1000000"]),
    "above-range": (["synth", "--n", "2000000"], "coworkenv synth", ["'--n'", "from 1 to 1000000"]),
    "not-a-float": (["rollout", "{specs}", "--out", "{out}", "--temperature", "hot"], "coworkenv rollout",
                    ["'--temperature'", "valid number"]),
    "misspelt-option": (["synth", "--nn", "3"], "coworkenv synth", ["--nn"]),
    "value-missing": (["synth", "--out"], "coworkenv synth", ["'--out'", "requires an argument"]),
    "argument-missing": (["rollout"], "coworkenv rollout", ["Missing argument"]),
    "option-missing": (["validate", "{specs}"], "coworkenv validate", ["Missing option", "'--out'"]),
    "misspelt-command": (["synht"], "coworkenv", ["'synht'", "'synth'"]),
    "top-level-option": (["--verbose", "synth"], "coworkenv", ["--verbose"]),
    "nested-command": (["env", "run", "{spec}", "--max-tokens", "0"], "coworkenv env run",
                       ["'--max-tokens'", "from 1 to 131072"]),
    "plugin-command": (["train", "sft", "--bogus"], "coworkenv train sft", ["--bogus"]),
}


def _args(tmp_path: Path, args: list[str]) -> list[str]:
    specs = spec_folder(tmp_path / "specs")
    spec = next(specs.iterdir())
    paths = {"{specs}": str(specs), "{spec}": str(spec), "{out}": str(tmp_path / "out")}
    return [paths.get(arg, arg) for arg in args]


def _run(args: list[str], columns: int = 80) -> tuple[int, str]:
    """`coworkenv ARGS` in this process (a child takes seconds to import the CLI): exit status, standard error."""
    from typer.testing import CliRunner

    from coworkenv.cli import app

    result = CliRunner().invoke(app, args, prog_name="coworkenv", env={"COLUMNS": str(columns)})
    return result.exit_code, result.stderr


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_command_line_typed_wrong_is_one_error_line(tmp_path: Path, case: str) -> None:
    args, command, needles = CASES[case]
    code, stderr = _run(_args(tmp_path, args))
    assert code == 2, stderr
    errors = [line for line in stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, stderr
    (line,) = errors
    # the program as click names it: `coworkenv`, or `python -m ...coworkenv` as the fault child runs it
    assert line.startswith("error: ") and line.split(": ")[1].endswith(command), line
    assert f"{command} --help`" in line, line
    for needle in needles:
        assert needle in line, line
    assert not any(mark in stderr for mark in BOX) and "Traceback" not in stderr, stderr
    assert not (tmp_path / "out").exists()


def test_a_narrow_terminal_keeps_the_message_whole() -> None:
    code, stderr = _run(["synth", "--n", "abc"], columns=40)
    assert code == 2 and "Input should be a valid integer, unable to parse string as an integer" in stderr, stderr


def test_the_installed_command_says_it_in_one_line_too(tmp_path: Path) -> None:
    """The `coworkenv` entry point (`main`), in a process of its own, as a user's shell or script runs it."""
    result = run_child(["synth", "--n", "abc", "--out", str(tmp_path / "out")], env={"COLUMNS": "80"})
    assert result.returncode == 2 and len(result.errors) == 1, result.stderr
    assert "'--n'" in result.errors[0] and not any(mark in result.stderr for mark in BOX), result.stderr


def test_a_command_group_given_no_command_still_shows_its_help() -> None:
    """Regression guard (held on main): `coworkenv env` alone is a question, answered with the help."""
    from typer.testing import CliRunner

    from coworkenv.cli import app

    result = CliRunner().invoke(app, ["env"], prog_name="coworkenv")
    assert result.exit_code == 2 and "Usage" in result.output and "error:" not in result.output, result.output
