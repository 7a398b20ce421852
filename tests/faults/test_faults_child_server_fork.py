"""The fault child server (tests/support/fault_child_server.py) forks a child only where its fault points act as in a
fresh interpreter: a fault point replaces MODULE.ATTR once the child is armed, so a module that binds ATTR by name
and that a fresh child imports only after the arming holds the replacement there. The fork names such a module's
names for rebinding when it took them from MODULE (`from MODULE import ATTR`), leaves them where it took them from a
module the arming left alone, and refuses any other holder; and it refuses a child whose environment differs in a
variable the preload read while importing."""

from __future__ import annotations

import os
import sys
import types

import coworkenv.atomic
import coworkenv.cli.curate  # (binds coworkenv.atomic.atomic_write_bytes by name, as the preload's)
import coworkenv.store.stages.sft  # (binds coworkenv.atomic.commit_file by name, as the server's preload)
from tests.support.fault_child_server import bound_elsewhere, environment_reads, fork_plan, rebind_when_armed

_HELD = (coworkenv.atomic.remove_file,)  # the original held by a tuple: no name to rebind


def _none_imported(_: list[str]) -> set[str]:
    return set()  # a fresh child's arming imports none of the holders (sft, curate) here


def test_a_fault_point_bound_by_name_after_a_fresh_arming_is_rebound_in_the_fork() -> None:
    argv = ["--kill", "coworkenv.atomic:commit_file:2:before", "--", "synth"]
    reason, rebind = fork_plan(argv, set(), _none_imported)
    assert reason is None, reason
    assert "coworkenv.store.stages.sft" in rebind["coworkenv.atomic:commit_file"], rebind
    # imported by a fresh child's arming itself, sft holds the original there too: nothing to rebind
    reason, rebind = fork_plan(argv, set(), lambda _: {"coworkenv.store.stages.sft"})
    assert reason is None and "coworkenv.store.stages.sft" not in rebind.get("coworkenv.atomic:commit_file", []), rebind


def test_a_name_taken_from_a_module_the_arming_left_alone_keeps_the_original() -> None:
    # `_publisher.atomic_write_bytes` is replaced; curate took its own from coworkenv.atomic: the original, fresh or not
    reason, rebind = fork_plan(["--fail", "coworkenv.store._publisher:atomic_write_bytes:1:ENOSPC", "--", "x"], set(),
                               _none_imported)
    assert (reason, rebind) == (None, {})
    _, rebind = fork_plan(["--fail", "coworkenv.atomic:atomic_write_bytes:1:ENOSPC", "--", "x"], set(), _none_imported)
    assert "coworkenv.cli.curate" in rebind["coworkenv.atomic:atomic_write_bytes"], rebind


def test_a_fault_point_held_where_no_name_can_be_rebound_is_not_forked() -> None:
    reason = bound_elsewhere(["--kill", "coworkenv.atomic:remove_file:1:before", "--", "synth"], set(), _none_imported)
    assert reason is not None and "tuple" in reason, reason


def test_a_fault_point_held_only_by_its_module_or_class_is_forked() -> None:
    assert bound_elsewhere(["--kill", "coworkenv.atomic:_open_temp:1:after", "--", "synth"], set()) is None
    assert bound_elsewhere(["--fail", "coworkenv.store.stages.sft:ShardWriter._write_pending:1:ENOSPC", "--",
                            "curate"], set()) is None
    assert bound_elsewhere(["--", "synth"], set()) is None


def test_the_fork_rebinds_the_late_modules_names_once_the_point_is_armed() -> None:
    def original() -> str:
        return "original"

    def replacement() -> str:
        return "replacement"

    target, holder = types.ModuleType("fault_fork_target"), types.ModuleType("fault_fork_holder")
    target.work = original  # type: ignore[attr-defined]
    holder.work = holder.alias = original  # type: ignore[attr-defined]
    holder.other = replacement  # type: ignore[attr-defined]
    child = types.SimpleNamespace(_patch=lambda spec, *_: setattr(target, "work", replacement))
    sys.modules.update({"fault_fork_target": target, "fault_fork_holder": holder})
    try:
        rebind_when_armed(child, {"fault_fork_target:work": ["fault_fork_holder"]})
        child._patch("fault_fork_target:work", None, "before", None)
    finally:
        del sys.modules["fault_fork_target"], sys.modules["fault_fork_holder"]
    assert (holder.work, holder.alias, holder.other) == (replacement, replacement, replacement)


def test_the_variables_read_one_by_one_are_told_from_a_copy_of_the_environment() -> None:
    with environment_reads() as read:
        os.environ.get("FAULT_FORK_READ_ONE")
        os.getenv("FAULT_FORK_READ_TWO")
        "FAULT_FORK_READ_THREE" in os.environ  # noqa: B015
        os.environb.get(b"FAULT_FORK_READ_FOUR")
        copied = dict(os.environ)
    assert copied  # every variable listed and read, none counted
    assert read == {"FAULT_FORK_READ_ONE", "FAULT_FORK_READ_TWO", "FAULT_FORK_READ_THREE", "FAULT_FORK_READ_FOUR"}
    assert type(os.environ) is os._Environ and type(os.environb) is os._Environ


def test_a_frame_left_as_garbage_is_no_holder() -> None:
    # an earlier test in the same xdist worker left a traceback's frame in a cycle, its locals holding the original:
    # garbage, not a module a fresh child imports (the fork was refused once, "held by frame", and passed alone)
    import gc

    import coworkenv.store._publisher as publisher

    def cycle() -> None:
        original = publisher.atomic_write_bytes  # noqa: F841 (a local of the frame the error's traceback holds)
        error = ValueError("kept")
        try:
            raise error
        except ValueError:
            pass  # `error` holds its traceback, which holds this frame, which holds `error`

    gc.disable()
    try:
        cycle()
        reason, rebind = fork_plan(["--fail", "coworkenv.store._publisher:atomic_write_bytes:1:ENOSPC", "--", "x"],
                                   set(), _none_imported)
    finally:
        gc.enable()
    assert (reason, rebind) == (None, {})
