"""Fault corpus, `coworkenv curate --heldout-capability NAME` where NAME is no capability of the trajectories:
misspelt, in another letter case, with a blank copied along, two names in one option (`a,b`), the area's name,
a capability of the taxonomy this run has no trajectories of.

On main each was taken without a word: nothing was held out, the capability meant stayed in the train split and
`test_heldout` had 0 rows, so an evaluation on the held-out split measured nothing, and one on the capability
measured a trained one (the pipeline's COWORKENV_HELD_OUT_CAPABILITY was already checked against the taxonomy; the
command's option was not). Now the command stops before writing, naming the option, the name, the closest
capability there and the capabilities the trajectories hold (`coworkenv/cli/curate.py: heldout_problem`).
Regression guards: a name the trajectories hold, given once or twice, is held out as before.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import polars as pl
import pytest
from typer.testing import CliRunner

from coworkenv.cli import app
from tests.faults.harness import refused, snapshot, stage_inputs


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    inputs = stage_inputs(tmp_path_factory.mktemp("inputs"))
    frame = pl.read_parquet(sorted(Path(inputs["traj"]).glob("*.parquet")))
    return {"traj": inputs["traj"], "capabilities": sorted(set(frame["capability"].to_list()))}


def _names(made: dict[str, object]) -> tuple[str, str]:
    first, second = made["capabilities"]  # type: ignore[misc]
    return str(first), str(second)


CASES = {
    "misspelt": (lambda a, b: a[:3] + a[4:], "did you mean {a!r}"),
    "letter-case": (lambda a, b: a.upper(), "did you mean {a!r}"),
    "trailing-blank": (lambda a, b: a + " ", "did you mean {a!r}"),
    "two-in-one-option": (lambda a, b: f"{a},{b}", "--heldout-capability {a} --heldout-capability {b}"),
    "an-area": (lambda a, b: "tickets", "Capabilities there: {a}, {b}"),
    "not-in-this-run": (lambda a, b: "ticket_triage_update", "Capabilities there: {a}, {b}"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_heldout_capability_the_trajectories_do_not_hold_is_refused_before_writing(
        made: dict[str, object], tmp_path: Path, case: str) -> None:
    a, b = _names(made)
    given, needle = CASES[case][0](a, b), CASES[case][1].format(a=a, b=b)
    out = tmp_path / "sft"
    before = snapshot(Path(str(made["traj"])))
    refused(["curate", str(made["traj"]), "--out", str(out), "--heldout-capability", given],
            f"--heldout-capability {given!r}: no trajectory in", "nothing would be held out", needle)
    assert not out.exists()
    assert snapshot(Path(str(made["traj"]))) == before


@pytest.mark.parametrize("twice", [False, True])
def test_guard_a_capability_the_trajectories_hold_is_held_out(made: dict[str, object], tmp_path: Path,
                                                              twice: bool) -> None:
    """Regression guard: held out as on main; its rows are in test_heldout and none in train."""
    a, b = _names(made)
    args = ["curate", str(made["traj"]), "--out", str(tmp_path), "--heldout-capability", a]
    result = CliRunner().invoke(app, [*args, "--heldout-capability", b] if twice else args)
    assert result.exit_code == 0, result.output
    report = orjson.loads((tmp_path / "curation_report.json").read_bytes())
    assert report["splits"]["test_heldout"]["rows"] > 0
    assert a not in report["train_by_capability"]
