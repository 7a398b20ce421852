"""Fault corpus, a number on the command line that its option took without a range: a port past 65535, negative or 0
(`serve --port 99999`, `--harness-port 70000`), a step limit of 0 (`serve --max-steps 0`), a sampling temperature
below 0, `nan` or `inf` (`rollout`, `env run`, `eval`), an LLM timeout of `inf` or `1e400` (a float past its range
is `inf`), a tool-error limit below 0 (`curate --max-tool-errors -1`).

On main: the port reached the socket and the command ended in a traceback drawn in Typer's box (`OverflowError:
bind(): port must be 0-65535`); port 0 served on a port chosen by the system while the command printed
`http://127.0.0.1:0/mcp`; `--max-steps 0` served an episode cut off before its first step; the temperature went to
the server or to the local model as written (a local checkpoint samples greedily at any value not above 0, so the
report of a run "at temperature -1" was of greedy decoding); an infinite timeout waited forever on a server that
stopped answering; `--max-tool-errors -1` removed every trajectory and wrote an empty dataset, exit 0. Now each is one
`error:` line naming the option and the range allowed, exit 2, before any work (`coworkenv/commands.py`:
`TemperatureOption`, `finite`; the ranges on the options)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.faults.harness import refused, stage_inputs

DEAD = "http://127.0.0.1:9/v1"  # nothing listens there: a command that got past its options would say so
LLM = ["--llm", DEAD, "--model", "m"]

CASES = {
    "serve-port-too-high": (["serve", "incident_rollback", "--mcp", "--transport", "http", "--port", "99999"],
                            "'--port'", "from 1 to 65535"),
    "serve-port-negative": (["serve", "incident_rollback", "--mcp", "--transport", "http", "--port", "-5"],
                            "'--port'", "from 1 to 65535"),
    "serve-port-zero": (["serve", "incident_rollback", "--mcp", "--transport", "http", "--port", "0"],
                        "'--port'", "from 1 to 65535"),
    "harness-port-too-high": (["serve", "incident_rollback", "--mcp", "--harness-port", "70000"],
                              "'--harness-port'", "from 1 to 65535"),
    "serve-no-steps": (["serve", "incident_rollback", "--mcp", "--max-steps", "0"], "'--max-steps'", "from 1"),
    "rollout-temperature-negative": (["rollout", "{specs}", "--out", "{out}", "--teacher", "llm", *LLM,
                                      "--temperature", "-1"], "'--temperature'", "below 0"),
    "rollout-temperature-nan": (["rollout", "{specs}", "--out", "{out}", "--teacher", "llm", *LLM,
                                 "--temperature", "nan"], "'--temperature'", "not a finite number"),
    "rollout-temperature-inf": (["rollout", "{specs}", "--out", "{out}", "--teacher", "llm", *LLM,
                                 "--temperature", "inf"], "'--temperature'", "finite"),
    "env-run-temperature-negative": (["env", "run", "incident_rollback", "--agent", "llm", *LLM, "--temperature", "-0.5"],
                                     "'--temperature'", "below 0"),
    "eval-temperature-negative": (["eval", "--envs", "{specs}", *LLM, "--temperature", "-1"],
                                  "'--temperature'", "below 0"),
    "eval-temperature-nan": (["eval", "--envs", "{specs}", *LLM, "--temperature", "nan"], "'--temperature'",
                             "finite"),
    "timeout-inf": (["rollout", "{specs}", "--out", "{out}", "--llm-timeout", "inf"], "'--llm-timeout'", "finite"),
    "timeout-past-float-range": (["rollout", "{specs}", "--out", "{out}", "--llm-timeout", "1e400"],
                                 "'--llm-timeout'", "finite"),
    "validate-timeout-inf": (["validate", "{specs}", "--out", "{out}", *LLM, "--llm-timeout", "inf"],
                             "'--llm-timeout'", "finite"),
    "curate-tool-errors-negative": (["curate", "{trajectories}", "--out", "{out}", "--max-tool-errors", "-1"],
                                    "'--max-tool-errors'", "from 0"),
}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    made = stage_inputs(tmp_path_factory.mktemp("inputs"))
    return {"{specs}": made["specs"], "{trajectories}": made["traj"]}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_number_out_of_its_range_is_one_error_line_before_any_work(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, inputs: dict[str, Path], case: str) -> None:
    monkeypatch.setenv("COWORKENV_HARNESS_TOKEN", "a-harness-token-of-the-test-0123456789")
    args, option, allowed = CASES[case]
    paths = {**{key: str(value) for key, value in inputs.items()}, "{out}": str(tmp_path / "out")}
    line = refused([paths.get(arg, arg) for arg in args], option, allowed)
    assert "Invalid value" in line, line
    assert not (tmp_path / "out").exists()


def test_the_bounds_of_a_temperature_are_taken() -> None:
    """Regression guard (held on main): 0 (greedy) and a high temperature are values a user may mean."""
    from typer.testing import CliRunner

    from coworkenv.cli import app

    for value in ("0", "1.5"):
        done = CliRunner().invoke(app, ["env", "run", "incident_rollback", "--temperature", value])
        assert done.exit_code == 0, done.output
