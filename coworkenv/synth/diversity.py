"""How different a set of generated specs is: near-duplicate request clusters (the measure curation uses),
distinct content, reference tool-call sequences and entities."""

from __future__ import annotations

from collections import Counter
from typing import Any

from coworkenv.apps import TOOLS
from coworkenv.curate.config import CurationConfig
from coworkenv.curate.neardup import near_duplicate_clusters, request_families
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


def request_text(spec: EnvSpec) -> str:
    """The spec's user turns joined: the text curation deduplicates and decontaminates on."""
    return "\n\n".join(t.content for t in spec.turns)


def request_clusters(texts: dict[str, str], config: CurationConfig | None = None) -> tuple[int, int]:
    """(near-duplicate clusters at `near_dup_threshold`, request families at `decontam_threshold`) of request
    texts by id: what curation keeps, and the groups it must keep in one split."""
    config = config or CurationConfig()
    order = sorted(texts)
    representative, sigs = near_duplicate_clusters(texts, order, threshold=config.near_dup_threshold,
                                                   num_perm=config.num_perm, k=config.shingle_words)
    kept = [key for key in order if representative[key] == key]
    families = request_families(texts, kept, threshold=config.decontam_threshold, num_perm=config.num_perm,
                                k=config.shingle_words, known=sigs)
    return len(kept), len(set(families.values()))


def diversity_report(specs: list[EnvSpec]) -> dict[str, Any]:
    """Near-duplicate clusters and request families of the requests (per 1k specs), distinct content hashes (count and fraction), distinct reference sequences (all steps and writes only),
    distinct first prompts, distinct entities per kind, and the difficulty histogram."""
    n = len(specs)
    hashes = {spec_content_hash(s) for s in specs}
    sequences = [reference_sequence(s) for s in specs]
    entities: dict[str, set[str]] = {}
    for spec in specs:
        for kind, values in _entities(spec).items():
            entities.setdefault(kind, set()).update(values)
    frac = (lambda k: round(k / n, 4)) if n else (lambda k: 0.0)
    clusters, families = request_clusters({f"{i}": request_text(s) for i, s in enumerate(specs)}) if n else (0, 0)
    return {
        "n": n,
        "near_dup_clusters_per_1k": round(clusters * 1000 / n, 1) if n else 0.0,
        "request_families_per_1k": round(families * 1000 / n, 1) if n else 0.0,
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
