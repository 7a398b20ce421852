"""PocketWorker training: SFT with TRL on the sft_shards (RL and evaluation build on the same configs).

The public API is re-exported here and imported on first use, so `import trainers` stays cheap for callers that
only load configs (torch, transformers and trl take seconds to import).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from trainers.config import SFTRunConfig, load_sft_config
    from trainers.evaluate import EvalReport, compare_reports, evaluate
    from trainers.local_backend import LocalTransformersBackend
    from trainers.rl import RLResult, train_rl
    from trainers.sft import SFTProgress, SFTResult, train_sft
    from trainers.sft_data import DataFile, load_train_split, tokenize_conversation
    from trainers.tiny_model import TinyModelSpec, build_tiny_model

__all__ = [
    "DataFile",
    "EvalReport",
    "LocalTransformersBackend",
    "RLResult",
    "SFTProgress",
    "SFTResult",
    "SFTRunConfig",
    "TinyModelSpec",
    "build_tiny_model",
    "compare_reports",
    "evaluate",
    "load_sft_config",
    "load_train_split",
    "tokenize_conversation",
    "train_rl",
    "train_sft",
]

_HOME = {
    "SFTRunConfig": "trainers.config",
    "load_sft_config": "trainers.config",
    "SFTProgress": "trainers.sft",
    "SFTResult": "trainers.sft",
    "train_sft": "trainers.sft",
    "DataFile": "trainers.sft_data",
    "load_train_split": "trainers.sft_data",
    "tokenize_conversation": "trainers.sft_data",
    "TinyModelSpec": "trainers.tiny_model",
    "build_tiny_model": "trainers.tiny_model",
    "EvalReport": "trainers.evaluate",
    "compare_reports": "trainers.evaluate",
    "evaluate": "trainers.evaluate",
    "LocalTransformersBackend": "trainers.local_backend",
    "RLResult": "trainers.rl",
    "train_rl": "trainers.rl",
}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module 'trainers' has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOME[name]), name)
    globals()[name] = value  # later lookups skip this function
    return value
