"""Supervised fine-tuning of a PocketWorker on `sft_shards` with TRL's `SFTTrainer` and assistant-only loss.

`train_sft` reads the train split, starts from the configured model (the locally built tiny model, or pretrained
weights), renders every conversation with the chat template's tool rendering, trains only on assistant tokens, and
writes a self-describing checkpoint: weights, tokenizer with chat template, `training_log.json`, `loss_curve.png` and
`sft_run.json` (config, data files and their hashes). Multi-GPU: `accelerate launch --config_file
trainers/configs/accelerate_zero3.yaml -m trainers.sft --config pocketworker-8b --data DIR --out DIR`.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from collections.abc import Callable, Sequence, Sized
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch
from transformers import AutoTokenizer, PreTrainedModel, PreTrainedTokenizerBase, TrainerCallback
from transformers.trainer_callback import PrinterCallback
from trl import SFTConfig, SFTTrainer

from coworkenv.checkpoint_manifest import file_versions, unchanged_since_checked
from coworkenv.credential_values import hub_client_token_problem
from coworkenv.store import lfs_pointer_problem
from trainers.chat_templates import trl_chat_template
from trainers.checkpoint_files import (
    checkpoint_files_problem,
    checkpoint_staging,
    finishing_checkpoint,
    replace_dir,
    saving_weights,
    start_in_output_problem,
)
from trainers.config import SFTRunConfig, load_sft_config
from trainers.copy_model import install_fused_lm_head, uses_copy_head
from trainers.rendering import RENDERING_FILE, read_rendering, write_rendering
from trainers.sft_data import DataFile, load_train_split, to_chat, tokenize_split
from trainers.tiny_model import build_tiny_model, render_corpus_text
from trainers.training_report import write_json_atomic, write_loss_curve

__all__ = ["SFTProgress", "SFTResult", "SFTSetup", "build_sft_args", "build_sft_trainer", "main", "train_sft"]

TRAINING_LOG = "training_log.json"
LOSS_CURVE = "loss_curve.png"
RUN_METADATA = "sft_run.json"


@dataclass(frozen=True)
class SFTProgress:
    """One logged optimisation step, as reported to the `progress` callback."""

    step: int
    max_steps: int
    loss: float
    epoch: float
    learning_rate: float | None


@dataclass(frozen=True)
class SFTResult:
    """What an SFT run produced and trained on."""

    out_dir: Path
    steps: int
    train_loss_first: float
    train_loss_last: float
    wall_s: float
    config: dict[str, Any]
    data_files: list[DataFile]
    examples: int
    examples_truncated: int
    loss_curve: Path
    training_log: Path
    metrics: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (paths as strings), as stored in `sft_run.json`."""
        data = asdict(self)
        for key in ("out_dir", "loss_curve", "training_log"):
            data[key] = str(data[key])
        return data


class _StepRecorder(TrainerCallback):  # type: ignore[misc]
    """Collects the per-step training logs and forwards them to the caller's progress callback."""

    def __init__(self, progress: Callable[[SFTProgress], None] | None) -> None:
        self.entries: list[dict[str, float]] = []
        self._progress = progress

    def on_log(self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None, **_: Any) -> None:
        if not logs or "loss" not in logs:
            return  # the end-of-training summary carries train_loss, not a step loss
        entry: dict[str, float] = {"step": int(state.global_step), "epoch": float(state.epoch or 0.0)}
        entry.update({k: float(v) for k, v in logs.items() if isinstance(v, int | float) and k != "step"})
        self.entries.append(entry)
        if self._progress is not None and state.is_world_process_zero:
            self._progress(
                SFTProgress(
                    step=state.global_step,
                    max_steps=state.max_steps,
                    loss=float(logs["loss"]),
                    epoch=float(state.epoch or 0.0),
                    learning_rate=float(logs["learning_rate"]) if "learning_rate" in logs else None,
                )
            )


def _checkpointing_kwargs(enabled: bool) -> dict[str, Any]:
    # transformers 5 renamed gradient_checkpointing to activation_checkpointing; TRL still defaults the old name to
    # True, so both are set explicitly (the new one when it exists, which also avoids a deprecation warning).
    names = {f.name for f in dataclasses.fields(SFTConfig)}
    kwargs: dict[str, Any] = {"gradient_checkpointing": enabled}
    if "activation_checkpointing" in names:
        kwargs["activation_checkpointing"] = enabled
    return kwargs


def build_sft_args(config: SFTRunConfig, output_dir: Path) -> SFTConfig:
    """TRL `SFTConfig` for `config`: assistant-only loss, no intermediate checkpoints, no external reporting."""
    training = config.training
    model_init_kwargs: dict[str, Any] | None = None
    if config.model.source == "pretrained":
        model_init_kwargs = {"dtype": config.model.dtype}
        if config.model.attn_implementation:
            model_init_kwargs["attn_implementation"] = config.model.attn_implementation
    return SFTConfig(
        output_dir=str(output_dir),
        assistant_only_loss=True,
        max_length=training.max_length,
        num_train_epochs=training.num_train_epochs,
        max_steps=training.max_steps,
        per_device_train_batch_size=training.per_device_train_batch_size,
        gradient_accumulation_steps=training.gradient_accumulation_steps,
        learning_rate=(config.lora.learning_rate if config.lora.enabled else None) or training.learning_rate,
        lr_scheduler_type=training.lr_scheduler_type,
        # transformers 5 reads a float in [0, 1) here as a fraction of the total steps.
        warmup_steps=training.warmup_steps or training.warmup_ratio,  # below 1: a fraction of the steps
        weight_decay=training.weight_decay,
        max_grad_norm=training.max_grad_norm,
        seed=training.seed,
        data_seed=training.seed,
        bf16=training.bf16,
        use_cpu=not torch.cuda.is_available(),  # transformers refuses bf16 without a GPU unless told it runs on CPU
        **_checkpointing_kwargs(training.gradient_checkpointing),
        logging_steps=training.logging_steps,
        packing=training.packing,
        dataloader_num_workers=training.dataloader_num_workers,
        dataloader_pin_memory=torch.cuda.is_available(),
        model_init_kwargs=model_init_kwargs,
        save_strategy="no",
        report_to="none",
        disable_tqdm=True,
    )


def _starting_point(config: SFTRunConfig, rows: Any) -> tuple[PreTrainedModel | str, PreTrainedTokenizerBase]:
    """The model to fine-tune (an instance, or a Hub id / path TRL loads) and its tokenizer with training template."""
    model = config.model
    if model.source == "tiny":
        assert model.chat_template is not None  # enforced by ModelSection
        template = trl_chat_template(model.chat_template)
        conversations = (to_chat(row, f"train row {i}", model.rendering) for i, row in enumerate(rows))
        return build_tiny_model(
            render_corpus_text(conversations, template), model.tiny.spec(), config.training.seed, template
        )
    assert model.name_or_path is not None  # enforced by ModelSection
    hub_token = hub_client_token_problem(model.name_or_path)  # transformers would send it as it is
    if hub_token is not None:
        raise ValueError(hub_token)
    # Text-only SFT: the tokenizer, not the multimodal processor, renders the conversations.
    tokenizer = AutoTokenizer.from_pretrained(model.name_or_path)
    if model.chat_template is not None:
        tokenizer.chat_template = trl_chat_template(model.chat_template)
    elif tokenizer.chat_template is None:
        raise ValueError(
            f"{model.name_or_path} ships no chat template; set model.chat_template to a trl training template"
        )
    return model.name_or_path, tokenizer


_TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "tokenizer.model")


def local_start(config: SFTRunConfig) -> Path | None:
    """The checkpoint folder a training goes on from (`model.name_or_path` naming a local folder), or None (a tiny
    model, a Hub id)."""
    model = config.model
    if model.source != "pretrained" or not model.name_or_path:
        return None
    start = Path(model.name_or_path).expanduser()
    return start if start.is_dir() else None


def start_problem(config: SFTRunConfig) -> str | None:
    """Why the local checkpoint a training starts from (`local_start`) cannot be trained on, as one line naming the
    file and what to do; None when it can. TRL loaded the folder as it stood: a file changed since its save (other
    weights, another tokenizer) was trained from without a word, weights missing were a bare OSError, a tokenizer
    missing an error about the chat template, and a checkpoint trained with another rendering than the config's was
    trained on in the config's (its new record then naming one rendering of two)."""
    start = local_start(config)
    if start is None:
        return None
    pointer = next((problem for file in sorted(start.iterdir()) if file.is_file()
                    and (problem := lfs_pointer_problem(file)) is not None), None)
    damaged = pointer or checkpoint_files_problem(start)
    if damaged is not None:
        return f"model.name_or_path: {damaged}; nothing was trained"
    if not any((start / name).is_file() for name in _TOKENIZER_FILES):
        return (f"model.name_or_path: {start} holds no tokenizer ({', '.join(_TOKENIZER_FILES)}): the checkpoint is "
                "incomplete (a copy of its weights alone?); copy the whole checkpoint folder, or train it again; "
                "nothing was trained")
    if (start / RENDERING_FILE).is_file():
        trained = read_rendering(start)
        if trained != config.model.rendering:
            return (f"model.name_or_path: {start} was trained with the {trained!r} rendering (its {RENDERING_FILE}), "
                    f"and model.rendering is {config.model.rendering!r}: training on would render its conversations "
                    f"otherwise than it learned them; set model.rendering: {trained} in the config to go on with "
                    "it; nothing was trained")
    return None


def _peft_config(config: SFTRunConfig) -> Any:
    if not config.lora.enabled:
        return None
    try:
        from peft import LoraConfig
    except ImportError as exc:
        raise ImportError(
            f"config {config.name!r} enables LoRA, which needs peft: pip install peft (or set lora.enabled: false)"
        ) from exc
    lora = config.lora
    return LoraConfig(
        r=lora.r,
        lora_alpha=lora.alpha,
        lora_dropout=lora.dropout,
        target_modules=list(lora.target_modules),
        task_type="CAUSAL_LM",
    )


def portable_tokenizer_class(checkpoint: Path) -> None:
    """Record the locally built tokenizer under the class name every transformers version can load.

    transformers 5 saves it as `TokenizersBackend`, which transformers 4 (e.g. inside a vLLM server) does not know.
    """
    path = checkpoint / "tokenizer_config.json"
    settings = json.loads(path.read_text(encoding="utf-8"))
    settings["tokenizer_class"] = "PreTrainedTokenizerFast"
    write_json_atomic(path, settings)


@dataclass
class SFTSetup:
    """A ready-to-train `SFTTrainer` and what it was built from (see `build_sft_trainer`)."""

    trainer: SFTTrainer
    config: SFTRunConfig
    data_files: list[DataFile]
    examples_truncated: int
    recorder: _StepRecorder


def score_labelled_positions_on_cpu() -> bool:
    """Make TRL's fused LM head score only the positions that carry a label when training on CPU.

    TRL (>= 1.16) projects through the LM head, in tiles, only the positions with a label on CUDA/XPU; elsewhere it
    scores every position so that tile shapes stay fixed for compilers such as Neuron's. On CPU nothing recompiles,
    and with assistant-only loss ~85-90 % of an agent transcript carries no label: scoring only the labelled positions
    gives the same loss and gradients for ~37 % less CPU per step (measured on the learn-tiny model, 1,600-token
    transcripts). Returns False, changing nothing, when the TRL version has no such switch.
    """
    try:
        from trl.trainer import utils as trl_utils
    except ImportError:  # pragma: no cover - TRL is a dependency of the trainers
        return False
    original = getattr(trl_utils, "_use_triton", None)
    if original is None or getattr(original, "_coworkenv_cpu", False):
        return original is not None

    def labelled_only(device: torch.device) -> bool:
        return device.type == "cpu" or bool(original(device))

    labelled_only._coworkenv_cpu = True  # type: ignore[attr-defined]
    trl_utils._use_triton = labelled_only
    return True


class _SFTTrainer(SFTTrainer):
    """TRL's SFTTrainer; on a copy-head model, the fused LM head it installs is replaced by the model's own
    (TRL's cannot see the copy head, see trainers.copy_model)."""

    def __init__(self, *args: Any, pointer_loss_weight: float = 0.0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if uses_copy_head(self.model):
            install_fused_lm_head(self.model, pointer_loss_weight=pointer_loss_weight)


def build_sft_trainer(
    config: SFTRunConfig | str | Path,
    data_dir: Path,
    output_dir: Path,
    progress: Callable[[SFTProgress], None] | None = None,
    callbacks: Sequence[TrainerCallback] = (),
) -> SFTSetup:
    """Load the shards, build the starting model and tokenizer, tokenize with assistant masks, wrap in SFTTrainer.

    The trainer's prepared `train_dataset` holds `labels` that are -100 everywhere except assistant tokens.
    `callbacks` are added to the trainer's (e.g. a held-out evaluation every N steps for a learning curve).
    """
    run_config = config if isinstance(config, SFTRunConfig) else load_sft_config(config)
    start = local_start(run_config)
    checked = file_versions(start) if start is not None else {}  # before the check: a change after is caught below
    problem = start_problem(run_config)
    if problem is not None:
        raise ValueError(problem)
    rows, data_files = load_train_split(Path(data_dir))
    model, tokenizer = _starting_point(run_config, rows)
    train_dataset = tokenize_split(rows, tokenizer, run_config.model.rendering)
    max_length = run_config.training.max_length
    truncated = sum(1 for ids in train_dataset["input_ids"] if len(ids) > max_length)

    recorder = _StepRecorder(progress)
    score_labelled_positions_on_cpu()
    trainer = _SFTTrainer(
        model=model,
        args=build_sft_args(run_config, Path(output_dir)),
        train_dataset=train_dataset,
        processing_class=tokenizer,
        peft_config=_peft_config(run_config),
        callbacks=[recorder, *callbacks],
        pointer_loss_weight=run_config.training.copy_pointer_loss,
    )
    if start is not None:  # TRL loaded the weights by their names: the files checked, not others put in between
        changed = unchanged_since_checked(start, checked)
        if changed is not None:
            raise ValueError(f"model.name_or_path: {changed}; nothing was trained")
    # Step logs go to `progress` and training_log.json instead of being printed as raw dicts.
    trainer.remove_callback(PrinterCallback)
    return SFTSetup(trainer, run_config, data_files, truncated, recorder)


def _check_replaceable(out_dir: Path) -> None:
    if out_dir.exists() and any(out_dir.iterdir()) and not (out_dir / RUN_METADATA).is_file():
        raise FileExistsError(
            f"{out_dir} exists, is not empty and is not an SFT checkpoint (no {RUN_METADATA}); "
            "pass a new or empty folder as the output"
        )


def train_sft(
    config: SFTRunConfig | str | Path,
    data_dir: Path,
    out_dir: Path,
    progress: Callable[[SFTProgress], None] | None = None,
    callbacks: Sequence[TrainerCallback] = (),
) -> SFTResult:
    """Fine-tune on the train split of the SFT shards in `data_dir`; write the checkpoint to `out_dir`.

    `config` is an `SFTRunConfig`, a config name (`tiny`, `pocketworker-8b`) or a YAML path. `progress` is called
    after every logged step; `callbacks` join the trainer's. An earlier checkpoint at `out_dir` is replaced only once the new one is complete.
    """
    started = time.perf_counter()
    config = config if isinstance(config, SFTRunConfig) else load_sft_config(config)
    start = config.model.name_or_path if config.model.source == "pretrained" else None
    in_output = start_in_output_problem(start, out_dir, "the config's model.name_or_path")
    if in_output is not None:
        raise ValueError(in_output)
    out_dir = Path(out_dir).resolve()
    _check_replaceable(out_dir)
    with checkpoint_staging(out_dir) as staging:  # a second training into `out_dir` waits for this one
        return _train_into(staging, out_dir, config, data_dir, progress, callbacks, started)


def _train_into(staging: Path, out_dir: Path, config: SFTRunConfig | str | Path, data_dir: Path,
                progress: Callable[[SFTProgress], None] | None, callbacks: Sequence[TrainerCallback],
                started: float) -> SFTResult:
    setup = build_sft_trainer(config, data_dir, staging, progress, callbacks)
    trainer, run_config, recorder = setup.trainer, setup.config, setup.recorder
    trainer.accelerator.wait_for_everyone()  # the main process emptied `staging` before anyone writes there
    output = trainer.train()
    # Every process takes part in saving: under ZeRO-3 the weights are gathered from all ranks.
    with saving_weights(staging, out_dir, trainer.is_world_process_zero()):  # a full disk: named, the save removed
        trainer.save_model(str(staging))

    losses = [entry["loss"] for entry in recorder.entries]
    if not losses:
        raise RuntimeError(
            f"training on {data_dir} logged no loss; check training.logging_steps against the number of steps"
        )
    prepared = trainer.train_dataset  # after TRL dropped rows whose assistant tokens were all truncated away
    result = SFTResult(
        out_dir=out_dir,
        steps=int(trainer.state.global_step),
        train_loss_first=losses[0],
        train_loss_last=losses[-1],
        wall_s=round(time.perf_counter() - started, 3),
        config=run_config.to_dict(),
        data_files=setup.data_files,
        examples=len(prepared) if isinstance(prepared, Sized) else -1,
        examples_truncated=setup.examples_truncated,
        loss_curve=out_dir / LOSS_CURVE,
        training_log=out_dir / TRAINING_LOG,
        metrics={k: float(v) for k, v in output.metrics.items() if isinstance(v, int | float)},
    )
    if trainer.is_world_process_zero():
        with finishing_checkpoint(staging, out_dir):  # a full disk now names where the weights are
            if run_config.model.source == "tiny":
                portable_tokenizer_class(staging)
            write_rendering(staging, run_config.model.rendering)
            write_json_atomic(staging / TRAINING_LOG, {"config": run_config.name, "steps": recorder.entries})
            write_loss_curve(staging / LOSS_CURVE, recorder.entries, title=f"SFT loss ({run_config.name})")
            write_json_atomic(staging / RUN_METADATA, result.to_dict())
        replace_dir(staging, out_dir)
    trainer.accelerator.wait_for_everyone()
    return result


def main(argv: Sequence[str] | None = None) -> None:
    """Command-line entry for launchers: `python -m trainers.sft --config NAME --data DIR --out DIR`."""
    from coworkenv.log_lines import escape_last_resort

    escape_last_resort()  # a warning naming a path: one line, no escape code reaching the terminal
    parser = argparse.ArgumentParser(prog="python -m trainers.sft", description=main.__doc__)
    parser.add_argument("--config", required=True, help="config name in trainers/configs/ or a YAML path")
    parser.add_argument("--data", required=True, type=Path, help="folder with the sft_shards Parquet files")
    parser.add_argument("--out", required=True, type=Path, help="checkpoint folder to write")
    args = parser.parse_args(argv)
    result = train_sft(args.config, args.data, args.out, progress=lambda p: print(json.dumps(asdict(p)), flush=True))
    print(json.dumps(result.to_dict(), indent=2))


if __name__ == "__main__":
    main()
