"""`coworkenv rollout` and `coworkenv curate` end to end on the shipped examples."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import typer
from typer.testing import CliRunner

from coworkenv.cli.curate import REPORT_NAME, curate_command
from coworkenv.cli.rollout import rollout_command
from coworkenv.examples import example_names, load_example
from coworkenv.store.stages import SpecSourceError, read_specs, read_trajectories
from tests.support.fake_openai_server import FakeOpenAIServer

app = typer.Typer()
app.command("rollout")(rollout_command)
app.command("curate")(curate_command)
runner = CliRunner()


@pytest.fixture
def envs_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "envs"
    folder.mkdir()
    specs = [load_example(n).to_json() for n in example_names()]
    pq.write_table(pa.table({"spec_json": specs[:2]}), folder / "part-0.parquet")
    pq.write_table(pa.table({"spec_json": specs[2:]}), folder / "part-1.parquet")
    return folder


def test_rollout_then_curate(envs_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "traj"
    result = runner.invoke(app, ["rollout", str(envs_dir), "--teacher", "oracle", "--k", "2", "--out", str(out),
                                 "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    n = len(example_names())
    assert summary["episodes"] == 2 * n and summary["passed"] == 2 * n and summary["mean_score"] == 1.0
    records = read_trajectories(Path(summary["path"]))
    assert len(records) == 2 * n and {r.sample_index for r in records} == {0, 1}

    shards = tmp_path / "sft"
    result = runner.invoke(app, ["curate", str(out), "--out", str(shards), "--json", "--validation-fraction", "0",
                                 "--test-fraction", "0"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["input_rows"] == 2 * n and report["kept_rows"] == 2 * n
    assert report["shards"] == ["train-00000-of-00001.parquet"]
    assert json.loads((shards / REPORT_NAME).read_text())["kept_rows"] == 2 * n
    assert pq.read_metadata(shards / "train-00000-of-00001.parquet").num_rows == 2 * n

    text = runner.invoke(app, ["curate", str(out), "--out", str(shards)])
    assert text.exit_code == 0 and "kept" in text.stdout and "train" in text.stdout


def _answer_in_one_message(body: dict[str, object]) -> dict[str, object]:
    return {"content": "I looked into it."}


def test_rollout_with_an_llm_teacher_url(envs_dir: Path, tmp_path: Path) -> None:
    with FakeOpenAIServer(responder=_answer_in_one_message) as server:
        result = runner.invoke(app, ["rollout", str(envs_dir), "--llm", server.url, "--model", "fake",
                                     "--k", "2", "--out", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["episodes"] == 2 * len(example_names()) and summary["passed"] == 0
    records = read_trajectories(Path(summary["path"]))
    assert {r.model for r in records} == {"openai:fake"} and {r.sampling["seed"] for r in records} == {0, 1}


def test_cli_errors_are_actionable(envs_dir: Path, tmp_path: Path) -> None:
    missing = runner.invoke(app, ["rollout", str(tmp_path / "none"), "--out", str(tmp_path)])
    assert missing.exit_code == 2 and "no such file or folder" in missing.output
    other = tmp_path / "other"
    other.mkdir()
    pq.write_table(pa.table({"other": [1]}), other / "x.parquet")
    wrong = runner.invoke(app, ["rollout", str(other), "--out", str(tmp_path / "o")])
    assert wrong.exit_code == 2 and "spec_json" in wrong.output
    teacher = runner.invoke(app, ["rollout", str(envs_dir), "--teacher", "gpt", "--out", str(tmp_path / "o")])
    assert teacher.exit_code == 2 and "unknown teacher" in teacher.output
    curate_missing = runner.invoke(app, ["curate", str(tmp_path / "none"), "--out", str(tmp_path / "o")])
    assert curate_missing.exit_code == 2 and "no such file" in curate_missing.output


def test_rollout_reads_a_validate_output_folder(tmp_path: Path) -> None:
    """`coworkenv validate` writes accepted.parquet beside rejected.parquet; rollout takes the folder as it is."""
    spec = load_example("incident_rollback")
    pq.write_table(pa.table({"env_id": [spec.id], "spec_json": [spec.to_json()]}), tmp_path / "accepted.parquet")
    pq.write_table(pa.table({"gate": ["oracle"], "last_payload": ["{}"]}), tmp_path / "rejected.parquet")
    assert [s.id for s in read_specs(tmp_path)] == [spec.id]
    (tmp_path / "accepted.parquet").unlink()
    with pytest.raises(SpecSourceError, match="no specs found"):
        read_specs(tmp_path)


def test_rollout_add_keeps_another_spec_set_beside_the_earlier_one(envs_dir: Path, tmp_path: Path) -> None:
    """Without --add a folder holding episodes of envs the specs do not hold is refused (an earlier run's, of specs
    changed since: tests/faults/test_faults_rollout_earlier_episodes.py); with it both spec sets' files are kept."""
    first = tmp_path / "first"
    first.mkdir()
    (first / "a.json").write_text(load_example(example_names()[0]).to_json())
    out = tmp_path / "traj"
    assert runner.invoke(app, ["rollout", str(envs_dir), "--out", str(out)]).exit_code == 0
    refused = runner.invoke(app, ["rollout", str(first), "--out", str(out), "--seed", "1"])
    assert refused.exit_code == 2 and "--add" in refused.output, refused.output
    added = runner.invoke(app, ["rollout", str(first), "--out", str(out), "--seed", "1", "--add"])
    assert added.exit_code == 0, added.output
    assert len(list(out.glob("trajectories-*.parquet"))) == 2
