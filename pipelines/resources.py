"""Settings resource: configured once, read by every asset."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
from pydantic import Field

from coworkenv.synth import Taxonomy, load_taxonomy


class CoworkenvSettings(dg.ConfigurableResource):  # type: ignore[type-arg]
    """Where data lives and how each stage runs. Defaults are the embedded, offline configuration."""

    data_dir: str = Field(default="data", description="Root of the content-addressed Parquet store, hub repo and checkpoints")
    taxonomy_dir: str = Field(default="taxonomy", description="Folder of capability YAML files")
    seed: int = Field(default=0, description="Base seed of procedural generation")
    specs_per_capability: int = Field(default=0, description="Specs generated per capability; 0 uses each capability's quota")
    llm_url: str = Field(default="", description="OpenAI-compatible endpoint for generation/teacher; empty = procedural + oracle")
    llm_model: str = Field(default="", description="Model name at llm_url")
    repair_rounds: int = Field(default=3, description="Repair rounds of the validation loop")
    min_acceptance_rate: float = Field(default=0.5, description="validated_envs check: minimum acceptance rate")
    hub_repo_id: str = Field(default="", description="Hugging Face dataset repo id; empty = local git repo under data/hub")
    train_config: str = Field(default="tiny", description="Trainer config name in trainers/configs")
    held_out_capability: str = Field(default="", description="Capability kept out of training for the held-out test split")
    hub_model_repo_id: str = Field(default="", description="Hugging Face model repo id; empty = local git repo under data/hub")
    eval_max_envs: int = Field(default=6, description="Held-out envs evaluated (the tiny CPU model is slow to sample)")
    eval_k: int = Field(default=1, description="Samples per env for pass@1 / pass^k")
    eval_max_steps: int = Field(default=4, description="Assistant messages per evaluated episode")
    eval_max_tokens: int = Field(default=96, description="Tokens per generated assistant message")

    @property
    def root(self) -> Path:
        return Path(self.data_dir)

    @property
    def store_root(self) -> Path:
        return self.root / "store"

    def taxonomy(self) -> Taxonomy:
        return load_taxonomy(Path(self.taxonomy_dir))
