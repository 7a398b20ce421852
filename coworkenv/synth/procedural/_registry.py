"""The registry of procedural generators, keyed by the capability (or generator) id they serve."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from coworkenv.spec import EnvSpec
from coworkenv.synth.procedural._task import GenContext
from coworkenv.synth.taxonomy import StateChange

GeneratorFn = Callable[[GenContext], EnvSpec]


@dataclass(frozen=True)
class GeneratorInfo:
    """A generator and the shape of the specs it makes (checked against the taxonomy when generating)."""

    id: str
    fn: GeneratorFn
    multi_turn: bool
    state_change: StateChange
    module: str


GENERATORS: dict[str, GeneratorInfo] = {}


def register(
    gen_id: str, *, multi_turn: bool = False, state_change: StateChange = "none"
) -> Callable[[GeneratorFn], GeneratorFn]:
    """Register a generator under an id (a capability id, or a `generator:` a capability names)."""

    def decorate(fn: GeneratorFn) -> GeneratorFn:
        """Add `fn` to the registry."""
        if gen_id in GENERATORS:
            raise ValueError(f"generator {gen_id!r} registered twice ({GENERATORS[gen_id].module}, {fn.__module__})")
        GENERATORS[gen_id] = GeneratorInfo(gen_id, fn, multi_turn, state_change, fn.__module__)
        return fn

    return decorate
