"""Seeded, deterministic generation of environment specs for a capability."""

from __future__ import annotations

import random

from coworkenv.spec import EnvSpec
from coworkenv.synth.procedural import GENERATORS, GenContext
from coworkenv.synth.taxonomy import Capability


class GeneratorError(ValueError):
    """A capability the procedural generators cannot serve as defined (what is wrong and what to do)."""


def generate_spec(cap: Capability, seed: int) -> EnvSpec:
    """One environment for `cap`; the same capability and seed always give the same spec."""
    info = GENERATORS.get(cap.generator_id)
    if info is None:
        known = ", ".join(sorted(GENERATORS))
        raise GeneratorError(
            f"capability {cap.id!r}: no procedural generator {cap.generator_id!r}; set `generator:` to one of "
            f"{known}, or synthesize it with an LLM (coworkenv synth --llm URL --model NAME)"
        )
    if info.multi_turn != cap.multi_turn or info.state_change != cap.state_change:
        raise GeneratorError(
            f"capability {cap.id!r} asks for multi_turn={cap.multi_turn}, state_change={cap.state_change!r} but "
            f"generator {info.id!r} makes multi_turn={info.multi_turn}, state_change={info.state_change!r} specs; "
            "change the capability in the taxonomy or pick another generator"
        )
    # A string seed is hashed with SHA-512 by `random`: stable across processes and Python versions.
    rng = random.Random(f"{cap.id}|{seed}")
    lo, hi = cap.difficulty
    ctx = GenContext(cap, seed, rng.randint(lo, hi), rng)
    return info.fn(ctx)


def generate_specs(cap: Capability, n: int, seed: int) -> list[EnvSpec]:
    """`n` environments for `cap`, the i-th from seed `seed + i` (so each one can be regenerated alone)."""
    return [generate_spec(cap, seed + i) for i in range(n)]
