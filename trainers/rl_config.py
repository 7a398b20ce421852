"""RL run configurations: typed, loaded from `trainers/configs/<name>.yaml` or any YAML path.

The model section is the SFT one (`trainers.config.ModelSection`): a locally built tiny model, or weights by Hub id
or path (an SFT checkpoint folder is the usual start). `rollout` bounds the student's episodes, `training` becomes
TRL's `GRPOConfig`, `reward` and `credit` pick the reward treatment and the credit assignment (see
`trainers.rewards`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from coworkenv.yaml_files import YAML_SUFFIXES
from trainers.config import (
    CONFIGS_DIR,
    ConfigSection,
    DistributedSection,
    ModelSection,
    config_not_found,
    launcher_files,
    read_run_config,
)
from trainers.rewards import CreditMode, RewardMode

__all__ = ["RLRunConfig", "RLTrainingSection", "RolloutSection", "load_rl_config"]


class RolloutSection(ConfigSection):
    """Bounds and sampling of the student's episodes."""

    max_new_tokens: Annotated[int, Field(ge=1, description="tokens per assistant message")] = 64
    max_agent_steps: Annotated[int, Field(ge=1, description="assistant messages per episode")] = 6
    max_completion_tokens: Annotated[
        int, Field(ge=8, description="tokens after the prompt per episode: generated plus tool results/user turns")
    ] = 512
    max_prompt_tokens: Annotated[
        int | None, Field(ge=16, description="envs whose first prompt is longer are left out (and reported)")
    ] = None
    temperature: Annotated[float, Field(gt=0)] = 1.0
    top_p: Annotated[float, Field(gt=0, le=1)] = 1.0
    save_rollouts: Annotated[bool, Field(description="write every step's episodes as trajectory Parquet")] = True
    reuse_caches: Annotated[bool, Field(
        description="keep each episode's KV cache across its messages and share a group's prompt "
        "(trainers.prefix_cache); false prefills every message whole")] = True
    decoding: Annotated[Literal["free", "grammar"], Field(
        description="grammar: every message is sampled under a grammar of the env's tools (trainers.tool_grammar), "
        "as an evaluation with decoding=grammar generates; free: unconstrained")] = "free"
    tool_choice: Annotated[Literal["auto", "first", "required"], Field(
        description="under decoding=grammar: auto, the student replies or calls; first, the first message of every "
        "user turn must be tool calls; required, every message (the episode ends at max_agent_steps); "
        "trainers.tool_grammar")] = "auto"

    @model_validator(mode="after")
    def _choice_needs_grammar(self) -> RolloutSection:
        if self.tool_choice != "auto" and self.decoding != "grammar":
            raise ValueError(f"rollout.tool_choice {self.tool_choice!r} needs rollout.decoding: grammar (free decoding "
                             "cannot require a call); set decoding: grammar or tool_choice: auto")
        return self


class RLTrainingSection(ConfigSection):
    """Optimisation settings, passed through to TRL's `GRPOConfig`."""

    max_steps: Annotated[int, Field(ge=1)] = 4
    num_generations: Annotated[int, Field(ge=2, description="episodes per env and step (the GRPO group)")] = 4
    per_device_train_batch_size: Annotated[int, Field(ge=1)] = 4
    gradient_accumulation_steps: Annotated[int, Field(ge=1)] = 1
    learning_rate: Annotated[float, Field(gt=0)] = 1e-5
    lr_scheduler_type: str = "constant"
    beta: Annotated[float, Field(ge=0, description="KL coefficient to the starting model; 0 needs no reference")] = 0.0
    epsilon: Annotated[float, Field(gt=0)] = 0.2
    loss_type: Literal["grpo", "bnpo", "dr_grpo", "dapo"] = "dapo"
    scale_rewards: Literal["group", "batch", "none"] = "group"
    max_grad_norm: Annotated[float, Field(gt=0)] = 1.0
    seed: int = 0
    bf16: bool = False
    gradient_checkpointing: bool = False
    logging_steps: Annotated[int, Field(ge=1)] = 1
    unpad_loss_rows: Annotated[bool, Field(
        description="a copy-head model's loss runs each row without its padding, one at a time; false runs the "
        "padded batch at once, which a GPU may do faster (trainers.copy_model.install_fused_lm_head)")] = True

    @model_validator(mode="after")
    def _groups_fit(self) -> RLTrainingSection:
        batch = self.per_device_train_batch_size * self.gradient_accumulation_steps
        if batch % self.num_generations:
            raise ValueError(
                f"per_device_train_batch_size x gradient_accumulation_steps ({batch}) must be a multiple of "
                f"num_generations ({self.num_generations}): every step holds whole groups of episodes"
            )
        return self


class RLRunConfig(ConfigSection):
    """One RL recipe: starting model, rollout bounds, optimisation, reward treatment and credit assignment."""

    name: Annotated[str, Field(min_length=1)]
    description: str = ""
    model: ModelSection
    rollout: RolloutSection = RolloutSection()
    training: RLTrainingSection = RLTrainingSection()
    reward: RewardMode = "partial"
    credit: CreditMode = "trajectory"
    call_credit: Annotated[float, Field(ge=0, le=1, description=(
        "weight w of the reference's tool calls in the partial and shaped rewards: score + w * (1 - score) * share of "
        "the reference's calls made, 0 once a guard fails (trainers.rewards); 0: the verifier's score alone"))] = 0.0
    distributed: DistributedSection = DistributedSection()

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict (paths as strings), for run metadata."""
        data: dict[str, Any] = json.loads(self.model_dump_json())
        return data

    def variant(self, reward: RewardMode | None = None, credit: CreditMode | None = None,
                model_path: str | Path | None = None, max_steps: int | None = None) -> RLRunConfig:
        """This config with the reward treatment, credit assignment, starting checkpoint or steps replaced."""
        update: dict[str, Any] = {}
        if reward is not None:
            update["reward"] = reward
        if credit is not None:
            update["credit"] = credit
        if model_path is not None:
            # A checkpoint carries its own tokenizer and template, so the config's template is not forced on it.
            update["model"] = self.model.model_copy(
                update={"source": "pretrained", "name_or_path": str(model_path), "chat_template": None})
        if max_steps is not None:
            update["training"] = self.training.model_copy(update={"max_steps": max_steps})
        return self.model_copy(update=update)


def load_rl_config(config: str | Path) -> RLRunConfig:
    """Load an RL config by name (`rl-tiny`, `rl-pocketworker-8b`: files in `trainers/configs/`) or YAML path."""
    path = Path(config)
    if path.suffix.lower() not in YAML_SUFFIXES:
        path = CONFIGS_DIR / f"{config}.yaml"
    if not path.exists():
        known = sorted(p.stem for p in CONFIGS_DIR.glob("rl-*.yaml"))
        raise FileNotFoundError(config_not_found("RL config", config, path, known))
    parsed = read_run_config(path, RLRunConfig, "an RL config")
    return parsed.model_copy(update={"distributed": launcher_files(parsed.distributed, path)})
