"""Curation settings and the names of its filters and splits."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

TRAIN, VALIDATION, TEST = "train", "validation", "test"
# Filters in the order they run; the report counts each row once, under the first filter that removed it.
FILTERS = (
    "not_passed", "malformed", "tool_errors", "too_long", "exact_duplicate", "near_duplicate", "decontaminated",
    "over_env_cap", "over_capability_quota",
)


@dataclass(frozen=True)
class CurationConfig:
    """How trajectories become SFT splits. Fractions are of environments, not rows."""

    max_tool_errors: int = 3
    max_tool_error_rate: float = 0.5
    max_tokens: int = 16_384
    chars_per_token: float = 4.0  # token estimate for the length filter (no tokenizer needed)
    near_dup_threshold: float = 0.85
    decontam_threshold: float = 0.7
    num_perm: int = 64
    shingle_words: int = 3
    validation_fraction: float = 0.05
    test_fraction: float = 0.05
    heldout_capabilities: tuple[str, ...] = ()
    heldout_split: str = "test_heldout"
    max_rows_per_env: int | None = None
    max_rows_per_capability: int | None = None
    decontaminate_against: tuple[str, ...] = ()
    max_rows_per_shard: int = 50_000
    seed: int = 0

    def __post_init__(self) -> None:
        problems = []
        for name in ("near_dup_threshold", "decontam_threshold"):
            if not 0.0 < getattr(self, name) <= 1.0:
                problems.append(f"{name} must be in (0, 1], got {getattr(self, name)}")
        for name in ("validation_fraction", "test_fraction", "max_tool_error_rate"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                problems.append(f"{name} must be in [0, 1], got {getattr(self, name)}")
        if self.validation_fraction + self.test_fraction >= 1.0:
            problems.append("validation_fraction + test_fraction must leave room for train (< 1)")
        for name in ("max_tokens", "num_perm", "shingle_words", "max_rows_per_shard"):
            if getattr(self, name) < 1:
                problems.append(f"{name} must be >= 1, got {getattr(self, name)}")
        for name in ("max_rows_per_env", "max_rows_per_capability"):
            value = getattr(self, name)
            if value is not None and value < 1:
                problems.append(f"{name} must be >= 1 or None, got {value}")
        if self.heldout_split in (TRAIN, VALIDATION, TEST):
            problems.append(f"heldout_split must differ from {TRAIN}/{VALIDATION}/{TEST}, got {self.heldout_split!r}")
        if problems:
            raise ValueError("invalid curation config: " + "; ".join(problems))

    @property
    def split_names(self) -> tuple[str, ...]:
        return (TRAIN, VALIDATION, TEST, self.heldout_split)

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["heldout_capabilities"] = list(self.heldout_capabilities)
        data["decontaminate_against"] = len(self.decontaminate_against)
        return data
