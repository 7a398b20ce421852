"""Fault corpus, the checkpoint eval_report evaluates trained again before its report is published: a training saving
into the same folder (`coworkenv train sft --out` by hand, a second pipeline run of pocketworker_checkpoint) while
the base or the SFT model is evaluated, or between pocketworker_checkpoint's materialization and eval_report. The
training puts a whole, self-consistent checkpoint in place (its own record of its files), so no check of the folder
can see it. On `main` eval_report copied the folder for its publish after the evaluation: the model repository got
the new weights in a version named `<model_tag>-eval` carrying the numbers measured of the earlier ones.

Each case runs the real asset on an ephemeral instance: two tiny checkpoints (other weights) saved once per module
as a training saves them, a real evaluation of one example env (one step of 4 tokens), a real local publish; the
"training again" is `replace_dir` of the second checkpoint, as `train_sft` ends.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import dagster as dg
import pytest

pytest.importorskip("transformers")

import assets.training as training_assets
import trainers.evaluate
from coworkenv.examples import load_example
from pipelines.resources import CoworkenvSettings
from trainers.checkpoint_files import checkpoint_staging, replace_dir
from trainers.config import load_sft_config
from trainers.sft import RUN_METADATA

SPEC = load_example("meeting_reschedule")


def _save(source: Path | None, out_dir: Path, seed: int = 0) -> Path:
    """A tiny checkpoint put in place at `out_dir` as a training puts one; built from `seed`, or copied from `source`."""
    from trainers.chat_templates import trl_chat_template
    from trainers.rendering import write_rendering
    from trainers.tiny_model import TinyModelSpec, build_tiny_model

    with checkpoint_staging(out_dir) as staging:
        if source is not None:
            shutil.copytree(source, staging, dirs_exist_ok=True)
            (staging / "checkpoint_files.json").unlink()
        else:
            spec = TinyModelSpec(vocab_size=300, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                                 num_attention_heads=2, num_key_value_heads=1, head_dim=16, min_token_frequency=1)
            model, tokenizer = build_tiny_model(["<|im_start|>user\nhello<|im_end|>\n"] * 4, spec, seed,
                                                trl_chat_template("qwen3_training"))
            model.save_pretrained(staging)
            tokenizer.save_pretrained(staging)
            write_rendering(staging, "compact")
            (staging / RUN_METADATA).write_text(json.dumps({"config": load_sft_config("tiny").to_dict()}))
        replace_dir(staging, out_dir)
    return out_dir


@pytest.fixture(scope="module")
def trainings(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the checkpoint materialized, the one a training saves over it later): the same shapes, other weights."""
    root = tmp_path_factory.mktemp("trainings")
    return _save(None, root / "first", seed=0), _save(None, root / "second", seed=1)


def _weights(record: bytes) -> str:
    return str(json.loads(record)["files"]["model.safetensors"]["sha256"])


def _run(tmp_path: Path, trainings: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch,
         retrain_after: str | None, record_of: Path | None = None) -> tuple[dg.MaterializeResult, Path]:
    first, second = trainings
    checkpoint = _save(first, tmp_path / "data" / "checkpoints" / "pocketworker-tiny-v1-abc")
    metadata: dict[str, Any] = {"checkpoint": dg.MetadataValue.path(str(checkpoint)), "model_tag": "tiny-v1-abc",
                                "trained_on": "v1", "steps": 3}
    if record_of is not None:  # as pocketworker_checkpoint records it since this class: its record's hash
        metadata["checkpoint_record"] = hashlib.sha256((record_of / "checkpoint_files.json").read_bytes()).hexdigest()
    instance = dg.DagsterInstance.ephemeral()
    instance.report_runless_asset_event(dg.AssetMaterialization(asset_key="pocketworker_checkpoint",
                                                                metadata=metadata))
    monkeypatch.setattr(training_assets, "held_out_specs", lambda *_: [SPEC])
    evaluate = trainers.evaluate.evaluate

    def evaluate_then_train(model: Any, *args: Any, **kwargs: Any) -> Any:
        report = evaluate(model, *args, **kwargs)
        if model.name == retrain_after:
            _save(second, checkpoint)  # a training saving into the folder while the evaluation runs
        elif f"{model.name} (in place)" == retrain_after:  # `cp other/model.safetensors ckpt/` writes into the file
            (checkpoint / "model.safetensors").write_bytes((second / "model.safetensors").read_bytes())
        return report

    monkeypatch.setattr(trainers.evaluate, "evaluate", evaluate_then_train)
    if retrain_after == "materialized":
        _save(second, checkpoint)
    settings = CoworkenvSettings(data_dir=str(tmp_path / "data"), train_config="tiny", eval_k=1, eval_max_steps=1,
                                 eval_max_tokens=4)
    result = training_assets.eval_report(dg.build_asset_context(instance=instance), settings)
    return result, tmp_path / "data" / "hub" / "model"


def _published_record(repo: Path, tag: str) -> bytes:
    return subprocess.run(["git", "-C", str(repo), "show", f"{tag}:checkpoint_files.json"], check=True,
                          capture_output=True).stdout


@pytest.mark.parametrize("retrain_after", ["base-untrained", "pocketworker-sft", "pocketworker-sft (in place)"])
def test_the_report_publishes_the_checkpoint_it_evaluated(tmp_path: Path, trainings: tuple[Path, Path],
                                                         monkeypatch: pytest.MonkeyPatch, retrain_after: str) -> None:
    """Trained again while the base (`base-untrained`) or the SFT model was evaluated: on `main` the version
    published held the second training's weights under the first one's numbers and tag. The weights written in place
    after the SFT model's evaluation: on `main` refused after the whole evaluation (its copy, made then, no longer
    matched the record), the evaluation lost; the copy evaluated is published."""
    first, _ = trainings
    result, repo = _run(tmp_path, trainings, monkeypatch, retrain_after, record_of=first)
    tag = str(result.metadata["model_tag"])  # type: ignore[index]
    assert _weights(_published_record(repo, tag)) == _weights((first / "checkpoint_files.json").read_bytes())


def test_a_checkpoint_trained_again_since_its_materialization_is_refused(tmp_path: Path,
                                                                        trainings: tuple[Path, Path],
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Trained again between pocketworker_checkpoint's materialization and eval_report: on `main` the second
    training was evaluated and published as `tiny-v1-abc-eval`, the first one's version; it must be refused,
    naming what to do, with nothing published."""
    first, _ = trainings
    with pytest.raises(dg.Failure, match=r"trained or copied again since.*Materialize pocketworker_checkpoint again"):
        _run(tmp_path, trainings, monkeypatch, "materialized", record_of=first)
    assert not (tmp_path / "data" / "hub" / "model").exists()


def test_guard_an_untouched_checkpoint_and_an_earlier_materialization_are_evaluated_and_published(
        tmp_path: Path, trainings: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """Guard: nothing trained in between, and a materialization made before it recorded the checkpoint's record."""
    first, _ = trainings
    result, repo = _run(tmp_path, trainings, monkeypatch, None)
    tag = str(result.metadata["model_tag"])  # type: ignore[index]
    assert _weights(_published_record(repo, tag)) == _weights((first / "checkpoint_files.json").read_bytes())
    report_dir = tmp_path / "data" / "checkpoints" / "pocketworker-tiny-v1-abc-eval"
    assert (report_dir / "eval_report.json").is_file() and not list(report_dir.glob(".coworkenv-evaluated-*"))
