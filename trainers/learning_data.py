"""Envs and teacher demonstrations for a learnability study: validated procedural envs split by seed, and the
oracle's narrated trajectories as SFT shards.

Train and held-out envs of a capability come from disjoint seed ranges, so held-out envs have other people, ids,
values and phrasings; a held-out capability contributes no training env at all. Every env passes
`coworkenv.validate.validate_spec` and its reference solution passes the verifier before it is used.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from coworkenv.rollout import OracleTeacher, TrajectoryRecord
from coworkenv.spec import EnvSpec
from coworkenv.store.stages import SFT, sft_table
from coworkenv.synth.generate import generate_spec
from coworkenv.synth.taxonomy import Capability
from coworkenv.validate.validation import validate_spec

__all__ = ["HELDOUT_SEED_OFFSET", "EnvSet", "demonstrations", "validated_envs", "write_sft_shard"]

HELDOUT_SEED_OFFSET = 1_000_000  # held-out seeds start here; training seeds start at 0


@dataclass(frozen=True)
class EnvSet:
    """Validated envs of one capability, and how many generated ones the gates rejected."""

    capability: str
    specs: list[EnvSpec]
    rejected: int


def validated_envs(cap: Capability, n: int, first_seed: int, *, max_tries: int | None = None) -> EnvSet:
    """`n` envs of `cap` that pass the validation gates, from seeds `first_seed`, `first_seed + 1`, ...

    Raises when `max_tries` seeds (default 3n) give fewer than `n`: the capability's generator is then unreliable.
    """
    tries = max_tries if max_tries is not None else 3 * n
    specs: list[EnvSpec] = []
    rejected = 0
    for seed in range(first_seed, first_seed + tries):
        if len(specs) == n:
            break
        result = validate_spec(generate_spec(cap, seed))
        if result.passed and result.spec is not None:
            specs.append(result.spec)
        else:
            rejected += 1
    if len(specs) < n:
        raise RuntimeError(f"capability {cap.id!r}: only {len(specs)} of {tries} generated envs passed validation "
                           f"(wanted {n}); check its generator with `coworkenv validate`")
    return EnvSet(cap.id, specs, rejected)


def demonstrations(specs: Sequence[EnvSpec], *, seed: int = 0, k: int = 1, terse: bool = False,
                   grounded: bool = False, progress: Callable[[int, int], None] | None = None) -> list[TrajectoryRecord]:
    """The oracle teacher's episodes (k phrasings per env; `terse`: without narration; `grounded`: it lists or
    searches before writing a value it has not seen), keeping only those the verifier passes."""
    teacher = OracleTeacher(seed, k=k, terse=terse, grounded=grounded)
    records: list[TrajectoryRecord] = []
    for index, spec in enumerate(specs):
        records.extend(r for r in teacher.run(spec) if r.passed)
        if progress is not None and (index + 1) % 200 == 0:
            progress(index + 1, len(specs))
    return records


def write_sft_shard(records: Sequence[TrajectoryRecord], out_dir: Path) -> Path:
    """Write `records` as one `sft_shards`-format train file (`train-00000-of-00001.parquet`) under `out_dir`."""
    out_dir.mkdir(parents=True, exist_ok=True)
    return SFT.write(sft_table(records, "train"), out_dir / "train-00000-of-00001.parquet")
