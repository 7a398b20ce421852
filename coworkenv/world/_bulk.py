"""Bulk building of many small objects (a spec's records, a world's tables) with the cyclic GC paused."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for a bulk build; reference counting still frees what goes.

    Building tens of thousands of records triggers collections that traverse every object allocated so far, which
    cost more than the building itself (2-3x for a 6 MB spec). Records are acyclic data, so nothing waits for a
    collection; the collector resumes (if it was on) when the block ends, whatever happens inside.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        # What the block built is long-lived: move it to the oldest generation at once (freeze + unfreeze, two
        # list merges) instead of letting the next young collections traverse every object of it, twice. Skipped
        # when something else froze objects (e.g. a server before forking): unfreezing would undo that.
        if gc.get_freeze_count() == 0:
            gc.freeze()
            gc.unfreeze()
        if was_enabled:
            gc.enable()
