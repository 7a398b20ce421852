# expect: ok
# expect-kernel: ok
# value: 7
# Honest twin of `memory_tee_state_set_past_what_was_read`: what a check does with `itertools.tee` and with the states
# of other iterators answers alike in every set, where a tee's iterators take no state included: tees split, read at
# different paces past the 57 values of one data link, copied (`copy.copy`, a tee of a tee), over a generator and a
# file; and the pickled states of a list iterator, `islice`, `count`, `cycle`, `product`, `permutations`, `zip` and
# `enumerate` taken and restored mid-way (`pickle` and `copy.deepcopy`).
import copy
import itertools
import pickle


def check(**p):
    results = []
    a, b, c = itertools.tee(iter(range(200)), 3)
    first = [next(a) for _ in range(120)]
    results.append(first == list(range(120)) and list(itertools.islice(b, 60)) == list(range(60)))
    d = copy.copy(b)
    results.append(next(d) == 60 and next(b) == 60 and list(c)[-1] == 199)
    e, f = itertools.tee(x * x for x in range(10))
    g, h = itertools.tee(e)
    results.append(list(g) == list(h) == list(f) == [x * x for x in range(10)])
    with open("lines.txt", "w") as fh:
        fh.write("".join(f"{n}\n" for n in range(100)))
    with open("lines.txt") as fh:
        left, right = itertools.tee(fh)
        results.append(sum(1 for _ in left) == 100 and next(right) == "0\n")
    states = []
    for make in (lambda: iter([1, 2, 3, 4]), lambda: itertools.islice(range(10), 2, 9, 3), lambda: itertools.count(5, 2),
                 lambda: itertools.cycle("ab"), lambda: itertools.product("ab", repeat=2),
                 lambda: itertools.permutations(range(3)), lambda: zip("abc", range(3), strict=True),
                 lambda: enumerate("xyz")):
        it = make()
        next(it)
        again, deep = pickle.loads(pickle.dumps(it)), copy.deepcopy(it)
        states.append(next(again) == next(deep) == next(it))
    results.append(all(states) and len(states) == 8)
    pairs = list(zip(*itertools.tee("abcdef"), strict=True))
    results.append(pairs == [(ch, ch) for ch in "abcdef"])
    results.append(list(itertools.pairwise(range(4))) == [(0, 1), (1, 2), (2, 3)])
    return sum(results)
