# expect: ok
# expect-kernel: ok
# value: 1
# A false positive, not an escape: the code was compiled with the bootstrap's own `from __future__ import annotations`
# (compile() inherits its caller's future flags), so its annotations were text, and its module `__sandboxed__` was in
# no `sys.modules`: every `@dataclass` raised AttributeError (dataclasses looks text annotations up in the class's
# module), in every set; typing.get_type_hints and pickle of the code's own classes failed alike. A check's classes
# must behave as in any module.
import dataclasses
import enum
import pickle
import typing


class Colour(enum.Enum):
    RED = 1


@dataclasses.dataclass(frozen=True)
class Point:
    x: int
    tags: list[str] = dataclasses.field(default_factory=list)


def check(**p):
    point = Point(1, ["a"])
    found = (
        Point.__annotations__["x"] is int,
        typing.get_type_hints(Point)["x"] is int,
        pickle.loads(pickle.dumps(point)) == point,
        pickle.loads(pickle.dumps(Colour.RED)) is Colour.RED,
        dataclasses.asdict(point) == {"x": 1, "tags": ["a"]},
    )
    return 1 if all(found) else repr(found)
