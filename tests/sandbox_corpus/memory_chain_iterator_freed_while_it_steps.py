# expect: ok
# expect-kernel: ok|crashed|memory_limit|exception
# value: 2
# `itertools.chain` steps the iterator it is on (`active`) and the iterator of iterables it takes them from (`source`)
# by borrowed references from its own fields (CPython 3.11.7's `chain_next`: `tp_iternext(lz->active)`,
# `PyIter_Next(lz->source)`), and `__setstate__` (pickling's way back) sets both fields anew on a live chain,
# dropping what they held. A C iterator there, the chain its only holder, whose own step runs code of the code's own
# (a `map` stepping a generator) is freed by that code's `__setstate__` while its C step runs: the map the code makes
# next takes the freed block, and the old step goes on with that map's fields, stepping its iterators and calling its
# function (a use after free; with a refill of the code's own bytes, a forged object). Routes: the chain's `active`
# iterator, its `source`. Each answers 1 where nothing of the chain's is freed under its step; without the hook
# native code is assumed anyway.
import itertools

HELD = []


def route(how):
    called = []

    def later(*args):  # the function of a map made after the free: the old step must never call it
        called.append(args)
        return "later"

    fresh = (iter(["later-0"]), iter(["later-1"]))
    chain = None

    def first():
        set_state = getattr(chain, "__setstate__", None)  # None where a chain takes no state: nothing is freed
        if set_state is not None:
            set_state((iter(()),))  # drops the map whose C step is running this
        HELD.append(map(later, *fresh))  # takes the block the freed map left
        yield "own-0"

    def second():
        yield "own-1"

    steps = [first(), second()]
    HELD.append(steps)
    if how == "active":
        chain = itertools.chain(map(lambda *a: a, *steps))
    else:
        chain = itertools.chain.from_iterable(map(lambda *a: a, *steps))
    got = next(chain)
    if called:
        raise RuntimeError(f"{how}: a freed map's C step called a function of a map made after with {called[0]!r} "
                           f"and answered {got!r}")
    return 1


def check(**p):
    return route("active") + route("source")
