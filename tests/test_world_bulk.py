"""gc_paused: the collector is paused in the block and restored after; what the block built goes to the oldest
generation at once, unless something else froze objects (then the frozen ones stay frozen)."""

from __future__ import annotations

import gc

from coworkenv.world import gc_paused


class _Node:  # a GC-tracked object
    def __init__(self, k: int) -> None:
        self.k = k


def test_what_a_bulk_block_builds_lands_in_the_oldest_generation() -> None:
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        built = [_Node(k) for k in range(2_000)]
    assert gc.isenabled()
    oldest = {id(o) for o in gc.get_objects(generation=2)}
    assert all(id(o) in oldest for o in built)
    assert gc.get_count()[0] < 2_000  # the young generation does not hold (or count) the block's objects


def test_objects_frozen_by_someone_else_stay_frozen() -> None:
    sentinel = _Node(-1)
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with gc_paused():
            built = [_Node(k) for k in range(100)]
        # The sentinel is still in the permanent generation (no generation lists it), and nothing new was frozen. The
        # count itself may drop: a frozen object that dies (another test's garbage, a thread's) leaves the permanent
        # generation, so the test does not compare counts for equality.
        assert all(o is not sentinel for o in gc.get_objects())
        assert 0 < gc.get_freeze_count() <= frozen and built
    finally:
        gc.unfreeze()


def test_the_collector_stays_off_after_a_block_when_it_was_off() -> None:
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
