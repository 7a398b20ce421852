"""How different a set of generated specs is: distinct content, reference tool-call sequences and entities."""

from __future__ import annotations

from collections import Counter
from typing import Any

from coworkenv.apps import TOOLS
from coworkenv.spec import EnvSpec
from coworkenv.world import content_hash


def spec_content_hash(spec: EnvSpec) -> str:
    """Hash of everything but the metadata: two specs that differ only in seed or title hash the same."""
    data = spec.model_dump(mode="json", by_alias=True, exclude={"metadata"})
    return content_hash(data)[:16]


def reference_sequence(spec: EnvSpec) -> tuple[str, ...]:
    """The app operations of the reference solution in order, with turn boundaries as '|'.

    A spec-declared tool counts as the operation it is bound to.
    """
    ops = {d.name: d.bind.op for d in spec.tool_decls}
    out: list[str] = []
    for i, turn in enumerate(spec.reference):
        if i:
            out.append("|")
        out.extend(ops.get(step.call.name, step.call.name) for step in turn.steps if step.call is not None)
    return tuple(out)


def _writes(seq: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(t for t in seq if t == "|" or TOOLS[t].kind == "write")


def _entities(spec: EnvSpec) -> dict[str, set[str]]:
    apps = spec.world.apps
    return {
        "people": {p.name for p in apps.directory.people},
        "teams": {t.name for t in apps.directory.teams},
        "services": {s.id for s in apps.services.services},
        "companies": {p.email.split("@", 1)[1] for p in apps.directory.people},
        "files": {f.id for f in apps.files.files},
        "users": {spec.user},
    }


def diversity_report(specs: list[EnvSpec]) -> dict[str, Any]:
    """Distinct content hashes (count and fraction), distinct reference sequences (all steps and writes only),
    distinct first prompts, distinct entities per kind, and the difficulty histogram."""
    n = len(specs)
    hashes = {spec_content_hash(s) for s in specs}
    sequences = [reference_sequence(s) for s in specs]
    entities: dict[str, set[str]] = {}
    for spec in specs:
        for kind, values in _entities(spec).items():
            entities.setdefault(kind, set()).update(values)
    frac = (lambda k: round(k / n, 4)) if n else (lambda k: 0.0)
    return {
        "n": n,
        "distinct_content": len(hashes),
        "distinct_content_fraction": frac(len(hashes)),
        "distinct_reference_sequences": len(set(sequences)),
        "distinct_reference_sequences_fraction": frac(len(set(sequences))),
        "distinct_write_sequences": len({_writes(s) for s in sequences}),
        "distinct_prompts": len({s.turns[0].content for s in specs}),
        "distinct_entities": {kind: len(values) for kind, values in sorted(entities.items())},
        "difficulty": dict(sorted(Counter(s.metadata.difficulty for s in specs).items())),
        "turns": dict(sorted(Counter(len(s.turns) for s in specs).items())),
        "mean_reference_steps": round(sum(len(s) for s in sequences) / n, 2) if n else 0.0,
    }
