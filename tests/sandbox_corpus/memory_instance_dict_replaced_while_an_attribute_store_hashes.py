# expect: ok
# expect-kernel: ok|crashed|memory_limit
# value: 4
# An attribute store of CPython 3.11 (`setattr`, `delattr`, `object.__setattr__`, `STORE_ATTR`) writes into the
# object's `__dict__` through a borrowed reference (`_PyObjectDict_SetItem`, `_PyObject_StoreInstanceAttribute`;
# gh-142731, still open). Code of the code's own runs inside that store: the hash of a `str` subclass given as the
# name, or the `__eq__` of a key already in the dict whose hash matches the name's. There it assigns the object a new
# `__dict__`, which frees the old one and its table (a large table: unmapped at once), and C goes on inserting into
# the freed dict: SIGSEGV on plain 3.11.7, and with a refilled block a write through a table of the code's own. Four
# routes: an instance's store by a `str` subclass name, an instance's plain `STORE_ATTR` meeting a colliding key, a
# function's `__dict__` (`PyObject_GenericSetDict`), a partial's dict replaced by its `__setstate__`. Each answers 1 where nothing was freed under the store (with the
# hook no `__dict__` is assignable: AttributeError; without it native code is assumed anyway: 1, or a crash).
SIZE = 20000  # attributes: a table of some 600 KiB, which the allocator maps and unmaps on its own


class Victim:
    pass


def fill(target):
    for i in range(SIZE):
        setattr(target, f"a{i}", i)
    return target


def by_name():
    target = fill(Victim())

    class Name(str):
        def __hash__(self):
            target.__dict__ = {}  # the store's dict loses its last reference
            return 0

    setattr(target, Name("marker"), 5)
    return 1


def by_colliding_key():
    target = fill(Victim())

    class Key:
        armed = True

        def __hash__(self):
            return hash("x")

        def __eq__(self, other):
            if Key.armed:
                Key.armed = False
                target.__dict__ = {}
            return False

    vars(target)[Key()] = 1
    target.x = 5
    return 1


def function_dict():
    def target():
        pass

    fill(target)

    class Name(str):
        def __hash__(self):
            target.__dict__ = {}
            return 0

    setattr(target, Name("marker"), 5)
    return 1


def partial_state():
    import functools

    target = fill(functools.partial(print))

    class Name(str):
        def __hash__(self):
            target.__setstate__((print, (), None, None))
            return 0

    setattr(target, Name("marker"), 5)
    return 1


def contained(route):
    try:
        return route()
    except AttributeError:  # the `__dict__` could not be replaced (nor the partial's state set)
        return 1


def check(**p):
    return sum(contained(route) for route in (by_name, by_colliding_key, function_dict, partial_state))
