"""Fault corpus, a checkpoint folder whose files changed after its training saved it: a tokenizer file, config.json,
generation_config.json or rendering.json edited (each still valid), a file removed, the weights' bytes changed, a file
that loading reads put beside (`added_tokens.json`, `chat_template.jinja`). Evaluation, the start of `train rl` and
the untrained twin loaded them as they were, without a word: other weights, another tokenizer or another rendering
than the ones trained. Each training now records the sha256 of every file it saves (`checkpoint_files.json`, written
by `replace_dir`), and each loader refuses a file that differs, naming it and what to do."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

pytest.importorskip("transformers")

from trainers.checkpoint_files import checkpoint_staging, replace_dir
from trainers.local_backend import load_checkpoint, untrained_twin
from trainers.rendering import read_rendering, write_rendering


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_checkpoint(tmp_path_factory.mktemp("saved") / "ckpt")


def save_tiny_checkpoint(out_dir: Path) -> Path:
    """A tiny checkpoint put in place at `out_dir` as a training puts one (staging folder, `replace_dir`)."""
    from trainers.chat_templates import trl_chat_template
    from trainers.tiny_model import TinyModelSpec, build_tiny_model

    spec = TinyModelSpec(vocab_size=300, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=1, head_dim=16, min_token_frequency=1)
    model, tokenizer = build_tiny_model(["<|im_start|>user\nhello<|im_end|>\n"] * 4, spec, 0,
                                        trl_chat_template("qwen3_training"))
    with checkpoint_staging(out_dir) as staging:
        model.save_pretrained(staging)
        tokenizer.save_pretrained(staging)
        write_rendering(staging, "compact")
        replace_dir(staging, out_dir)
    return out_dir


def _edit_json(name: str, change: Callable[[dict], object]) -> Callable[[Path], None]:
    def edit(folder: Path) -> None:
        value = json.loads((folder / name).read_text())
        change(value)
        (folder / name).write_text(json.dumps(value))
    return edit


def _flip_weights(folder: Path) -> None:  # still a valid safetensors file: other weights, same shapes
    path = folder / "model.safetensors"
    data = bytearray(path.read_bytes())
    data[-8:] = bytes(255 - b for b in data[-8:])
    path.write_bytes(bytes(data))


def _rename_token(value: dict) -> None:
    vocab = value["model"]["vocab"]
    first = next(token for token in vocab if token.isalpha())
    vocab["X" + first] = vocab.pop(first)


# (the file the error must name, the change)
CHANGES: dict[str, tuple[str, Callable[[Path], object]]] = {
    "tokenizer_config.json model_max_length edited": ("tokenizer_config.json", _edit_json(
        "tokenizer_config.json", lambda v: v.update(model_max_length=8))),
    "chat_template.jinja edited": ("chat_template.jinja", lambda f: (f / "chat_template.jinja").write_text(
        (f / "chat_template.jinja").read_text().replace("<|im_end|>", "</s>"))),
    "tokenizer.json a token renamed": ("tokenizer.json", _edit_json("tokenizer.json", _rename_token)),
    "config.json rms_norm_eps edited": ("config.json", _edit_json("config.json", lambda v: v.update(rms_norm_eps=0.5))),
    "generation_config.json temperature added": ("generation_config.json", _edit_json(
        "generation_config.json", lambda v: v.update(do_sample=True, temperature=3.0))),
    "generation_config.json removed": ("generation_config.json", lambda f: (f / "generation_config.json").unlink()),
    "rendering.json removed": ("rendering.json", lambda f: (f / "rendering.json").unlink()),
    "weights' bytes changed": ("model.safetensors", _flip_weights),
    "added_tokens.json put beside": ("added_tokens.json",
                                     lambda f: (f / "added_tokens.json").write_text('{"<extra>": 400}')),
    "special_tokens_map.json put beside": ("special_tokens_map.json", lambda f: (
        f / "special_tokens_map.json").write_text('{"eos_token": "<|im_start|>"}')),
}


def _changed(saved: Path, tmp_path: Path, change: str) -> tuple[Path, str]:
    folder = tmp_path / "ckpt"
    shutil.copytree(saved, folder)
    name, how = CHANGES[change]
    how(folder)
    return folder, name


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_loading_a_checkpoint_changed_after_its_save_is_refused_naming_the_file(
        saved: Path, tmp_path: Path, change: str) -> None:
    folder, name = _changed(saved, tmp_path, change)
    with pytest.raises(ValueError) as refused:
        load_checkpoint(folder)
    message = str(refused.value)
    assert str(folder / name) in message and "again" in message, message


def test_an_edited_rendering_json_is_refused_where_it_is_read(saved: Path, tmp_path: Path) -> None:
    folder = tmp_path / "ckpt"
    shutil.copytree(saved, folder)
    write_rendering(folder, "full")  # a valid mode, not the one trained with
    with pytest.raises(ValueError, match=r"rendering\.json is not the file this checkpoint was saved with"):
        read_rendering(folder)


def test_an_untrained_twin_of_a_changed_checkpoint_is_refused(saved: Path, tmp_path: Path) -> None:
    folder, name = _changed(saved, tmp_path, "tokenizer.json a token renamed")
    with pytest.raises(ValueError, match=re.escape(name)):
        untrained_twin(folder)


def test_the_start_of_train_rl_from_a_changed_checkpoint_is_refused(saved: Path, tmp_path: Path) -> None:
    from trainers.rl import train_rl

    folder, name = _changed(saved, tmp_path, "config.json rms_norm_eps edited")
    with pytest.raises(ValueError, match=re.escape(name)):
        train_rl("rl-tiny", [], tmp_path / "rl", model_path=folder)
    assert not (tmp_path / "rl").exists()


def test_guard_an_untouched_checkpoint_with_notes_beside_loads(saved: Path, tmp_path: Path) -> None:
    folder = tmp_path / "ckpt"
    shutil.copytree(saved, folder)
    (folder / "README.md").write_text("notes\n")
    _model, tokenizer = load_checkpoint(folder)
    assert tokenizer.chat_template and read_rendering(folder) == "compact"
    assert json.loads((folder / "checkpoint_files.json").read_text())["files"].keys() >= {
        "config.json", "model.safetensors", "tokenizer.json", "rendering.json"}


def test_the_vllm_offline_backend_refuses_a_changed_checkpoint_before_vllm_reads_it(saved: Path, tmp_path: Path) -> None:
    from coworkenv.llm._vllm_offline import VLLMOfflineBackend

    folder, name = _changed(saved, tmp_path, "tokenizer_config.json model_max_length edited")
    with pytest.raises(ValueError, match=re.escape(str(folder / name))):
        VLLMOfflineBackend(str(folder))._engine()
