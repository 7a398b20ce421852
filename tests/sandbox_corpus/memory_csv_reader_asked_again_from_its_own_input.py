# expect: ok
# expect-kernel: ok|crashed|memory_limit|exception
# value: 2
# `csv.reader` (CPython 3.11.7's `Reader_iternext`) starts each row with a fresh list of fields in its own field,
# steps its input iterator, and appends to that field as it parses the line, taking the list and leaving NULL when the
# row is done. An input whose `__next__` asks the same reader for a row has the inner call take the list and leave
# NULL, and the outer call goes on appending to NULL: SIGSEGV on plain 3.11.7 (gh-145105). Routes: a reader asked by
# `next()` from its input, a `csv.DictReader` asked from the input of the reader it wraps. Each answers 1 where the
# inner ask is refused (or answers nothing the outer row then appends to a list C no longer holds); without the hook
# native code is assumed anyway.
import csv


def route(how):
    asked = []

    class Lines:
        def __init__(self):
            self.count = 0

        def __iter__(self):
            return self

        def __next__(self):
            self.count += 1
            if self.count == 2:
                try:
                    asked.append(next(outer))  # the same reader, while it steps this input
                except RuntimeError:
                    asked.append(None)
            if self.count > 3:
                raise StopIteration
            return 'a,"b\n' if self.count == 1 else 'c",d\n'  # a quoted field over two lines: the row asks twice

    outer = csv.reader(Lines()) if how == "reader" else csv.DictReader(Lines(), fieldnames=["x", "y"])
    rows = list(outer)
    if asked != [None]:
        raise RuntimeError(f"{how}: the reader answered a row from inside its own step ({asked!r}, then {rows!r})")
    return 1


def check(**p):
    return route("reader") + route("dict")
