# expect: ok
# expect-kernel: ok|crashed|memory_limit
# value: 4
# The fifty-ninth round's attribute store (gh-142731: CPython 3.11 inserts into the object's `__dict__` by a borrowed
# reference while the name's `__hash__` or a colliding key's `__eq__` runs the code's own code) on the one owner that
# round left open: `_ast`'s nodes, whose types are made at the module's first use (`import ast`, `ast.parse`), from a
# static getset table naming `PyObject_GenericSetDict`, after the bootstrap's seals ran. Assigning the node a new
# `__dict__` there freed the old dict and its table (a large table: unmapped at once) while C went on inserting into
# them: SIGSEGV. Four routes: a parsed node's store by a `str` subclass name, a node's plain `STORE_ATTR` meeting a
# colliding key, a node of a class of the code's own made from `ast.AST`, and a deletion by a `str` subclass name.
# Each answers 1 where nothing was freed under the store (with the hook no `__dict__` is assignable: AttributeError;
# without it native code is assumed anyway: 1, or a crash).
import ast

SIZE = 20000  # attributes: a table of some 600 KiB, which the allocator maps and unmaps on its own


def fill(target):
    for i in range(SIZE):
        setattr(target, f"a{i}", i)
    return target


def parsed_by_name():
    target = fill(ast.parse("x = 1").body[0])

    class Name(str):
        def __hash__(self):
            target.__dict__ = {}  # the store's dict loses its last reference
            return 0

    setattr(target, Name("marker"), 5)
    return 1


def parsed_by_colliding_key():
    target = fill(ast.Name(id="x", ctx=ast.Load()))

    class Key:
        armed = True

        def __hash__(self):
            return hash("y")

        def __eq__(self, other):
            if Key.armed:
                Key.armed = False
                target.__dict__ = {}
            return False

    vars(target)[Key()] = 1
    target.y = 5
    return 1


def own_node_class():
    class Node(ast.AST):
        _fields = ("value",)

    target = fill(Node(value=1))

    class Name(str):
        def __hash__(self):
            del target.__dict__
            return 0

    setattr(target, Name("marker"), 5)
    return 1


def deletion_by_name():
    target = fill(ast.Constant(value=1))
    target.marker = 1

    class Name(str):
        def __hash__(self):
            target.__dict__ = {}
            return hash("marker")

        def __eq__(self, other):
            return str.__eq__(self, other)

    delattr(target, Name("marker"))
    return 1


def contained(route):
    try:
        return route()
    except AttributeError:  # the `__dict__` could not be replaced (or the deletion found nothing)
        return 1


def check(**p):
    return sum(contained(route) for route in (parsed_by_name, parsed_by_colliding_key, own_node_class, deletion_by_name))
