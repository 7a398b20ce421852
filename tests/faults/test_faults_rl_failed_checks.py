"""Fault corpus, the RL assets materialized alone (the UI's "Materialize" on rl_checkpoint or rl_comparison) after
sft_shards failed a blocking check: they take their envs from the train split of the latest sft_shards
materialization through `current_sft_files`, which refuses splits whose checks failed (faults75), but no case ran
them. On `main` the refusal came only after `trainers.rl` (torch, trl) was imported: tens of seconds on a loaded
machine for a run that trains nothing, and a refusal that needs torch installed to be seen at all.

What must hold: both refuse before anything is imported for training (torch and `trainers.rl` are made unimportable
here for the asset's call), naming sft_shards, the failed check and what to do; with sft_shards curated again and its
checks passing, the same run goes on with the train split's env (guard).

On faults75's chain: each sft_shards run a real Dagster run of the real asset on an ephemeral instance (its curation
a stand-in, putting env 1 in the train and the test split: a fault of curation the checks are there to catch); the
RL asset starts from a checkpoint stand-in and stops at the input hash it records, which captures its env ids.
"""

from __future__ import annotations

import sys
from types import SimpleNamespace
from typing import Any

import dagster as dg
import pytest

import assets.rl as rl_assets
from tests.faults.test_faults_checks_failed_read_later import ENV_1, _assert_refused, _curate
from tests.faults.test_faults_checks_failed_read_later import chain as chain  # the fixture

TRAINING_MODULES = ("torch", "transformers", "trainers.rl", "trainers.rl_compare")  # trl: its package only (its
# chat templates, read by the config check), lazy and cheap


class Chosen(Exception):
    """The RL asset chose its envs and went on to record what it is made from."""


def _rl_run(chain: SimpleNamespace, asset: str) -> list[str]:
    """`asset` materialized alone with nothing for training importable: the env ids it chose (dg.Failure: refused)."""
    chosen: list[str] = []

    def stop(_: str, __: str, env_ids: list[str], *___: Any) -> str:
        chosen.extend(env_ids)
        raise Chosen

    states = list(chain.states)
    chain.monkeypatch.setattr(rl_assets, "complete_partitions", lambda *_: states)
    chain.monkeypatch.setattr(rl_assets, "_sft_checkpoint", lambda *_: (chain.settings.root, "tiny-v1-abc", None))
    chain.monkeypatch.setattr(rl_assets, "rl_input_hash", stop)
    with pytest.MonkeyPatch.context() as unimportable:
        for module in TRAINING_MODULES:
            if module not in sys.modules or module.startswith("trainers."):
                unimportable.setitem(sys.modules, module, None)  # `import` raises ImportError
        try:
            with dg.build_asset_context(instance=chain.instance) as context:
                list(getattr(rl_assets, asset)(context, chain.settings) or [])
        except Chosen:
            return chosen
        except ImportError as imported:
            raise AssertionError(f"{asset} imported {imported.name or imported} before checking its inputs "
                                 "(torch: seconds, tens on a loaded machine, for a run it may refuse)") from None
    raise AssertionError(f"{asset} neither refused nor chose its envs")


@pytest.mark.parametrize("asset", ["rl_training", "rl_comparison"])
def test_rl_refuses_a_train_split_whose_blocking_checks_failed_before_importing_torch(
        chain: SimpleNamespace, asset: str) -> None:
    """On `main`: `trainers.rl` imported (torch) before the splits were read and refused."""
    assert not _curate(chain, leaks=True)  # the run stopped at the failed check, its materialization recorded
    try:
        chosen = _rl_run(chain, asset)
    except dg.Failure as refused:
        _assert_refused(str(refused))
    else:
        raise AssertionError(f"{asset} went on with the train envs {chosen} of splits the checks refused")
    assert _curate(chain, leaks=False)  # guard: curated again, the checks pass, the same run goes on
    assert _rl_run(chain, asset) == [ENV_1]
