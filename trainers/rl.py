"""RL from student rollouts: TRL's GRPOTrainer with episodes in validated envs and rewards from their verifier.

Hooks of the maintained trainer used here (trl 1.16):

- `rollout_func` runs the student's episodes (`trainers.rl_rollout`): one multi-turn episode per prompt row, returned
  as `prompt_ids` / `completion_ids` plus `env_mask`, which GRPOTrainer applies as its tool mask, so only tokens the
  model generated carry loss; tool results and user turns inside the completion do not. Extra fields (episode
  reward, per-turn rewards, token turns) are forwarded to the reward function and to the inputs.
- `reward_funcs`: one function returning the episode reward of the chosen treatment (`trainers.rewards`); TRL
  normalises it per group of `num_generations` episodes of the same env (GRPO) and logs it.
- Turn-level credit: GRPOTrainer's loss accepts per-token advantages of shape (B, T) "to support subclasses";
  `EnvGRPOTrainer` overrides `_generate_and_score_completions` to replace the (B,) episode advantages by the
  advantage of each token's user turn (`trainers.rewards.turn_advantages`). Everything else (clipping, loss
  aggregation, optimiser, schedule, distributed) is TRL's.
"""

from __future__ import annotations

import dataclasses
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, cast

import torch
from accelerate.utils import gather_object
from datasets import Dataset
from transformers import (
    AutoConfig,
    AutoModelForCausalLM,
    AutoTokenizer,
    PreTrainedModel,
    PreTrainedTokenizerBase,
    TrainerCallback,
)
from transformers.trainer_callback import PrinterCallback
from trl import GRPOConfig, GRPOTrainer

from coworkenv.agents import OraclePolicy
from coworkenv.checkpoint_manifest import record_problem
from coworkenv.credential_values import hub_client_token_problem
from coworkenv.env import Env
from coworkenv.rollout import run_agent
from coworkenv.spec import EnvSpec
from coworkenv.store.stages import episode_output_problem
from trainers.chat_templates import trl_chat_template
from trainers.checkpoint_files import (
    checkpoint_files_problem,
    checkpoint_staging,
    file_versions,
    finishing_checkpoint,
    replace_dir,
    saving_weights,
    start_in_output_problem,
    unchanged_since_checked,
)
from trainers.copy_model import CopyHeadConfig, install_fused_lm_head, uses_copy_head
from trainers.local_backend import ChatRenderer, template_messages
from trainers.rendering import read_rendering, render_messages, render_tools, write_rendering
from trainers.rewards import (
    CreditMode,
    RewardMode,
    ScaleMode,
    turn_advantages,
)
from trainers.rl_config import RLRunConfig, load_rl_config
from trainers.rl_report import write_reward_curve
from trainers.rl_rollout import EnvRollout, RolloutLimits, SamplerFactory, env_reward_function
from trainers.sft import portable_tokenizer_class
from trainers.tiny_model import build_tiny_model, render_corpus_text
from trainers.training_report import write_json_atomic

__all__ = [
    "EnvGRPOTrainer",
    "RLResult",
    "RLSetup",
    "TurnCredit",
    "build_rl_trainer",
    "reference_conversations",
    "train_rl",
]

RL_LOG = "rl_log.json"
REWARD_CURVE = "reward_curve.png"
RUN_METADATA = "rl_run.json"


@dataclass(frozen=True)
class TurnCredit:
    """The turn-level credit of the last batch on this process: per-turn rewards, their advantages, per token."""

    turn_rewards: list[list[float]]
    turn_advantages: list[list[float]]
    token_advantages: torch.Tensor


class EnvGRPOTrainer(GRPOTrainer):
    """GRPOTrainer with a choice of credit assignment: the episode's advantage for every token, or its turn's."""

    def __init__(self, *args: Any, credit: CreditMode = "trajectory", unpad_rows: bool = True, **kwargs: Any) -> None:
        with warnings.catch_warnings():  # rollout_func is flagged experimental on every construction
            warnings.filterwarnings("ignore", message=".*rollout_func.*experimental", category=UserWarning)
            super().__init__(*args, **kwargs)
        for model in (self.model, self.ref_model):  # TRL's fused LM head cannot see a copy head (trainers.copy_model)
            if model is not None and uses_copy_head(model):
                install_fused_lm_head(model, self.temperature, unpad_rows=unpad_rows)
        self.credit = credit
        self.last_turn_credit: TurnCredit | None = None

    def _generate_and_score_completions(self, inputs: list[dict[str, Any]]) -> dict[str, Any]:
        output: dict[str, Any] = super()._generate_and_score_completions(inputs)
        if self.credit == "turn":
            output["advantages"] = self._turn_level_advantages(inputs, int(output["completion_ids"].shape[1]))
        return output

    def _turn_level_advantages(self, inputs: list[dict[str, Any]], width: int) -> torch.Tensor:
        mode = "train" if cast(Any, self.model).training else "eval"
        group = cast(int, self.num_generations if mode == "train" else self.num_generations_eval)
        local = [list(map(float, x["turn_rewards"])) for x in inputs]
        everyone = gather_object(local)  # groups may span processes; normalise over the whole group
        advantages = turn_advantages(everyone, group, cast(ScaleMode, self.scale_rewards))
        start = self.accelerator.process_index * len(inputs)
        mine = advantages[start:start + len(inputs)]
        tokens = torch.zeros(len(inputs), width, dtype=torch.float32)
        for row, x in enumerate(inputs):
            for column, turn in enumerate(list(x["token_turns"])[:width]):
                if 0 <= turn < len(mine[row]):
                    tokens[row, column] = mine[row][turn]
        self.last_turn_credit = TurnCredit(local, mine, tokens.clone())
        flat = [abs(a) for row in mine for a in row]
        self._metrics[mode]["turn_credit/mean_abs_advantage"].append(sum(flat) / len(flat) if flat else 0.0)
        return tokens.to(self.accelerator.device)


@dataclass(frozen=True)
class RLResult:
    """What an RL run produced: the checkpoint and the per-step training log."""

    out_dir: Path
    reward: str
    credit: str
    steps: int
    wall_s: float
    envs: list[str]
    envs_skipped: dict[str, str]
    log: list[dict[str, float]]
    config: dict[str, Any]
    reward_curve: Path
    parameters: int
    metrics: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (paths as strings), as stored in `rl_run.json`."""
        data = asdict(self)
        data["out_dir"], data["reward_curve"] = str(self.out_dir), str(self.reward_curve)
        return data


class _LogRecorder(TrainerCallback):
    def __init__(self, progress: Callable[[dict[str, float]], None] | None) -> None:
        self.entries: list[dict[str, float]] = []
        self.progress = progress

    def on_log(self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None, **_: Any) -> None:
        if not logs or "reward" not in logs:
            return  # the end-of-training summary has no rewards
        entry = {"step": float(state.global_step), **{k: float(v) for k, v in logs.items() if isinstance(v, int | float)}}
        self.entries.append(entry)
        if self.progress is not None and state.is_world_process_zero:
            self.progress(entry)


def reference_conversations(specs: Sequence[EnvSpec]) -> list[tuple[list[dict[str, Any]], list[Any] | None]]:
    """(messages, tools) of the reference solutions: the text a fresh tiny tokenizer is trained on."""
    out = []
    for spec in specs:
        record = run_agent(Env(spec), OraclePolicy(spec))
        out.append((template_messages(record.messages), record.tools or None))
    return out


def _starting_point(
    config: RLRunConfig, specs: Sequence[EnvSpec]
) -> tuple[PreTrainedModel | str, PreTrainedTokenizerBase, int]:
    """The model (an instance, or a path GRPOTrainer loads), its tokenizer and its context length in tokens."""
    model = config.model
    if model.source == "tiny":
        assert model.chat_template is not None  # enforced by ModelSection
        template = trl_chat_template(model.chat_template)
        conversations = ((render_messages(m, model.rendering), render_tools(t, model.rendering))
                         for m, t in reference_conversations(specs))
        corpus = render_corpus_text(conversations, template)
        tiny, tiny_tokenizer = build_tiny_model(corpus, model.tiny.spec(), config.training.seed, template)
        return tiny, tiny_tokenizer, int(tiny.config.max_position_embeddings)
    assert model.name_or_path is not None  # enforced by ModelSection
    hub_token = hub_client_token_problem(model.name_or_path)  # transformers would send it as it is
    if hub_token is not None:
        raise ValueError(hub_token)
    tokenizer = AutoTokenizer.from_pretrained(model.name_or_path)
    if model.chat_template is not None:
        tokenizer.chat_template = trl_chat_template(model.chat_template)
    # GRPOTrainer loads the weights itself (the right class for VLMs too, sharded under ZeRO-3).
    text_config = AutoConfig.from_pretrained(model.name_or_path).get_text_config()
    context = int(getattr(text_config, "max_position_embeddings", 0) or 0)
    if text_config.model_type == CopyHeadConfig.model_type:
        # GRPOTrainer looks the architecture up in `transformers` by name; a copy-head checkpoint is loaded here.
        return AutoModelForCausalLM.from_pretrained(model.name_or_path), tokenizer, context
    return model.name_or_path, tokenizer, context


def _fitting_specs(specs: Sequence[EnvSpec], renderer: ChatRenderer, config: RLRunConfig,
                   context: int) -> tuple[list[EnvSpec], dict[str, str]]:
    """The envs whose prompt plus the completion budget fit the model (and `max_prompt_tokens`), and why not."""
    limit = config.rollout.max_prompt_tokens
    kept, skipped = [], {}
    for spec in specs:
        messages, info = Env(spec).reset()
        n = len(renderer.prompt_ids(messages, info["tools"]))
        if limit is not None and n > limit:
            skipped[spec.id] = f"prompt of {n} tokens > rollout.max_prompt_tokens {limit}"
        elif context and n + config.rollout.max_completion_tokens > context:
            skipped[spec.id] = f"prompt of {n} tokens + {config.rollout.max_completion_tokens} > context {context}"
        else:
            kept.append(spec)
    return kept, skipped


def _grpo_args(config: RLRunConfig, output_dir: Path) -> GRPOConfig:
    t, r = config.training, config.rollout
    init: dict[str, Any] | None = None
    if config.model.source == "pretrained":
        init = {"dtype": config.model.dtype}
        if config.model.attn_implementation:
            init["attn_implementation"] = config.model.attn_implementation
    # transformers 5 renamed gradient_checkpointing to activation_checkpointing and TRL defaults the old one to True.
    checkpointing: dict[str, Any] = {"gradient_checkpointing": t.gradient_checkpointing}
    if "activation_checkpointing" in {f.name for f in dataclasses.fields(GRPOConfig)}:
        checkpointing["activation_checkpointing"] = t.gradient_checkpointing
    return GRPOConfig(
        output_dir=str(output_dir), max_steps=t.max_steps, per_device_train_batch_size=t.per_device_train_batch_size,
        gradient_accumulation_steps=t.gradient_accumulation_steps, num_generations=t.num_generations,
        learning_rate=t.learning_rate, lr_scheduler_type=t.lr_scheduler_type, beta=t.beta, epsilon=t.epsilon,
        loss_type=t.loss_type, scale_rewards=t.scale_rewards, max_grad_norm=t.max_grad_norm, seed=t.seed,
        data_seed=t.seed, bf16=t.bf16, logging_steps=t.logging_steps, max_completion_length=r.max_completion_tokens,
        temperature=r.temperature, top_p=r.top_p, save_strategy="no", report_to="none", disable_tqdm=True,
        dataloader_pin_memory=torch.cuda.is_available(), model_init_kwargs=init, **checkpointing,
    )


@dataclass
class RLSetup:
    """A ready-to-train `EnvGRPOTrainer` and what it was built from (see `build_rl_trainer`)."""

    trainer: EnvGRPOTrainer
    config: RLRunConfig
    rollout: EnvRollout
    recorder: _LogRecorder
    envs: list[EnvSpec]
    envs_skipped: dict[str, str]


def build_rl_trainer(
    config: RLRunConfig, specs: Sequence[EnvSpec], output_dir: Path, *,
    sampler_factory: SamplerFactory | None = None, progress: Callable[[dict[str, float]], None] | None = None,
    start_record: str | None = None,
) -> RLSetup:
    """Build the starting model and tokenizer, keep the envs that fit, and wire rollouts and rewards into GRPO.

    `sampler_factory` replaces the model's sampling in rollouts (scripted episodes in tests); `progress` is called
    with every logged step. Episodes are written under `output_dir/rollouts` when `rollout.save_rollouts` is set.
    `start_record`, the sha256 of the local start's record of its files as the caller took it (`record_hash`): a start
    holding another (trained or copied again since) is refused.
    """
    if not specs:
        raise ValueError("no envs to train in; pass validated env specs")
    # A local start: its files checked here, just before they are read (a check at `train_rl`'s start leaves the
    # whole set-up between), and their versions compared once GRPOTrainer has loaded the weights itself.
    start = Path(config.model.name_or_path) if config.model.source != "tiny" and config.model.name_or_path else None
    checked = file_versions(start) if start is not None and start.is_dir() else None
    if start is not None and checked is not None:
        damaged = _start_problem(start, start_record)
        if damaged is not None:
            raise ValueError(damaged)
    model, tokenizer, context = _starting_point(config, specs)
    tokenizer.padding_side = "left"
    # A checkpoint trained with a rendering (trainers.rendering) is rolled out with it; a fresh model uses the config's.
    rendering = config.model.rendering
    if config.model.source == "pretrained" and config.model.name_or_path and Path(config.model.name_or_path).is_dir():
        rendering = read_rendering(config.model.name_or_path)
    renderer = ChatRenderer(tokenizer, rendering)
    kept, skipped = _fitting_specs(specs, renderer, config, context)
    if not kept:
        raise ValueError(f"none of the {len(specs)} envs fits the model: {next(iter(skipped.values()))}; raise "
                         "rollout.max_prompt_tokens or pick envs with fewer tools")
    r = config.rollout
    limits = RolloutLimits(r.max_new_tokens, r.max_agent_steps, r.max_completion_tokens, r.temperature, r.top_p)
    rollout = EnvRollout(kept, renderer, limits, config.reward, sampler_factory=sampler_factory,
                         rollouts_dir=Path(output_dir) / "rollouts" if r.save_rollouts else None,
                         seed=config.training.seed, reuse_caches=r.reuse_caches, decoding=r.decoding,
                         call_credit=config.call_credit, tool_choice=r.tool_choice)
    recorder = _LogRecorder(progress)
    trainer = EnvGRPOTrainer(
        model=model, reward_funcs=[env_reward_function(config.reward)], args=_grpo_args(config, Path(output_dir)),
        train_dataset=Dataset.from_dict({"prompt": [spec.id for spec in kept]}), processing_class=tokenizer,
        callbacks=[recorder], rollout_func=rollout, credit=config.credit,
        unpad_rows=config.training.unpad_loss_rows,
    )
    trainer.remove_callback(PrinterCallback)  # steps go to `progress` and rl_log.json
    changed = None if start is None or checked is None else unchanged_since_checked(start, checked)
    if changed is not None:
        raise ValueError(changed)
    return RLSetup(trainer, config, rollout, recorder, kept, skipped)


def train_rl(
    config: RLRunConfig | str | Path, specs: Sequence[EnvSpec], out_dir: Path, *,
    reward: RewardMode | None = None, credit: CreditMode | None = None, model_path: str | Path | None = None,
    max_steps: int | None = None, sampler_factory: SamplerFactory | None = None,
    progress: Callable[[dict[str, float]], None] | None = None, model_record: str | None = None,
) -> RLResult:
    """GRPO on student episodes in `specs`; writes the checkpoint, `rl_log.json`, `reward_curve.png`, `rl_run.json`.

    `config` is an `RLRunConfig`, a config name (`rl-tiny`) or a YAML path; `reward`, `credit`, `model_path` (a
    checkpoint to start from) and `max_steps` override it. An earlier run at `out_dir` is replaced only once this
    one is complete. See `build_rl_trainer` for `sampler_factory`, `progress` and `model_record` (its
    `start_record`).
    """
    started = time.perf_counter()
    run = config if isinstance(config, RLRunConfig) else load_rl_config(config)
    run = run.variant(reward, credit, model_path, max_steps)
    start = Path(run.model.name_or_path) if run.model.source != "tiny" and run.model.name_or_path else None
    if start is not None and start.is_dir():  # a local checkpoint: its files checked before anything is built
        damaged = _start_problem(start, model_record)
        if damaged is not None:
            raise ValueError(damaged)
    in_output = start_in_output_problem(start, out_dir, "--model" if model_path is not None
                                        else "the config's model.name_or_path")
    if in_output is not None:
        raise ValueError(in_output)
    among_episodes = episode_output_problem(out_dir, "rl", own="rollouts")  # a rollout's folder, an eval's runs
    if among_episodes is not None:
        raise ValueError(among_episodes)
    out_dir = Path(out_dir).resolve()
    if out_dir.exists() and any(out_dir.iterdir()) and not (out_dir / RUN_METADATA).is_file():
        raise FileExistsError(f"{out_dir} exists, is not empty and is not an RL run (no {RUN_METADATA}); "
                              "pass a new or empty folder")
    with checkpoint_staging(out_dir) as staging:  # a second run into `out_dir` waits for this one
        return _train_into(staging, out_dir, run, specs, sampler_factory, progress, started, model_record)


def _start_problem(start: Path, record: str | None) -> str | None:
    """Why the local start `start` cannot be trained from: another record than `record` (when given), or a file that
    differs from its record (`checkpoint_files_problem`); None when it can."""
    other = None if record is None else record_problem(start, record, "nothing was trained: start again once "
                                                       "whatever saves into it has ended (in the pipeline: materialize "
                                                       "pocketworker_checkpoint again, then the RL assets)")
    return other or checkpoint_files_problem(start)


def _train_into(staging: Path, out_dir: Path, run: RLRunConfig, specs: Sequence[EnvSpec],
                sampler_factory: SamplerFactory | None, progress: Callable[[dict[str, float]], None] | None,
                started: float, model_record: str | None) -> RLResult:
    setup = build_rl_trainer(run, specs, staging, sampler_factory=sampler_factory, progress=progress,
                             start_record=model_record)
    trainer, recorder = setup.trainer, setup.recorder
    output = trainer.train()
    with saving_weights(staging, out_dir, trainer.is_world_process_zero()):  # a full disk: named, the save removed
        trainer.save_model(str(staging))
    result = RLResult(
        out_dir=out_dir, reward=run.reward, credit=run.credit, steps=int(trainer.state.global_step),
        wall_s=round(time.perf_counter() - started, 3), envs=[spec.id for spec in setup.envs],
        envs_skipped=setup.envs_skipped, log=recorder.entries, config=run.to_dict(),
        reward_curve=out_dir / REWARD_CURVE, parameters=int(cast(Any, trainer.model).num_parameters()),
        metrics={k: float(v) for k, v in output.metrics.items() if isinstance(v, int | float)},
    )
    if trainer.is_world_process_zero():
        with finishing_checkpoint(staging, out_dir):  # a full disk now names where the weights are
            write_rendering(staging, setup.rollout.renderer.rendering)
            if run.model.source == "tiny":
                portable_tokenizer_class(staging)  # so `vllm serve` (transformers 4) can load the tokenizer
            write_json_atomic(staging / RL_LOG, {"config": run.name, "reward": run.reward, "credit": run.credit,
                                                 "steps": recorder.entries})
            write_reward_curve(staging / REWARD_CURVE, recorder.entries, run.reward,
                               title=f"GRPO {run.reward} reward, {run.credit} credit ({run.name})")
            write_json_atomic(staging / RUN_METADATA, result.to_dict())
        replace_dir(staging, out_dir)
    trainer.accelerator.wait_for_everyone()
    return result


def main(argv: Sequence[str] | None = None) -> None:
    """Command-line entry for launchers: `accelerate launch -m trainers.rl --config NAME --envs DIR --out DIR`."""
    from coworkenv.log_lines import escape_last_resort

    escape_last_resort()  # a warning naming a path: one line, no escape code reaching the terminal
    import argparse
    import json

    from coworkenv.store.stages import read_specs

    parser = argparse.ArgumentParser(prog="python -m trainers.rl", description=main.__doc__)
    parser.add_argument("--config", required=True, help="config name in trainers/configs/ or a YAML path")
    parser.add_argument("--envs", required=True, type=Path, help="folder of env Parquet files (spec_json column)")
    parser.add_argument("--out", required=True, type=Path, help="run folder to write")
    parser.add_argument("--reward", choices=("binary", "partial", "shaped"), help="override the config's reward")
    parser.add_argument("--credit", choices=("trajectory", "turn"), help="override the config's credit assignment")
    parser.add_argument("--model", type=Path, help="checkpoint to start from (e.g. the SFT output)")
    parser.add_argument("--max-steps", type=int, help="override training.max_steps")
    args = parser.parse_args(argv)
    result = train_rl(args.config, read_specs(args.envs), args.out, reward=args.reward, credit=args.credit,
                      model_path=args.model, max_steps=args.max_steps,
                      progress=lambda entry: print(json.dumps(entry), flush=True))
    print(json.dumps({k: v for k, v in result.to_dict().items() if k != "log"}, indent=2))


if __name__ == "__main__":
    main()
