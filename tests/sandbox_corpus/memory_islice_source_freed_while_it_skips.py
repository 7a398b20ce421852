# expect: ok
# expect-kernel: ok|crashed|memory_limit|exception
# value: 2
# `itertools.islice` and `itertools.zip_longest` (CPython 3.11) step their source iterators by borrowed references,
# while the source's `__next__` (the code's own) steps the same islice or zip_longest again: that inner step ends it
# (the source raises StopIteration), so islice drops its source and zip_longest takes the source out of its tuple and
# drops it; the source lives on only in the outer `__next__`'s frame and is freed as that frame returns. islice goes
# on skipping with the freed source: its `__next__` runs with the freed block as `self` (a dangling object the code
# holds). zip_longest, where the outer step ends the source too, drops it a second time: one reference is taken from
# whatever object the code made in the freed block (a finalizer of the frame's makes it there), which the code can then
# free while it still holds it. Two routes. Each answers 1 where the source stayed alive (the inner step is refused:
# ValueError, a generator already running); a freed source stepped, or a reference taken from an object of the
# code's own, raises (without the hook native code is assumed anyway: the error, or a crash).
import contextlib
import itertools
import sys


def islice_route():
    state = {"steps": 0, "freed": False}

    class Source:
        def __iter__(self):
            return self

        def __next__(self):
            if state["freed"]:
                raise RuntimeError("the code holds the freed source of an islice")
            state["steps"] += 1
            if state["steps"] == 1:
                with contextlib.suppress(StopIteration, ValueError):
                    next(sliced)  # re-entered: its own step ends it, and it drops this source
                return 0
            raise StopIteration

        def __del__(self):
            state["freed"] = True

    sliced = itertools.islice(Source(), 3, 4)
    next(sliced, None)
    return 1


class Box:  # the freed source's size: takes its block
    pass


def zip_longest_route():
    state = {"steps": 0}
    made = []

    class Refill:
        def __del__(self):  # runs as the frame's locals go, after the source itself was freed
            made.append(Box())

    class Source:
        def __iter__(self):
            return self

        def __next__(self):
            refill = Refill()  # noqa: F841 (a local the frame drops after `self`)
            state["steps"] += 1
            if state["steps"] == 1:
                with contextlib.suppress(StopIteration, ValueError):
                    next(zipped)  # re-entered: this source ends there, and is dropped
            raise StopIteration

    zipped = itertools.zip_longest(Source(), [1, 2], [3, 4])
    next(zipped, None)
    counts = [sys.getrefcount(box) for box in made]  # the list's, the loop's and the call's: 3
    if any(count != 3 for count in counts):
        raise RuntimeError(f"a reference was taken from an object of the code's own: {counts}")
    return 1


def check(**p):
    return islice_route() + zip_longest_route()
