# expect: ok
# expect-kernel: ok
# value: 30
# Honest twin of `memory_list_extended_slice_shrunk_by_its_value` and `memory_list_item_freed_while_order_compares`:
# what a check does with a list's item and slice stores and its ordering comparisons answers alike in every set, where
# `list.__setitem__` and `__lt__` and its kin are sealed and where they are C's. Items by index (negative,
# `__index__`, bool), slices of step 1 that grow, shrink and insert, extended and reversed slices from lists, tuples,
# generators, `map`, `range`, strings and sets, a list assigned into itself, subclasses with and without a
# `__setitem__` of their own (and `super()`), `operator.setitem`, `list.__setitem__` called as a descriptor, nested
# lists, sorting and shuffling in place, and the errors an honest mistake gets (the same exception and message).
# Orders (5): lists compared by every operator (shorter, nested, equal, `nan`, a subclass), rows sorted, `min`, `max`,
# `bisect` and `heapq` over lists, and the error of items that do not compare; `functools.cmp_to_key` keys sorted,
# compared and read back (`obj`, read-only where the hook runs).
import bisect
import functools
import heapq
import operator
import random


class Place:
    def __init__(self, value):
        self.value = value

    def __index__(self):
        return self.value


class Doubling(list):
    def __setitem__(self, key, value):
        super().__setitem__(key, [v * 2 for v in value] if isinstance(key, slice) else value * 2)


class Plain(list):
    pass


def error(store):
    try:
        store()
    except Exception as exc:
        return type(exc).__name__, str(exc)
    return None


def check(**p):
    results = []

    def same(got, want):
        results.append(got == want)

    a = list(range(10))
    a[0], a[-1], a[Place(3)], a[True] = "x", "y", "z", "w"
    same(a, ["x", "w", 2, "z", 4, 5, 6, 7, 8, "y"])
    a = list(range(10))
    a[2:5] = ["a"]
    same(a, [0, 1, "a", 5, 6, 7, 8, 9])
    a[1:1] = (i * i for i in range(3))
    same(a, [0, 0, 1, 4, 1, "a", 5, 6, 7, 8, 9])
    a[:] = range(4)
    same(a, [0, 1, 2, 3])
    a[-2:] = "pq"
    same(a, [0, 1, "p", "q"])
    a[10:20] = [7]
    same(a, [0, 1, "p", "q", 7])
    a[3:1] = [5, 5]
    same(a, [0, 1, "p", 5, 5, "q", 7])
    b = list(range(10))
    b[::2] = map(str, range(5))
    same(b, ["0", 1, "1", 3, "2", 5, "3", 7, "4", 9])
    b[::-3] = (x for x in "abcd")
    same(b, ["d", 1, "1", "c", "2", 5, "b", 7, "4", "a"])
    same(error(lambda: operator.setitem(b, slice(1, 8, 3), {42})),
         ("ValueError", "attempt to assign sequence of size 1 to extended slice of size 3"))
    b[Place(0):Place(6):Place(5)] = range(2)
    same(b[:6], [0, 1, "1", "c", "2", 1])
    c = list(range(6))
    c[::-1] = c
    same(c, [5, 4, 3, 2, 1, 0])
    c[1:3] = c
    same(c, [5, 5, 4, 3, 2, 1, 0, 2, 1, 0])
    c[5:5:2] = []
    same(len(c), 10)
    d = Doubling([1, 2, 3])
    d[0] = 5
    d[1:] = [10, 20]
    same(list(d), [10, 20, 40])
    e = Plain("abcdef")
    e[::2] = "XYZ"
    e[-1] = "!"
    same((type(e).__name__, "".join(e)), ("Plain", "XbYdZ!"))
    f = [0] * 4
    operator.setitem(f, 1, 7)
    operator.setitem(f, slice(2, None), iter([8, 9]))
    list.__setitem__(f, 0, 6)
    list.__setitem__(f, slice(None, None, 3), (1, 2))
    same(f, [1, 7, 8, 2])
    grid = [[0] * 3 for _ in range(3)]
    for row in range(3):
        grid[row][row] = 1
        grid[row][row + 1:] = [2] * (2 - row)
    same(grid, [[1, 2, 2], [0, 1, 2], [0, 0, 1]])
    g = list(range(50))
    random.Random(7).shuffle(g)
    g.sort()
    g[10:40:5] = sorted(g[10:40:5], reverse=True)
    same(g[10:40:5], [35, 30, 25, 20, 15, 10])
    same(error(lambda: operator.setitem([1, 2], 2, 0)), ("IndexError", "list assignment index out of range"))
    same(error(lambda: operator.setitem([1, 2], "0", 0)),
         ("TypeError", "list indices must be integers or slices, not str"))
    same(error(lambda: operator.setitem([1, 2], slice(None, None, 2), 5)),
         ("TypeError", "must assign iterable to extended slice"))
    same(error(lambda: operator.setitem([1, 2], slice(0, 1), 5)), ("TypeError", "can only assign an iterable"))
    same(error(lambda: operator.setitem([1, 2], slice(None, None, 0), [])), ("ValueError", "slice step cannot be zero"))
    nan = float("nan")
    pairs = (([], [1]), ([1, 2], [1, 3]), ([1, [2, 3]], [1, [2, 4]]), ([nan], [nan]), (Plain([2]), [1, 9]), ([1], [1]))
    same([[op(x, y) for op in (operator.lt, operator.le, operator.gt, operator.ge)] for x, y in pairs],
         [[True, True, False, False], [True, True, False, False], [True, True, False, False],
          [False, True, False, True], [False, False, True, True], [False, True, False, True]])
    rows = [[3, "c"], [1, "z"], [3, "a"], [1], [2, "b", 0]]
    same(sorted(rows), [[1], [1, "z"], [2, "b", 0], [3, "a"], [3, "c"]])
    same((min(rows), max(rows), bisect.bisect(sorted(rows), [2, "b"])), ([1], [3, "c"], 2))
    heap = [list(row) for row in rows]
    heapq.heapify(heap)
    same([heapq.heappop(heap) for _ in range(5)], [[1], [1, "z"], [2, "b", 0], [3, "a"], [3, "c"]])
    same(error(lambda: [1, "a"] < [1, 2]), ("TypeError", "'<' not supported between instances of 'str' and 'int'"))
    key = functools.cmp_to_key(lambda x, y: (len(x) > len(y)) - (len(x) < len(y)))
    keys = sorted(map(key, ["ccc", "a", "bb"]))
    same(([k.obj for k in keys], key("a") < key("bb"), sorted([3, 1, 2], key=functools.cmp_to_key(operator.sub))),
         (["a", "bb", "ccc"], True, [1, 2, 3]))
    return sum(results) if all(results) else [i for i, ok in enumerate(results) if not ok]
