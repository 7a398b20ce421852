"""One spec reader for every stage: spec JSON files, folders of them, and Parquet of synth, validate's candidates
or its accepted envs; bad input is one clear line naming the file (and row or line), exit 2, no traceback."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from coworkenv.cli import app
from coworkenv.examples import example_names, load_example
from coworkenv.rollout import OracleTeacher, rollout_specs
from coworkenv.store.stages import (
    SpecSourceError,
    read_spec_rows,
    read_specs,
    specs_table,
    write_specs,
    write_trajectories,
)
from coworkenv.validate import Candidate, procedural_candidates

runner = CliRunner()
NAMES = example_names()


def _bad(args: list[str], *needles: str) -> str:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and isinstance(result.exception, SystemExit | None)
    lines = [line for line in result.output.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1, result.output
    for needle in needles:
        assert needle in lines[0], result.output
    return lines[0]


@pytest.fixture
def spec_folder(tmp_path: Path) -> Path:
    """Every example as its own JSON file, beside files a stage folder also holds that are not specs."""
    folder = tmp_path / "specs"
    folder.mkdir()
    for name in NAMES:
        (folder / f"{name}.json").write_text(load_example(name).to_json())
    (folder / "funnel.json").write_text(json.dumps({"generated": 3, "accepted": 3}))
    pq.write_table(pa.table({"gate": ["oracle"], "last_payload": ["{}"]}), folder / "rejected.parquet")
    return folder


# -- the reader -----------------------------------------------------------------------------------------------------
def test_every_stage_format_reads_back_the_same_specs(tmp_path: Path, spec_folder: Path) -> None:
    specs = [load_example(n) for n in NAMES]
    ids = sorted(s.id for s in specs)
    write_specs(procedural_candidates(specs), tmp_path / "synth.parquet")
    pq.write_table(specs_table([Candidate(s.capability, s, origin=f"c{i}") for i, s in enumerate(specs)]),
                   tmp_path / "candidates.parquet")
    (tmp_path / "list.json").write_text(json.dumps([json.loads(s.to_json()) for s in specs]))
    (tmp_path / "lines.jsonl").write_text("\n".join(s.to_json() for s in specs) + "\n")
    for source in ("synth.parquet", "candidates.parquet", "list.json", "lines.jsonl"):
        assert sorted(s.id for s in read_specs(tmp_path / source)) == ids, source
    assert sorted(s.id for s in read_specs(spec_folder)) == ids  # funnel.json and rejected.parquet passed over
    rows = read_spec_rows(tmp_path / "candidates.parquet")
    assert [r.origin for r in rows] == [f"c{i}" for i in range(len(specs))]
    assert rows[0].where == f"{tmp_path / 'candidates.parquet'} row 0"


@pytest.mark.parametrize(("write", "says"), [
    (lambda p: p.write_text('{"capability": "x",\n  "world": }'), "not valid JSON at line 2 column"),
    (lambda p: p.write_text("[1, 2]"), "[0]: a spec is a JSON object, got int"),
])
def test_bad_json_names_the_file_and_line(tmp_path: Path, write: object, says: str) -> None:
    path = tmp_path / "spec.json"
    write(path)  # type: ignore[operator]
    with pytest.raises(SpecSourceError, match=r"spec\.json") as caught:
        read_specs(path)
    assert says in str(caught.value)


def test_a_bad_jsonl_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "specs.jsonl"
    path.write_text(load_example(NAMES[0]).to_json() + "\n{oops\n")
    with pytest.raises(SpecSourceError, match=r"specs\.jsonl line 2: not valid JSON at line 1 column 2"):
        read_specs(path)


# -- bad inputs at the command line ------------------------------------------------------------------------------
def test_integer_spec_json_column_is_named(tmp_path: Path) -> None:
    path = tmp_path / "ints.parquet"
    pq.write_table(pa.table({"spec_json": [1, 2]}), path)
    for args in (["validate", str(path), "--out", str(tmp_path / "o")],
                 ["rollout", str(path), "--out", str(tmp_path / "o")],
                 ["eval", "--model", "x", "--envs", str(path)],
                 ["env", "run", str(path)]):
        _bad(args, str(path), "column 'spec_json' holds int64, a specs file has string")


def test_a_corrupt_parquet_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "specs" / "broken.parquet"
    path.parent.mkdir()
    path.write_bytes(b"PAR1 this is not parquet")
    for args in (["validate", str(path.parent), "--out", str(tmp_path / "o")],
                 ["rollout", str(path), "--out", str(tmp_path / "o")],
                 ["env", "run", str(path)]):
        _bad(args, str(path), "not a readable Parquet file")
    assert not (tmp_path / "o").exists()


def test_a_spec_that_fails_its_checks_names_the_file_and_row(tmp_path: Path) -> None:
    raw = orjson.loads(load_example("incident_rollback").to_json())
    raw["checks"][0]["rule"]["target"]["id"] = "svc-ghost"
    path = tmp_path / "envs.parquet"
    pq.write_table(pa.table({"spec_json": [load_example(NAMES[0]).to_json(), orjson.dumps(raw).decode()]}), path)
    result = runner.invoke(app, ["rollout", str(path), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and f"{path} row 1" in result.output and "svc-ghost" in result.output


def test_curate_names_a_corrupt_or_wrongly_typed_trajectory_file(tmp_path: Path) -> None:
    good = tmp_path / "traj"
    write_trajectories(rollout_specs([load_example(NAMES[0])], OracleTeacher()), good, written_by="rollout")
    broken = good / "zz-broken.parquet"
    broken.write_bytes(b"not parquet at all")
    _bad(["curate", str(good), "--out", str(tmp_path / "sft")], str(broken), "not a readable Parquet file")
    broken.unlink()
    typed = tmp_path / "typed.parquet"
    table = pq.read_table(next(good.glob("*.parquet")))
    table = table.set_column(table.schema.get_field_index("passed"), "passed", pa.array(["yes"] * table.num_rows))
    pq.write_table(table, typed)
    _bad(["curate", str(typed), "--out", str(tmp_path / "sft")], str(typed), "column 'passed' holds string")


def test_missing_and_foreign_inputs_say_what_to_pass(tmp_path: Path) -> None:
    _bad(["validate", str(tmp_path / "nope"), "--out", str(tmp_path / "o")], "no such file or folder")
    (tmp_path / "notes.txt").write_text("hi")
    _bad(["rollout", str(tmp_path / "notes.txt"), "--out", str(tmp_path / "o")], "not a spec file")


# -- spec files everywhere -------------------------------------------------------------------------------------------
def test_env_run_plays_every_spec_of_a_folder(spec_folder: Path) -> None:
    result = runner.invoke(app, ["env", "run", str(spec_folder), "--json"])
    assert result.exit_code == 0, result.output
    runs = json.loads(result.stdout)
    assert sorted(r["env_id"] for r in runs) == sorted(load_example(n).id for n in NAMES)
    assert all(r["passed"] for r in runs)
    one = load_example(NAMES[1]).id
    picked = runner.invoke(app, ["env", "run", str(spec_folder), "--env-id", one, "--json"])
    assert picked.exit_code == 0 and json.loads(picked.stdout)["env_id"] == one
    _bad(["env", "tools", str(spec_folder)], f"holds {len(NAMES)} specs", "--env-id")
    _bad(["env", "run", str(spec_folder), "--env-id", "env-nope"], "no spec with id 'env-nope'")


def test_validate_rollout_and_eval_take_a_spec_json_file_or_folder(spec_folder: Path, tmp_path: Path) -> None:
    one = spec_folder / f"{NAMES[0]}.json"
    validated = runner.invoke(app, ["validate", str(one), "--out", str(tmp_path / "v"), "--json"])
    assert validated.exit_code == 0, validated.output
    assert json.loads(validated.stdout)["accepted"] == 1
    rolled = runner.invoke(app, ["rollout", str(spec_folder), "--out", str(tmp_path / "r"), "--json"])
    assert rolled.exit_code == 0, rolled.output
    assert json.loads(rolled.stdout)["episodes"] == len(NAMES)
    # validate's own output folder feeds the next stage as it is (accepted.parquet, rejected.parquet, funnel.json)
    again = runner.invoke(app, ["rollout", str(tmp_path / "v"), "--out", str(tmp_path / "r2"), "--json"])
    assert again.exit_code == 0 and json.loads(again.stdout)["episodes"] == 1


def test_an_out_path_that_is_a_file_is_refused_before_any_work(tmp_path: Path, spec_folder: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("a file")
    for args in (["validate", str(spec_folder), "--out", str(blocker)],
                 ["rollout", str(spec_folder), "--out", str(blocker / "sub")],
                 ["curate", str(spec_folder), "--out", str(blocker)],
                 ["synth", "--taxonomy", str(Path(__file__).resolve().parents[1] / "taxonomy"), "--capability",
                  "adapt_announced_change", "--n", "1", "--out", str(blocker)]):
        _bad(args, f"{blocker} is a file, not a folder")


def test_curate_names_a_file_that_is_not_trajectories(tmp_path: Path) -> None:
    specs = tmp_path / "mixed"
    write_trajectories(rollout_specs([load_example(NAMES[0])], OracleTeacher()), specs, written_by="rollout")
    write_specs(procedural_candidates([load_example(NAMES[0])]), specs / "specs.parquet")
    _bad(["curate", str(specs), "--out", str(tmp_path / "sft")], str(specs / "specs.parquet"),
         "not a trajectories file")
