"""`coworkenv synth --json`: the summary is JSON for every capability, whatever keys its diversity report has."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from coworkenv.cli import app

TAXONOMY = str(Path(__file__).resolve().parents[1] / "taxonomy")


def test_synth_json_summary_with_integer_histogram_keys(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["synth", "--taxonomy", TAXONOMY, "--capability", "incident_investigate_fix",
                                      "--n", "3", "--seed", "1", "--out", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.stdout)
    assert row["specs"] == 3 and Path(row["path"]).is_file()
    diversity = row["diversity"]
    assert sum(diversity["difficulty"].values()) == 3 and sum(diversity["turns"].values()) == 3
    assert all(key.isdigit() for key in [*diversity["difficulty"], *diversity["turns"]])
