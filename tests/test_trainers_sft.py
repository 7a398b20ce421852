"""SFT trainer: assistant-only loss masks, a short CPU training run, the saved checkpoint, config loading."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

# --- a synthetic sft_shards fixture in the exact row shape the curation stage writes --------------------------------

_TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "logs_search",
            "description": "Search service logs by service, level and time window.",
            "parameters": {
                "type": "object",
                "properties": {
                    "service": {"type": "string", "description": "service name"},
                    "level": {"type": "string", "enum": ["debug", "info", "warn", "error"]},
                    "since": {"type": "string", "description": "ISO timestamp"},
                },
                "required": ["service"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "services_rollback_config",
            "description": "Roll a service back to an earlier config version.",
            "parameters": {
                "type": "object",
                "properties": {"service": {"type": "string"}, "version": {"type": "integer"}},
                "required": ["service", "version"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "chat_post_message",
            "description": "Post a message to a chat channel.",
            "parameters": {
                "type": "object",
                "properties": {"channel": {"type": "string"}, "text": {"type": "string"}},
                "required": ["channel", "text"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "mail_send",
            "description": "Send an email.",
            "parameters": {
                "type": "object",
                "properties": {
                    "to": {"type": "array", "items": {"type": "string"}},
                    "subject": {"type": "string"},
                    "body": {"type": "string"},
                },
                "required": ["to", "subject", "body"],
            },
        },
    },
]
_SERVICES = ["checkout", "search", "billing", "auth", "inventory", "notifications"]
_PEOPLE = ["dana", "priya", "omar", "lena", "kenji", "sofia"]
_CHANNELS = ["#ops", "#incidents", "#eng", "#oncall"]


def _message(role: str, content: str = "", **extra: Any) -> dict[str, Any]:
    return {
        "role": role,
        "content": content,
        "tool_calls": extra.get("tool_calls", []),
        "tool_call_id": extra.get("tool_call_id", ""),
        "name": extra.get("name", ""),
    }


def _call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    # Compact JSON, as producers often write it; training must render it the way the template renders dicts.
    compact = json.dumps(arguments, separators=(",", ":"))
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": compact}}


def make_sft_rows(n: int, seed: int = 0) -> list[dict[str, Any]]:
    """`n` incident-response transcripts; every third one has a second user turn (multi-turn)."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        service, person, channel = rng.choice(_SERVICES), rng.choice(_PEOPLE), rng.choice(_CHANNELS)
        bad, good = rng.randint(20, 90), 0
        good = bad - 1
        hour = rng.randint(0, 23)
        logs = [
            {"ts": f"2025-03-04T{hour:02d}:{m:02d}:00Z", "level": "error", "msg": f"config v{bad}: timeout to db"}
            for m in range(0, 50, 10)
        ]
        messages = [
            _message("system", "You are a coworker agent in the Acme workspace. Use the tools to act."),
            _message("user", f"{service} is failing since {hour:02d}:00. Fix it and tell {channel}."),
            _message("assistant", tool_calls=[_call(f"c{i}a", "logs_search", {"service": service, "level": "error"})]),
            _message("tool", json.dumps({"lines": logs}), tool_call_id=f"c{i}a", name="logs_search"),
            _message(
                "assistant",
                f"The errors started with config v{bad}; rolling back to v{good}.",
                tool_calls=[_call(f"c{i}b", "services_rollback_config", {"service": service, "version": good})],
            ),
            _message("tool", json.dumps({"ok": True, "active_version": good}), tool_call_id=f"c{i}b"),
            _message(
                "assistant",
                tool_calls=[
                    _call(
                        f"c{i}c", "chat_post_message", {"channel": channel, "text": f"{service} rolled back to v{good}"}
                    )
                ],
            ),
            _message("tool", json.dumps({"ok": True}), tool_call_id=f"c{i}c", name="chat_post_message"),
            _message("assistant", f"Done: {service} is back on config v{good} and {channel} knows."),
        ]
        multi = i % 3 == 0
        if multi:
            messages += [
                _message("user", f"Thanks. Also mail {person} a short summary."),
                _message(
                    "assistant",
                    tool_calls=[
                        _call(
                            f"c{i}d",
                            "mail_send",
                            {
                                "to": [f"{person}@acme.test"],
                                "subject": f"{service} incident",
                                "body": f"v{bad} -> v{good}",
                            },
                        )
                    ],
                ),
                _message("tool", json.dumps({"ok": True, "id": f"m{i}"}), tool_call_id=f"c{i}d", name="mail_send"),
                _message("assistant", f"Mailed {person} the summary."),
            ]
        rows.append(
            {
                "messages": messages,
                "tools": json.dumps(_TOOLS),
                "env_id": f"env-{i:04d}",
                "capability": "incident_response",
                "turns": "multi" if multi else "single",
                "split": "train",
            }
        )
    return rows


def write_sft_shards(root: Path, rows: list[dict[str, Any]]) -> Path:
    """Write `rows` as a Hub-layout dataset repo (data/sft/train-00000-of-00001.parquet); returns the repo dir."""
    folder = root / "data" / "sft"
    folder.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows), folder / "train-00000-of-00001.parquet")
    return root


def _tiny_test_config(**training: Any) -> Any:
    """The shipped `tiny` config, shortened for a test run."""
    from trainers.config import load_sft_config

    config = load_sft_config("tiny")
    settings = {"max_steps": 12, "per_device_train_batch_size": 4, "warmup_ratio": 0.0, **training}
    return config.model_copy(update={"training": config.training.model_copy(update=settings)})


@pytest.fixture(scope="module")
def tiny_tokenizer() -> Any:
    from trainers.chat_templates import trl_chat_template
    from trainers.sft_data import to_chat
    from trainers.tiny_model import TinyModelSpec, render_corpus_text, train_tokenizer

    template = trl_chat_template("qwen3_training")
    corpus = render_corpus_text((to_chat(row) for row in make_sft_rows(30)), template)
    return train_tokenizer(corpus, TinyModelSpec(vocab_size=1024), template)


def _runs(ids: list[int], mask: list[int], tokenizer: Any) -> list[tuple[int, str]]:
    """Maximal runs of equal mask value, decoded: [(mask value, text), ...]."""
    runs: list[tuple[int, list[int]]] = []
    for token, bit in zip(ids, mask, strict=True):
        if runs and runs[-1][0] == bit:
            runs[-1][1].append(token)
        else:
            runs.append((bit, [token]))
    return [(bit, tokenizer.decode(tokens)) for bit, tokens in runs]


# --- assistant-only loss ---------------------------------------------------------------------------------------------


def test_assistant_mask_covers_assistant_turns_and_nothing_else(tiny_tokenizer: Any) -> None:
    from trainers.sft_data import tokenize_conversation

    row = make_sft_rows(1)[0]  # multi-turn: 6 assistant messages, 4 tool results, 2 user turns, a system prompt
    encoded = tokenize_conversation(row, tiny_tokenizer)
    runs = _runs(encoded["input_ids"], encoded["assistant_masks"], tiny_tokenizer)
    trained = [text for bit, text in runs if bit == 1]
    context = "".join(text for bit, text in runs if bit == 0)

    assert len(trained) == sum(1 for m in row["messages"] if m["role"] == "assistant")
    for text in trained:  # each assistant turn in full, up to and including its end-of-turn token
        assert text.startswith("<think>") and text.rstrip("\n").endswith("<|im_end|>")
        assert "<tool_response>" not in text and "<|im_start|>" not in text
    # Tool calls are trained on, with arguments rendered as JSON objects (decoded from the row's JSON strings).
    assert '<tool_call>\n{"name": "logs_search", "arguments": {"service": ' in trained[0]
    assert "Mailed" in trained[-1]
    # System prompt, tool schemas, user turns, tool results and role headers are context only.
    system, user1, user2 = (row["messages"][i]["content"] for i in (0, 1, 9))
    for text in (
        system,
        user1,
        user2,
        "# Tools",
        '"description": "Send an email."',
        "<tool_response>",
        '"active_version"',
    ):
        assert text in context
        assert all(text not in t for t in trained)
    assert context.count("<|im_start|>assistant\n") == len(trained)


def test_trainer_labels_are_minus_100_outside_assistant_tokens(tmp_path: Path) -> None:
    from trainers.sft import build_sft_trainer
    from trainers.sft_data import tokenize_conversation

    rows = make_sft_rows(6)
    config = _tiny_test_config()
    setup = build_sft_trainer(config, write_sft_shards(tmp_path / "repo", rows), tmp_path / "run")
    tokenizer = setup.trainer.processing_class
    prepared = setup.trainer.train_dataset
    assert prepared is not None and len(prepared) == len(rows)
    for index, example in enumerate(prepared):  # rendered as the config renders (the shipped `tiny`: minimal)
        mask = tokenize_conversation(rows[index], tokenizer, rendering=config.model.rendering)["assistant_masks"]
        labels = example["labels"]
        assert [label != -100 for label in labels] == [bool(bit) for bit in mask]
        assert [label for label in labels if label != -100] == [
            token for token, bit in zip(example["input_ids"], mask, strict=True) if bit
        ]
        trained_text = tokenizer.decode([label for label in labels if label != -100])
        assert "<tool_call>" in trained_text and "rolled back to" in trained_text
        assert "<tool_response>" not in trained_text and "coworker agent" not in trained_text


# --- a short training run ---------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_tiny_sft_lowers_loss_and_writes_a_loadable_checkpoint(tmp_path: Path) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from trainers.sft import train_sft
    from trainers.sft_data import tokenize_conversation

    repo = write_sft_shards(tmp_path / "repo", make_sft_rows(24))
    seen: list[int] = []
    result = train_sft(_tiny_test_config(), repo, tmp_path / "ckpt", progress=lambda p: seen.append(p.step))

    assert result.steps == 12 and seen == list(range(1, 13))
    log = json.loads((tmp_path / "ckpt" / "training_log.json").read_text())
    losses = [entry["loss"] for entry in log["steps"]]
    assert [entry["step"] for entry in log["steps"]] == list(range(1, 13))
    assert sum(losses[-3:]) / 3 < 0.8 * sum(losses[:3]) / 3, losses
    assert (result.train_loss_first, result.train_loss_last) == (losses[0], losses[-1])
    png = result.loss_curve.read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 5_000
    shard = repo / "data" / "sft" / "train-00000-of-00001.parquet"
    assert [(f.path, f.sha256, f.rows) for f in result.data_files] == [
        (str(shard), hashlib.sha256(shard.read_bytes()).hexdigest(), 24)
    ]
    assert json.loads((tmp_path / "ckpt" / "sft_run.json").read_text())["steps"] == 12
    assert not list(tmp_path.glob(".ckpt.*")), "staging folder left behind"

    # The checkpoint loads with stock transformers and carries the chat template with tool rendering.
    model = AutoModelForCausalLM.from_pretrained(tmp_path / "ckpt")
    tokenizer = AutoTokenizer.from_pretrained(tmp_path / "ckpt")
    assert type(model).__name__ == "Qwen3ForCausalLM"
    assert "{% generation %}" in tokenizer.chat_template
    prompt = tokenizer.apply_chat_template(
        [{"role": "user", "content": "checkout is down"}],
        tools=json.loads(make_sft_rows(1)[0]["tools"]),
        add_generation_prompt=True,
        tokenize=False,
    )
    assert "<tools>" in prompt and prompt.endswith("<|im_start|>assistant\n")
    # ...and holds the trained weights: its assistant-token loss is far below the untrained first step's.
    encoded = tokenize_conversation(make_sft_rows(1)[0], tokenizer)
    ids = torch.tensor([encoded["input_ids"]])
    labels = torch.where(torch.tensor([encoded["assistant_masks"]]) == 1, ids, -100)
    with torch.no_grad():
        loss = model(input_ids=ids, labels=labels).loss.item()
    assert loss < 0.8 * result.train_loss_first


def test_bf16_training_runs_on_a_machine_without_a_gpu(tmp_path: Path) -> None:
    """`bf16: true` trains under CPU autocast (transformers refuses bf16 without a GPU unless told it runs on CPU),
    lowers the loss, and saves float32 weights."""
    import torch
    from safetensors.torch import load_file

    from trainers.sft import train_sft

    if torch.cuda.is_available():
        pytest.skip("checks the CPU path")
    repo = write_sft_shards(tmp_path / "repo", make_sft_rows(24))
    result = train_sft(_tiny_test_config(bf16=True), repo, tmp_path / "ckpt")
    assert result.steps == 12 and result.train_loss_last < result.train_loss_first
    weights = load_file(str(tmp_path / "ckpt" / "model.safetensors"))
    assert {t.dtype for t in weights.values()} == {torch.float32}


def test_an_unrelated_output_folder_is_not_overwritten(tmp_path: Path) -> None:
    from trainers.sft import train_sft

    out = tmp_path / "precious"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    with pytest.raises(FileExistsError, match="not an SFT checkpoint"):
        train_sft(_tiny_test_config(), write_sft_shards(tmp_path / "repo", make_sft_rows(4)), out)
    assert (out / "notes.txt").read_text() == "keep me"


# --- reading the shards -----------------------------------------------------------------------------------------------


def test_train_split_is_read_from_flat_folders_and_hub_layouts(tmp_path: Path) -> None:
    from trainers.sft_data import load_train_split

    rows = make_sft_rows(5)
    hub, _ = load_train_split(write_sft_shards(tmp_path / "hub", rows))
    assert len(hub) == 5
    flat = tmp_path / "flat"
    flat.mkdir()
    for index, split in enumerate(["train", "validation", "train", "test", "train"]):
        rows[index]["split"] = split
    pq.write_table(pa.Table.from_pylist(rows), flat / "part-0.parquet")
    dataset, files = load_train_split(flat)
    assert dataset["env_id"] == ["env-0000", "env-0002", "env-0004"]
    assert files[0].rows == 5


def test_malformed_rows_name_the_field_to_fix(tmp_path: Path) -> None:
    from trainers.sft_data import load_train_split, to_chat

    row = make_sft_rows(1)[0]
    row["messages"][2]["tool_calls"][0]["function"]["arguments"] = "{service: checkout"
    with pytest.raises(ValueError, match=r"row\.messages\[2\]\.tool_calls\[0\]\.function\.arguments"):
        to_chat(row)
    bad = tmp_path / "bad"
    bad.mkdir()
    pq.write_table(pa.Table.from_pylist([{"text": "hello"}]), bad / "train-00000-of-00001.parquet")
    with pytest.raises(ValueError, match=r"lacks? column\(s\) \['messages', 'tools'\]"):
        load_train_split(bad)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_train_split(tmp_path / "missing")


# --- configs ----------------------------------------------------------------------------------------------------------


def test_pocketworker_8b_config_and_its_launcher_files_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    import transformers.training_args
    import yaml

    from trainers.chat_templates import has_generation_markers, trl_chat_template
    from trainers.config import CONFIGS_DIR, load_sft_config
    from trainers.sft import build_sft_args

    config = load_sft_config("pocketworker-8b")
    assert config.model.source == "pretrained" and config.model.name_or_path == "Qwen/Qwen3-VL-8B-Instruct"
    assert config.model.dtype == "bfloat16" and config.training.bf16 and config.training.gradient_checkpointing
    assert has_generation_markers(trl_chat_template(config.model.chat_template or ""))

    accelerate = yaml.safe_load(config.distributed.accelerate_config.read_text())  # type: ignore[union-attr]
    assert accelerate["distributed_type"] == "DEEPSPEED"
    repo_root = CONFIGS_DIR.parent.parent  # accelerate resolves the file against the launch folder: the repo root
    assert (repo_root / accelerate["deepspeed_config"]["deepspeed_config_file"]).resolve() == (
        config.distributed.deepspeed_config
    )
    deepspeed = json.loads(config.distributed.deepspeed_config.read_text())  # type: ignore[union-attr]
    assert deepspeed["zero_optimization"]["stage"] == 3

    # bf16 training arguments are refused without a bf16-capable GPU; pretend to have one (no weights are loaded).
    monkeypatch.setattr(transformers.training_args, "is_torch_bf16_gpu_available", lambda: True)
    args = build_sft_args(config, Path("unused"))
    assert args.assistant_only_loss and args.bf16 and args.gradient_checkpointing
    assert args.model_init_kwargs == {"dtype": "bfloat16", "attn_implementation": "sdpa"}
    assert args.learning_rate == config.training.learning_rate
    with_lora = config.model_copy(update={"lora": config.lora.model_copy(update={"enabled": True})})
    assert build_sft_args(with_lora, Path("unused")).learning_rate == config.lora.learning_rate


def test_config_mistakes_are_reported_with_the_file_and_field(tmp_path: Path) -> None:
    from trainers.config import load_sft_config

    with pytest.raises(FileNotFoundError, match=r"known names: .*pocketworker-8b.*tiny"):
        load_sft_config("tiny-typo")
    typo = tmp_path / "typo.yaml"
    typo.write_text("name: x\nmodel: {source: tiny, chat_template: qwen3_training}\ntraining: {max_stepz: 3}\n")
    with pytest.raises(ValueError, match=r"(?s)typo\.yaml.*training\.max_stepz"):
        load_sft_config(typo)
    no_markers = tmp_path / "plain.yaml"
    no_markers.write_text("name: x\nmodel: {source: tiny, chat_template: qwen3}\n")
    with pytest.raises(ValueError, match="no \\{% generation %\\} markers"):
        load_sft_config(no_markers)
    run_alone = tmp_path / "run.yaml"
    run_alone.write_text("name: x\nmodel: {source: tiny, chat_template: qwen3_training, tiny: {copy_induction_run: 8}}\n")
    with pytest.raises(ValueError, match=r"(?s)run\.yaml.*copy_induction_run: 8 .*copy_head: true"):
        load_sft_config(run_alone)


def test_scoring_only_labelled_positions_on_cpu_gives_the_same_loss_and_gradients() -> None:
    import torch
    from transformers import Qwen3Config, Qwen3ForCausalLM
    from trl.trainer import utils as trl_utils

    from trainers.sft import score_labelled_positions_on_cpu

    torch.manual_seed(0)
    model = Qwen3ForCausalLM(Qwen3Config(vocab_size=300, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                                         num_attention_heads=2, num_key_value_heads=1, head_dim=16,
                                         tie_word_embeddings=True))
    trl_utils.add_fused_lm_head(model)
    ids = torch.randint(0, 300, (1, 50))
    labels = ids.clone()
    labels[:, :40] = -100  # assistant-only loss: most positions carry no label

    def loss_and_grad() -> tuple[float, Any]:
        model.zero_grad()
        out = model(input_ids=ids, labels=labels, fused_lm_head=True)
        out.loss.backward()
        return float(out.loss), model.model.embed_tokens.weight.grad.clone()

    original = trl_utils._use_triton
    try:
        trl_utils._use_triton = lambda device: False  # every position scored, as TRL does off-GPU
        every_loss, every_grad = loss_and_grad()
        assert score_labelled_positions_on_cpu()
        assert trl_utils._use_triton(torch.device("cpu"))
        labelled_loss, labelled_grad = loss_and_grad()
    finally:
        trl_utils._use_triton = original
    assert labelled_loss == pytest.approx(every_loss, rel=1e-6)
    assert torch.allclose(labelled_grad, every_grad, atol=1e-6)
    assert labelled_loss == pytest.approx(float(model(input_ids=ids, labels=labels).loss), rel=1e-5)
