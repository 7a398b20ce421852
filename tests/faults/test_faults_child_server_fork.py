"""The fault child server (tests/support/fault_child_server.py) forks a child only where its fault points act as in a
fresh interpreter: a fault point replaces MODULE.ATTR once the child is armed, so a module that binds ATTR by name
and that a fresh child imports only after the arming must not already hold the original in the server."""

from __future__ import annotations

import coworkenv.store.stages.sft  # noqa: F401  (binds coworkenv.atomic.commit_file by name, as the server's preload)
from tests.support.fault_child_server import bound_elsewhere


def test_a_fault_point_bound_by_name_after_a_fresh_arming_is_not_forked() -> None:
    reason = bound_elsewhere(["--kill", "coworkenv.atomic:commit_file:2:before", "--", "synth"], set())
    assert reason is not None and "coworkenv.store.stages.sft" in reason, reason


def test_a_fault_point_held_only_by_its_module_or_class_is_forked() -> None:
    assert bound_elsewhere(["--kill", "coworkenv.atomic:_open_temp:1:after", "--", "synth"], set()) is None
    assert bound_elsewhere(["--fail", "coworkenv.store.stages.sft:ShardWriter._write_pending:1:ENOSPC", "--",
                            "curate"], set()) is None
    assert bound_elsewhere(["--", "synth"], set()) is None
