"""The environment-level half of curation: near-duplicate requests, request families, splits by family and
decontamination of train against held-out and external requests.

Splits go by request family (texts linked by Jaccard >= `decontam_threshold`), not by single environment: a
family sits wholly in one split, so decontamination has nothing to remove inside the generated data and only
catches what resembles an external benchmark.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from coworkenv.curate.config import TEST, TRAIN, VALIDATION, CurationConfig
from coworkenv.curate.neardup import contaminated, near_duplicate_clusters, request_families


def _fraction(key: str, seed: int) -> float:
    # A stable hash: a family keeps its split when unrelated envs are added to the dataset.
    digest = hashlib.sha256(f"{seed}:{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def assign_split(env_id: str, capability: str, config: CurationConfig, family: str | None = None) -> str:
    """The split of an environment: held-out capabilities first, then by a stable hash of its family's name
    (its own id when `family` is None)."""
    if capability in config.heldout_capabilities:
        return config.heldout_split
    u = _fraction(family if family is not None else env_id, config.seed)
    if u < config.test_fraction:
        return TEST
    if u < config.test_fraction + config.validation_fraction:
        return VALIDATION
    return TRAIN


@dataclass(frozen=True)
class RequestSplits:
    """Per environment: its near-duplicate representative, its family, its split (kept envs only), and the
    train envs removed as contaminated."""

    representative: dict[str, str]
    family: dict[str, str]
    split: dict[str, str]
    contaminated: frozenset[str]

    @property
    def kept(self) -> list[str]:
        """Envs that survive near-duplicate removal and decontamination, in id order."""
        return sorted(e for e in self.split if e not in self.contaminated)


def split_requests(
    texts: Mapping[str, str], order: Iterable[str], capability: Mapping[str, str], config: CurationConfig
) -> RequestSplits:
    """Dedup `texts` (env id -> request; the first env in `order` represents its cluster), group the kept
    envs into request families, split by family, and find train envs near a held-out or external request."""
    representative, signatures = near_duplicate_clusters(
        texts, order, threshold=config.near_dup_threshold, num_perm=config.num_perm, k=config.shingle_words)
    kept = sorted(e for e, r in representative.items() if e == r)
    family = request_families(texts, kept, threshold=config.decontam_threshold, num_perm=config.num_perm,
                              k=config.shingle_words, known=signatures)
    split = {e: assign_split(e, capability[e], config, family[e]) for e in kept}
    held = {e: texts[e] for e, s in split.items() if s != TRAIN}
    held |= {f"external:{i}": text for i, text in enumerate(config.decontaminate_against)}
    train = {e: texts[e] for e, s in split.items() if s == TRAIN}
    dirty = contaminated(train, held, signatures, threshold=config.decontam_threshold, num_perm=config.num_perm,
                         k=config.shingle_words)
    return RequestSplits(representative, family, split, frozenset(dirty))
