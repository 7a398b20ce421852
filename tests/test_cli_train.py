"""`coworkenv train sft | rl | rl-compare` end to end on tiny models (real sampling, CPU, seconds)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from coworkenv.agents import OraclePolicy
from coworkenv.env import Env
from coworkenv.rollout import run_agent
from coworkenv.spec import EnvSpec
from coworkenv.store.stages import sft_table
from coworkenv.synth.generate import generate_specs
from coworkenv.synth.taxonomy import load_taxonomy
from trainers.cli.train import app

TINY = """
name: NAME
model:
  source: tiny
  chat_template: qwen3_training
  tiny: {hidden_size: 32, intermediate_size: 64, num_hidden_layers: 1, num_attention_heads: 2,
         num_key_value_heads: 1, head_dim: 16, min_token_frequency: 1}
"""
RL_TINY = TINY + """
rollout: {max_new_tokens: 8, max_agent_steps: 3, max_completion_tokens: 160}
training: {max_steps: 2, num_generations: 2, per_device_train_batch_size: 2, learning_rate: 1.0e-3}
"""
SFT_TINY = TINY + """
training: {max_length: 4096, max_steps: 2, per_device_train_batch_size: 2, learning_rate: 1.0e-3}
"""


@pytest.fixture(scope="module")
def specs() -> list[EnvSpec]:
    taxonomy = load_taxonomy(Path("taxonomy"))
    return generate_specs(taxonomy["delegate_and_follow_up"], 1, 0) + generate_specs(taxonomy["reschedule_conflict"], 1, 0)


@pytest.fixture
def envs(tmp_path: Path, specs: list[EnvSpec]) -> Path:
    folder = tmp_path / "envs"
    folder.mkdir()
    pq.write_table(pa.table({"spec_json": [s.to_json() for s in specs]}), folder / "validated-0.parquet")
    return folder


def _config(tmp_path: Path, text: str, name: str) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(text.replace("NAME", name))
    return path


def test_train_rl_runs_a_variant_with_real_sampling(tmp_path: Path, envs: Path) -> None:
    config = _config(tmp_path, RL_TINY, "rl-cli")
    result = CliRunner().invoke(app, ["rl", "--config", str(config), "--envs", str(envs), "--reward", "shaped",
                                      "--credit", "turn", "--out", str(tmp_path / "rl"), "--json"])
    assert result.exit_code == 0, result.output
    run = json.loads(result.stdout)
    assert run["steps"] == 2 and run["reward"] == "shaped" and run["credit"] == "turn"
    assert [entry["step"] for entry in run["log"]] == [1.0, 2.0]
    assert all(0.0 <= entry["env/score"] <= 1.0 for entry in run["log"])
    assert (tmp_path / "rl" / "reward_curve.png").is_file() and (tmp_path / "rl" / "config.json").is_file()


def test_train_rl_compare_writes_a_labelled_table(tmp_path: Path, envs: Path) -> None:
    config = _config(tmp_path, RL_TINY, "rl-cli")
    out = tmp_path / "compare"
    result = CliRunner().invoke(app, ["rl-compare", "--config", str(config), "--envs", str(envs), "--out", str(out),
                                      "--max-steps", "1", "--reward", "partial", "--credit", "trajectory",
                                      "--credit", "turn"])
    assert result.exit_code == 0, result.output
    table = (out / "comparison.md").read_text()
    assert re.search(r"\*\*toy scale: tiny randomly initialised model \([0-9.]+M parameters\) on CPU\.\*\*", table)
    assert "| partial | trajectory | 1 |" in table and "| partial | turn | 1 |" in table
    saved = json.loads((out / "comparison.json").read_text())
    assert [(v["reward"], v["credit"]) for v in saved["variants"]] == [("partial", "trajectory"), ("partial", "turn")]
    assert (out / "comparison.png").read_bytes()[:4] == b"\x89PNG"
    assert (out / "partial-turn" / "rl_log.json").is_file()


def test_train_sft_trains_on_shards(tmp_path: Path, specs: list[EnvSpec]) -> None:
    shards = tmp_path / "shards"
    shards.mkdir()
    records = [run_agent(Env(s), OraclePolicy(s)) for s in specs]
    pq.write_table(sft_table(records), shards / "train-00000-of-00001.parquet")
    config = _config(tmp_path, SFT_TINY, "sft-cli")
    result = CliRunner().invoke(app, ["sft", "--config", str(config), "--data", str(shards),
                                      "--out", str(tmp_path / "sft"), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["steps"] == 2
    assert (tmp_path / "sft" / "loss_curve.png").is_file()


def test_train_errors_are_actionable(tmp_path: Path, envs: Path) -> None:
    missing = CliRunner().invoke(app, ["rl", "--config", "rl-tiny", "--envs", str(tmp_path / "none"),
                                       "--out", str(tmp_path / "o")])
    assert missing.exit_code == 2 and "no such file or folder" in missing.output
    unknown = CliRunner().invoke(app, ["rl", "--config", "rl-nope", "--envs", str(envs), "--out", str(tmp_path / "o")])
    assert unknown.exit_code == 2 and "known names" in unknown.output
    bad_reward = CliRunner().invoke(app, ["rl", "--config", "rl-tiny", "--envs", str(envs), "--out",
                                          str(tmp_path / "o"), "--reward", "dense"])
    assert bad_reward.exit_code == 2 and "binary" in bad_reward.output
