"""Validation policies and the settings of the gates.

- `strict` (generated training data): every defect a gate finds rejects the spec; incidental reference writes
  are trimmed from the reference instead (the reference is minimised).
- `report` (imported benchmark tasks): every gate runs; the spec is accepted unless it cannot be parsed or run,
  and every defect found is listed in the validation's `findings`.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Literal

Policy = Literal["strict", "report"]
POLICIES: tuple[Policy, ...] = typing.get_args(Policy)
# Codes that keep a spec out even under `report`: without a parsed spec and a runnable world there is no env.
BLOCKING_CODES = frozenset({"env_error"})


@dataclass(frozen=True)
class ValidationConfig:
    """Settings of the gates (the defaults are the training-data settings)."""

    # The most a do-nothing agent (and the untouched initial state) may score on the task's checks (guards
    # excluded: they hold whenever no harm is done).
    noop_score_ceiling: float = 0.1
    # Wrong alternatives tried per referenced entity or enum besides the values the checks themselves name.
    max_alternatives: int = 1
    # Times each Python check is re-run on the reference's final state to probe for randomness.
    python_repeats: int = 3
    # Clock offsets (seconds) a Python check must give the same verdict under: real-clock dependence.
    clock_offsets_s: tuple[int, ...] = (86_400, 366 * 86_400, 10 * 366 * 86_400)
    # Strict only: drop reference writes no check needs, instead of rejecting.
    minimise_reference: bool = True
    # Strict only: sandbox isolation layers that must take effect before a spec's Python code runs at all (the
    # unprivileged kernel layers that carry the boundary on any Linux host; COWORKENV_SANDBOX_REQUIRE adds more).
    sandbox_layers: tuple[str, ...] = ("caps-drop", "rlimits", "no-new-privs", "landlock", "seccomp")

    def __post_init__(self) -> None:
        if not 0.0 <= self.noop_score_ceiling < 1.0:
            raise ValueError(f"noop_score_ceiling must be in [0, 1), got {self.noop_score_ceiling}")
        if self.max_alternatives < 1:
            raise ValueError(f"max_alternatives must be >= 1, got {self.max_alternatives}")


def check_policy(policy: str) -> Policy:
    """The policy named `policy`, or a ValueError saying which ones exist."""
    if policy not in POLICIES:
        raise ValueError(f"unknown validation policy {policy!r}; use one of {', '.join(POLICIES)}")
    return typing.cast(Policy, policy)
