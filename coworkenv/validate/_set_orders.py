"""The order a set iterates in, carried into a Python check's verdict, read unrun: one of the draws behind
`nondeterministic_check` (`coworkenv.validate._run_draws`).

A set of strings iterates in the order its members' hashes decide, and a string's hash is salted afresh in every
`python -I` run (the sandbox's): whatever keeps that order keeps a draw. The order is carried by what iterates the
set in turn (`iter`, `map`, `filter`, `zip`, `reversed`, `list`, `tuple`, a comprehension or generator over it,
`dict.fromkeys`, a dict or `Counter` built from it, `itertools`, a sort by a key, whose ties stay in the set's
order), by a set operation on it (`s - t`, `s.union(t)`, `s.copy()`), by a dict's `keys`/`values`/`items`, and by
names bound to any of these; it is read by what depends on it: an index, a cut or `.index()` of the sequence, its
first member (`next(...)`, `__next__()`, a loop that returns or breaks), `pop()`/`popitem()`/`popleft()`, `join`, its
text (`str`, `repr`, `json.dumps`, an f-string), a comparison of the sequence, a position paired with each member
(`enumerate`, `zip` with another iterable), and a choice among ties (`min`/`max` by a key, `functools.reduce`,
`Counter.most_common`). Membership, size, `sorted()` without a key, `min`/`max` without one, `sum` of numbers, a
dict's lookup by key and a comparison of dicts or sets keep no order and are left alone."""

from __future__ import annotations

import ast

from coworkenv.validate._module_lookups import qualified

_SETS = frozenset({"set", "frozenset"})
_SET_OPS = (ast.BitOr, ast.BitAnd, ast.Sub, ast.BitXor)
_SET_METHODS = frozenset({"union", "intersection", "difference", "symmetric_difference", "copy"})
_VIEWS = frozenset({"keys", "values", "items"})
# Built-ins that iterate their argument(s) in turn and keep the order (`list(s)`), and those that make a sequence.
_CARRIERS = frozenset({"iter", "map", "filter", "zip", "reversed", "list", "tuple", "dict", "enumerate", "sorted"})
_SEQUENCES = frozenset({"list", "tuple", "sorted"})
_MAPPINGS = frozenset({"dict", "dict.fromkeys", "collections.OrderedDict", "collections.Counter",
                       "collections.OrderedDict.fromkeys", "collections.defaultdict"})
_TEXT = frozenset({"str", "repr", "ascii", "format"})
_TIES = frozenset({"min", "max"})
_POPS = frozenset({"pop", "popitem", "popleft", "__next__"})


def set_order_read(tree: ast.Module, names: dict[str, str]) -> str | None:
    """The first read of the check that depends on a set's order (see the module's text), shown, or None."""
    reader = _Reader(tree, names)
    for node in ast.walk(tree):
        if reader.reads_order(node):
            shown = ast.unparse(node).split("\n")[0]
            return f"`{shown}`, an order that strings' salted hashes decide (a set's, carried past the set)"
    return None


class _Reader:
    """What carries a set's order in one check: its expressions, and the names bound to them (to a fixpoint)."""

    def __init__(self, tree: ast.Module, names: dict[str, str]) -> None:
        self.names = names
        self.ordered: set[str] = set()  # names bound to a value in a set's order
        self.mappings: set[str] = set()  # those of them that are mappings (a subscript is a lookup by key)
        bindings = [(t.id, n.value) for n in ast.walk(tree) if isinstance(n, (ast.Assign, ast.AnnAssign,
                                                                                ast.NamedExpr))
                    and n.value is not None
                    for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)]
        changed = True
        while changed:
            changed = False
            for name, value in bindings:
                if name not in self.ordered and self.carries(value):
                    self.ordered.add(name)
                    changed = True
                if name not in self.mappings and self.mapping(value):
                    self.mappings.add(name)
                    changed = True

    def _builtin(self, func: ast.expr) -> str | None:
        return func.id if isinstance(func, ast.Name) and func.id not in self.names else None

    def is_set(self, expr: ast.expr) -> bool:
        """A set whose order its members' hashes decide; a display of numbers alone iterates alike in every run."""
        if isinstance(expr, ast.Set):
            return not all(isinstance(e, ast.Constant) and isinstance(e.value, (int, float)) for e in expr.elts)
        if isinstance(expr, ast.SetComp):
            return True
        return isinstance(expr, ast.Call) and self._builtin(expr.func) in _SETS

    def carries(self, expr: ast.expr) -> bool:
        """Whether iterating `expr` meets its members in a set's order."""
        if self.is_set(expr):
            return True
        if isinstance(expr, ast.Name):
            return expr.id in self.ordered
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, _SET_OPS):
            return self.carries(expr.left) or self.carries(expr.right)
        if isinstance(expr, (ast.GeneratorExp, ast.ListComp, ast.DictComp)):
            return self.carries(expr.generators[0].iter)
        if isinstance(expr, (ast.List, ast.Tuple)):
            return any(isinstance(e, ast.Starred) and self.carries(e.value) for e in expr.elts)
        if not isinstance(expr, ast.Call):
            return False
        func, args = expr.func, [*expr.args, *(k.value for k in expr.keywords if k.arg != "key")]
        builtin = self._builtin(func)
        if builtin == "sorted":  # a sort by a key leaves its ties in the set's order
            return any(k.arg == "key" for k in expr.keywords) and bool(expr.args) and self.carries(expr.args[0])
        if builtin in _CARRIERS:
            iterated = args[1:] if builtin in ("map", "filter") else args
            return any(self.carries(a) for a in iterated)
        called = qualified(func, self.names) or ""
        if called in _MAPPINGS or called.startswith(("itertools.", "collections.")):
            return any(self.carries(a) for a in args)
        if isinstance(func, ast.Attribute):
            if func.attr in _SET_METHODS or func.attr in _VIEWS:
                held = func.value
                if isinstance(held, ast.Name) and held.id in _SETS and held.id not in self.names:  # `set.union(s, t)`
                    return any(self.carries(a) for a in args)
                return self.carries(held)
            if func.attr == "fromkeys" and args:  # `dict.fromkeys(s)`, `OrderedDict.fromkeys(s)`
                return self.carries(args[0])
        return False

    def mapping(self, expr: ast.expr) -> bool:
        """A mapping built in a set's order, whose subscript is a lookup by key, not a position."""
        if isinstance(expr, ast.Name):
            return expr.id in self.mappings
        if isinstance(expr, ast.DictComp):
            return True
        if not isinstance(expr, ast.Call):
            return False
        func = expr.func
        called = qualified(func, self.names) or self._builtin(func) or ""
        return called in _MAPPINGS or (isinstance(func, ast.Attribute) and func.attr == "fromkeys")

    def sequence(self, expr: ast.expr) -> bool:
        """A sequence in a set's order, whose index, cut, `.index()` or comparison reads positions."""
        if isinstance(expr, ast.Name):
            return expr.id in self.ordered and expr.id not in self.mappings
        if isinstance(expr, ast.ListComp):
            return self.carries(expr)
        if isinstance(expr, (ast.List, ast.Tuple)):
            return self.carries(expr)
        return isinstance(expr, ast.Call) and self._builtin(expr.func) in _SEQUENCES and self.carries(expr)

    def reads_order(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Subscript):
            return self.sequence(node.value)
        if isinstance(node, ast.For):  # `for x in s: return x`: the first member it meets
            return self.carries(node.iter) and _stops_by_member(node)
        if isinstance(node, ast.keyword) and node.arg == "key" and isinstance(node.value, ast.Name):
            return node.value.id in ("id", "hash") and node.value.id not in self.names  # `sorted(rows, key=id)`
        if isinstance(node, ast.Compare):
            return any(self.sequence(side) for side in (node.left, *node.comparators)) and \
                not all(isinstance(op, (ast.In, ast.NotIn, ast.Is, ast.IsNot)) for op in node.ops)
        if isinstance(node, ast.FormattedValue):
            return self.carries(node.value)
        if not isinstance(node, ast.Call):
            return False
        return self._call_reads_order(node)

    def _call_reads_order(self, node: ast.Call) -> bool:
        func, args = node.func, node.args
        builtin = self._builtin(func)
        if builtin == "next" and args:
            return self.carries(args[0])
        if builtin in _TEXT and args:
            return self.carries(args[0])
        if builtin == "enumerate" and args:  # a position paired with each member
            return self.carries(args[0])
        if builtin == "zip" and len(args) > 1:  # members paired with another iterable's, in turn
            return any(self.carries(a) for a in args) and len({ast.dump(a) for a in args}) > 1
        if builtin in _TIES and any(k.arg == "key" for k in node.keywords) and args:
            return self.carries(args[0])  # ties by the key fall to the set's order
        called = qualified(func, self.names) or ""
        if called in ("functools.reduce", "json.dumps") and args:
            return self.carries(args[1] if called == "functools.reduce" and len(args) > 1 else args[0])
        if not isinstance(func, ast.Attribute):
            return False
        if func.attr in _POPS and not args:
            return self.carries(func.value)
        if func.attr == "index" and args:
            return self.sequence(func.value)
        if func.attr == "join" and args:
            return self.carries(args[0])
        return func.attr == "most_common" and self.carries(func.value)


def _stops_by_member(loop: ast.For) -> bool:
    """Whether a loop's outcome depends on the member it stops at: it breaks, or its returns give more than one value
    (`return x == 'a'`, `return True` here and `return False` there); a loop whose every return gives the same
    constant (`if x not in allowed: return False`) answers alike whichever offending member comes first."""
    stops = [n for stmt in loop.body for n in ast.walk(stmt) if isinstance(n, (ast.Return, ast.Break))]
    if any(isinstance(n, ast.Break) for n in stops):
        return True
    values = {ast.dump(n.value) if n.value is not None else "None" for n in stops if isinstance(n, ast.Return)}
    constant = all(isinstance(n.value, ast.Constant) or n.value is None for n in stops if isinstance(n, ast.Return))
    return bool(values) and not (constant and len(values) == 1)
