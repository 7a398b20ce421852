# expect: ok
# expect-kernel: ok
# value: 8
# Honest twin of `memory_text_reader_freed_by_a_collected_finalizer` and `memory_collector_switched_on_again`: what a
# check does with the collector answers alike in every set, where the hook keeps it off and its switches are stand-ins:
# `gc.collect()` frees cycles and runs their finalizers and weakref callbacks (`weakref.finalize` too), `isenabled`
# answers what `enable`/`disable` asked (timeit's pattern), `get_threshold` what `set_threshold` set, `get_count`,
# `is_tracked`, `freeze`/`unfreeze`, and a text file read while cyclic garbage with a finalizer waits.
import gc
import timeit
import weakref


class Node:
    closed = []

    def __init__(self, name):
        self.name, self.peer = name, None

    def __del__(self):
        Node.closed.append(self.name)


def check(**p):
    passed = 0
    a, b = Node("a"), Node("b")
    a.peer, b.peer = b, a
    done = []
    weakref.finalize(a, done.append, "finalized")
    del a, b
    gc.collect()
    passed += sorted(Node.closed) == ["a", "b"] and done == ["finalized"]
    was = gc.isenabled()
    gc.disable()
    passed += gc.isenabled() is False
    gc.enable()
    passed += gc.isenabled() is True
    old = gc.get_threshold()
    gc.set_threshold(500, 5)
    passed += gc.get_threshold() == (500, 5, old[2])
    gc.set_threshold(*old)
    passed += was is True and gc.get_threshold() == old and len(gc.get_count()) == 3
    passed += gc.is_tracked([]) and not gc.is_tracked(1)
    gc.freeze()
    gc.unfreeze()
    passed += timeit.timeit("x = [1, 2]", number=100) >= 0 and gc.isenabled()
    with open("lines.txt", "w") as fh:
        fh.write("line\n" * 5000)
    c = Node("c")
    c.peer = c
    del c
    with open("lines.txt") as fh:
        lines = fh.read().splitlines()
    gc.collect()
    passed += len(lines) == 5000 and "c" in Node.closed
    return passed
