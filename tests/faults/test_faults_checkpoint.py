"""Fault corpus, checkpoints and evaluation output: a checkpoint folder missing its tokenizer or config, or with
damaged weights (an interrupted save or copy), and `coworkenv eval --out` killed between its report files. Loading
is refused with one line naming the folder and what to do, with nothing written; the killed evaluation leaves only
whole files, and running it again writes the complete report."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from coworkenv.cli import app
from tests.faults.harness import refused, run_child, spec_folder, temp_files

pytest.importorskip("transformers")
runner = CliRunner()
SIGKILLED = -9


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny, randomly initialised checkpoint with its tokenizer, saved as training saves one."""
    from trainers.chat_templates import trl_chat_template
    from trainers.tiny_model import TinyModelSpec, build_tiny_model

    spec = TinyModelSpec(vocab_size=300, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=1, head_dim=16, min_token_frequency=1)
    model, tokenizer = build_tiny_model(["<|im_start|>user\nhello<|im_end|>\n"] * 4, spec, 0,
                                        trl_chat_template("qwen3_training"))
    folder = tmp_path_factory.mktemp("checkpoint") / "ckpt"
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def envs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return spec_folder(tmp_path_factory.mktemp("envs") / "specs")


def _eval_args(model: Path, envs: Path, out: Path) -> list[str]:
    return ["eval", "--model", str(model), "--envs", str(envs), "--max-steps", "1", "--max-tokens", "4",
            "--out", str(out)]


def _damaged(checkpoint: Path, where: Path, damage: str) -> Path:
    folder = where / "ckpt"
    shutil.copytree(checkpoint, folder)
    weights = folder / "model.safetensors"
    if damage == "weights cut short":
        weights.write_bytes(weights.read_bytes()[: weights.stat().st_size // 3])
    elif damage == "weights a Git LFS pointer":  # cloned from a hub without Git LFS: whole, only not fetched
        data = weights.read_bytes()
        weights.write_text(f"version https://git-lfs.github.com/spec/v1\noid sha256:{hashlib.sha256(data).hexdigest()}"
                           f"\nsize {len(data)}\n")
    else:
        (folder / damage).unlink()
    return folder


@pytest.mark.parametrize(("damage", "says"), [("tokenizer.json", "tokenizer"), ("chat_template.jinja", "no chat template"),
                                             ("config.json", "no config.json"), ("weights cut short", "cut short or damaged"),
                                             ("weights a Git LFS pointer", "git lfs pull")])
def test_a_checkpoint_missing_a_file_or_with_cut_weights_is_named_and_nothing_written(
        checkpoint: Path, envs: Path, tmp_path: Path, damage: str, says: str) -> None:
    folder = _damaged(checkpoint, tmp_path, damage)
    refused(_eval_args(folder, envs, tmp_path / "out"), str(folder), says)
    assert not (tmp_path / "out").exists()


def test_an_eval_killed_between_its_report_files_leaves_whole_files_and_a_rerun_completes(
        checkpoint: Path, envs: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = _eval_args(checkpoint, envs, out)
    # the report files go into place together (coworkenv.atomic.files_together): the kill falls between their renames
    killed = run_child(args, kill=("coworkenv.atomic:_place:1:after",), preloaded=True)  # after eval_report.md, before .json
    assert killed.returncode == SIGKILLED, killed.stderr
    # the one file placed is whole; the others are still temp files (runs/ holds its episodes' one)
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file() and not p.name.startswith(".")) \
        == ["eval_report.md"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert {"eval_report.md", "eval_report.json", "eval_report.png", "runs"} <= {p.name for p in out.iterdir()}
    assert json.loads((out / "eval_report.json").read_text())["reports"]
    assert temp_files(out) == []


@pytest.mark.parametrize("error", [
    "safetensors: Error while serializing: I/O error: File too large (os error 27)",  # what a full disk gives
    "tokenizers: No space left on device (os error 28)",
])
def test_a_full_disk_during_a_checkpoint_save_is_one_line_not_a_traceback(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: str) -> None:
    """`coworkenv train sft` saves through safetensors and tokenizers, whose errors are their own types quoting the
    OS error: run under a file size limit, it ended in a traceback. (The trainer saves into a staging folder, so
    the checkpoint at --out stays the previous one; that was whole in the same run.)"""
    import trainers.sft

    library, message = error.split(": ", 1)
    kind = type("SafetensorError" if library == "safetensors" else "Exception", (Exception,), {})

    def save_fails(*args: object, **kwargs: object) -> None:
        raise kind(message)

    monkeypatch.setattr(trainers.sft, "train_sft", save_fails)
    line = refused(["train", "sft", "--config", "tiny", "--data", str(tmp_path), "--out", str(tmp_path / "ckpt")],
                   message.split(" (os error")[0], code=1)
    assert "free disk space" in line
