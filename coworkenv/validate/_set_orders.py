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
`Counter.most_common`), and floats added in it and compared exactly (`sum(price[n] for n in names) == 0.6`: float
addition is not associative), also through a name (`expected = 0.6`, `total = sum(...)`, `total += prices[n]` in a
loop over the set). The check's own functions, lambdas, methods (called bound: `self.first(s)`) and generators
(`for x in xs: yield x`) are read for what they do with a set's order given to them (`def first(xs): return
list(xs)[0]`, `lambda xs: ','.join(xs)`), hand back, or make (`def names(rows): return {...}`), with what the others
do known, to a fixpoint. The order is carried, too, by an attribute bound to it (`self.names = {...}`, read as
`self.names`), by what a loop over it fills in turn (`out.append(x)`, `text += x + ','`), by a deque and by the n best
by a key (`heapq.nlargest(1, s, key=len)`), and read by an unpacking (`first, *rest = s`), a seeded generator's
choice among its members (`random.Random(7).choice(list(s))`), `pickle`/`marshal` bytes, `'%s' %` and `str.format`
text, `print(*s, file=out)`, a CSV row, `statistics.mode`, `operator.itemgetter`. Membership, size, `sorted()`
without a key, `min`/`max` without one, `sum` of whole numbers, a rounded or tolerant sum, a dict's lookup by key, a
comparison of dicts or sets, an empty list compared (`errors == []`) and a pickle read back at once keep no order and
are left alone.

The order is also read where a loop or a comprehension's walrus leaves its last member bound (`for x in s: pass`,
then `x`), through a starred display (`zip(*[s])`), a display holding a set iterated again (`[y for xs in [s] for y
in xs]`), a default argument (`def first(xs=s)`), a built-in under a name of the check's (`step = next`), a copy
(`copy.copy(s)`), `operator.getitem` and the container's own text or pickling (`s.__repr__()`, `s.__reduce__()`).
A key that hands back the member itself or a tuple holding it (`key=lambda n: (len(n), n)`) ties no two members."""

from __future__ import annotations

import ast
import builtins

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
# Keys that hand a string back as its own text (or one no other string shares): they tie no two strings.
_TEXT_KEYS = frozenset({"str", "repr", "ascii"})
_POPS = frozenset({"pop", "popitem", "popleft", "__next__"})
# Methods that give a container's members in turn: its text, and what pickling and copying it read.
_SHOWN = frozenset({"__repr__", "__str__", "__format__", "__reduce__", "__reduce_ex__", "__getstate__"})
# Calls whose value is a sequence in the order of what they are given: a deque, and the n best by a key (ties).
_SEQUENCE_CALLS = frozenset({"collections.deque", "heapq.nlargest", "heapq.nsmallest"})
# Calls that read the order of what they are given: its serialised bytes or text, the first of equally common
# members, a generator seeded by the check (a fixed draw of positions, whatever member stands there).
_ORDER_READERS = frozenset({"json.dumps", "json.dump", "pickle.dumps", "pickle.dump", "_pickle.dumps",
                            "marshal.dumps", "marshal.dump", "statistics.mode", "statistics.multimode"})
_DRAWS = frozenset({"choice", "choices", "sample"})
# Methods that put what they are given in turn into a list or a stream: `out.append(x)` in a loop over a set.
_APPENDS = frozenset({"append", "extend", "insert", "appendleft", "extendleft"})
_WRITES = frozenset({"writerow", "writerows", "writelines"})


def set_order_read(tree: ast.Module, names: dict[str, str]) -> str | None:
    """The first read of the check that depends on a set's order (see the module's text), shown, or None."""
    reader = _Reader(tree, {**names, **_builtin_aliases(tree, names)})
    for node in ast.walk(tree):
        if reader.reads_order(node):
            shown = ast.unparse(node).split("\n")[0]
            return f"`{shown}`, an order that strings' salted hashes decide (a set's, carried past the set)"
    return None


class _Reader:
    """What carries a set's order in one check: its expressions, and the names bound to them (to a fixpoint)."""

    def __init__(self, tree: ast.AST, names: dict[str, str], seeded: frozenset[str] = frozenset(),
                 functions: dict[str, _Function] | None = None) -> None:
        self.names = names
        self.ordered: set[str] = set(seeded)  # names bound to a value in a set's order
        self.mappings: set[str] = set()  # those of them that are mappings (a subscript is a lookup by key)
        # the check's own functions and lambdas, by name: what each does with a set's order given to it
        self.functions: dict[str, _Function] = {} if functions is None else functions
        # names, and attributes by their name (`self.names = {...}`, read in a method or a property as `self.names`)
        bindings = [(name, n.value) for n in ast.walk(tree) if isinstance(n, (ast.Assign, ast.AnnAssign,
                                                                                ast.NamedExpr))
                    and n.value is not None
                    for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                    if (name := _target(t)) is not None]
        # float values by name: `total = 0.6`, `prices = {'a': 0.1}` (a mapping of floats), `t = sum(...)`
        self.floats: set[str] = set()
        self.float_maps: set[str] = set()
        self.sums: dict[str, ast.Call] = {}
        self.float_totals: set[str] = set()  # floats added up in a loop over a set (`total += prices[n]`)
        # names that start as text or a list (`out = ''`, `out = []`), which `out += x` grows in turn
        self.texts = {name for name, value in bindings if isinstance(value, (ast.List, ast.Tuple)) or
                      (isinstance(value, ast.Constant) and isinstance(value.value, str))}
        loops = [n for n in ast.walk(tree) if isinstance(n, (ast.For, ast.AsyncFor))]
        comprehensions = [n for n in ast.walk(tree) if isinstance(n, (ast.ListComp, ast.SetComp, ast.GeneratorExp,
                                                                       ast.DictComp))]
        # `pickle.loads(pickle.dumps(s))`: bytes read back at once, into a set again, show no order
        self.read_back = {id(n.args[0]) for n in ast.walk(tree) if isinstance(n, ast.Call) and n.args and
                          (qualified(n.func, names) or "").endswith(".loads")}
        # what a loop or a comprehension leaves bound after it: the last member it met (`for x in s: pass`, then `x`)
        self.lasts: list[tuple[str, ast.AST]] = []
        # `pick = functools.partial(next)`: names bound to a partial call (once), called as what they wrap
        partials: dict[str, list[ast.expr]] = {}
        for name, value in bindings:
            partials.setdefault(name, []).append(value)
        self.partials = {name: values[0] for name, values in partials.items() if len(values) == 1 and
                         isinstance(values[0], ast.Call) and self._partial(values[0])}
        # callables that hand out a set's members in turn, one a call: `take = s.pop`, `partial(next, iter(s))`
        self.drawers: set[str] = set()
        if functions is None:
            self._read_functions(tree, names, bindings)
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
                if name not in self.floats and self.floaty(value):
                    self.floats.add(name)
                    changed = True
                if name not in self.float_maps and _float_mapping(value, self):
                    self.float_maps.add(name)
                    changed = True
                if name not in self.drawers and self.draws(value):
                    self.drawers.add(name)
                    changed = True
                if name not in self.sums and isinstance(value, ast.Call) and self._builtin(value.func) == "sum":
                    self.sums[name] = value
            for loop in loops:  # `for x in s: out.append(x)`: the list is filled in the set's order
                if not self.carries(loop.iter):
                    if self.holds(loop.iter):  # `for xs in [s]: ...`: the loop's name is the set
                        for name in _names(loop.target) - self.ordered:
                            self.ordered.add(name)
                            changed = True
                    continue
                for name in _last_bound(loop) - {n for n, _ in self.lasts}:
                    self.lasts.append((name, loop))
                    changed = True
                for name in _accumulated(loop, self):
                    if name not in self.ordered:
                        self.ordered.add(name)
                        changed = True
                self.float_totals |= _float_totals(loop, self)
            for comp in comprehensions:  # `[(last := x) for x in s]`: the walrus keeps the last member met
                if self.carries(comp):
                    for name in _walrus_bound(comp) - {n for n, _ in self.lasts}:
                        self.lasts.append((name, comp))
                        changed = True
        self.after = _loads_after(tree, self.lasts)

    def _read_functions(self, tree: ast.AST, names: dict[str, str], bindings: list[tuple[str, ast.expr]]) -> None:
        """What each function the check defines (`def first(xs): return list(xs)[0]`, `pick = lambda xs: ...`, a
        method, a generator) does with a set's order given to it: which parameters it reads the order of, which it
        hands back carrying it, and whether it returns a set's order of its own making. Each is read with what the
        others do known, again until nothing changes, so a read through any depth of the check's own calls
        (`def firsts(xs): return as_list(xs)[0]`) is followed."""
        defined: dict[str, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda] = {
            n.name: n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        defined.update({name: value for name, value in bindings if isinstance(value, ast.Lambda)})
        methods = {f.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef) for f in n.body
                   if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
        # a second round only where one of them calls another (by name or as a method)
        calling = any(isinstance(n, ast.Call) and (getattr(n.func, "id", None) in defined or
                                                   getattr(n.func, "attr", None) in defined)
                      for node in defined.values() for n in ast.walk(node))
        for _ in range(len(defined) + 1 if calling else 1):  # a round can only add what one reads, passes or makes
            read = {name: _Function.read(node, names, self.functions, method=name in methods)
                    for name, node in defined.items()}
            if all(name in self.functions and read[name].same(self.functions[name]) for name in read):
                break
            self.functions.update(read)

    def _own(self, call: ast.Call) -> tuple[_Function, list[ast.expr | None]] | None:
        """The check's own function a call calls (by its name, or a lambda called in place) with the arguments that
        meet each of its parameters, in order (None where none does)."""
        func = call.func
        bound = False
        if isinstance(func, ast.Lambda):
            own = _Function.read(func, self.names, self.functions)
        elif isinstance(func, ast.Name) and func.id in self.functions and func.id not in self.names:
            own = self.functions[func.id]
        elif isinstance(func, ast.Attribute) and func.attr in self.functions and own_method(func, self.names):
            own = self.functions[func.attr]  # `self.first(s)`, `Names().first(s)`: a method of the check's class
            bound = own.method
        else:
            return None
        return own, own.arguments(call, bound=bound)

    def _builtin(self, func: ast.expr) -> str | None:
        if not isinstance(func, ast.Name):
            return None
        bound = self.names.get(func.id)  # a built-in under a name of the check's (`step = next`): `builtins.next`
        return func.id if bound is None else bound.removeprefix("builtins.") if bound.startswith("builtins.") and \
            "." not in bound.removeprefix("builtins.") else None

    def _partial(self, call: ast.Call) -> bool:
        return bool(call.args) and (qualified(call.func, self.names) or "") == "functools.partial"

    def _unwrapped(self, call: ast.Call) -> ast.Call | None:
        """A call of a partial (`functools.partial(next, it)()`, `pick(it)` where `pick = functools.partial(next)`)
        as the call of what it wraps, with the partial's arguments first; None for any other call."""
        func = call.func
        partial = func if isinstance(func, ast.Call) and self._partial(func) else \
            self.partials.get(func.id) if isinstance(func, ast.Name) and func.id not in self.functions else None
        if partial is None:
            return None
        return ast.Call(func=partial.args[0], args=[*partial.args[1:], *call.args],
                        keywords=[*partial.keywords, *call.keywords])

    def draws(self, expr: ast.expr) -> bool:
        """A callable handing out a set's members in turn, one each call: a carrier's bound `pop` or `__next__`
        (`s.pop`, `iter(s).__next__`), a name bound to one, a partial of `next` on a carrier or of such a
        callable."""
        if isinstance(expr, ast.Attribute) and isinstance(expr.ctx, ast.Load):
            return expr.attr in _POPS and self.carries(expr.value)
        if isinstance(expr, ast.Name):
            return expr.id in self.drawers
        if isinstance(expr, ast.Call) and self._builtin(expr.func) == "getattr" and len(expr.args) == 2:
            name = expr.args[1]  # `getattr(s, 'pop')`
            return isinstance(name, ast.Constant) and name.value in _POPS and self.carries(expr.args[0])
        if isinstance(expr, ast.Call) and self._partial(expr):
            wrapped = expr.args[0]
            return (self._builtin(wrapped) == "next" and len(expr.args) > 1 and self.carries(expr.args[1])) or \
                self.draws(wrapped)
        return False

    def _unbound(self, owner: ast.expr) -> bool:
        """A container's class, whose method takes the container first: `set`, `dict`, `type(s)`."""
        if isinstance(owner, ast.Name):
            return owner.id in ("set", "dict") and owner.id not in self.names
        return isinstance(owner, ast.Call) and self._builtin(owner.func) == "type" and len(owner.args) == 1

    def _joins(self, call: ast.Call) -> bool:
        """`sum(terms, [])`, `sum(terms, start=())`: lists or tuples joined in the order the terms come in."""
        start = [*call.args[1:2], *(k.value for k in call.keywords if k.arg == "start")]
        return bool(call.args) and bool(start) and isinstance(start[0], (ast.List, ast.Tuple)) and \
            self.carries(call.args[0])

    def holds(self, expr: ast.expr) -> bool:
        """A display holding a set's order as one of its members (`[s]`, `(s, t)`): what iterating it meets is one."""
        return isinstance(expr, (ast.List, ast.Tuple, ast.Set)) and any(
            self.carries(e.value if isinstance(e, ast.Starred) else e) for e in expr.elts)

    def _spread(self, args: list[ast.expr]) -> list[ast.expr]:
        """Arguments with a starred display spread (`zip(*[s])` is `zip(s)`); a starred set's order stays starred
        (`zip(*s)`: its members are the arguments, in turn)."""
        spread: list[ast.expr] = []
        for arg in args:
            if isinstance(arg, ast.Starred) and isinstance(arg.value, (ast.List, ast.Tuple)):
                spread += self._spread(list(arg.value.elts))
            else:
                spread.append(arg.value if isinstance(arg, ast.Starred) and self.carries(arg.value) else arg)
        return spread

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
        if isinstance(expr, ast.Attribute) and isinstance(expr.ctx, ast.Load):
            return _target(expr) in self.ordered
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, _SET_OPS):
            return self.carries(expr.left) or self.carries(expr.right)
        if isinstance(expr, (ast.GeneratorExp, ast.ListComp, ast.DictComp)):
            return self._comprehension_carries(expr)
        if isinstance(expr, (ast.List, ast.Tuple)):
            return any(isinstance(e, ast.Starred) and self.carries(e.value) for e in expr.elts)
        if not isinstance(expr, ast.Call):
            return False
        unwrapped = self._unwrapped(expr)
        if unwrapped is not None:  # `functools.partial(list, s)()`: `list(s)`
            return self.carries(unwrapped)
        own = self._own(expr)
        if own is not None:  # `names(rows)` that builds a set, `as_list(s)` that hands the set's order back
            function, given = own
            return function.makes_set or any(a is not None and i in function.passes and self.carries(a)
                                             for i, a in enumerate(given))
        func, args = expr.func, [*self._spread(expr.args), *(k.value for k in expr.keywords if k.arg != "key")]
        builtin = self._builtin(func)
        if builtin == "iter" and len(args) == 2:  # `iter(s.pop, None)`: the members a call hands out, in turn
            return self.draws(args[0])
        if builtin == "sum" and self._joins(expr):  # `sum(([x] for x in s), [])`: the terms joined in turn
            return True
        if builtin == "sorted":  # a sort by a key leaves its ties in the set's order
            return _ties(expr.keywords, self.names) and bool(expr.args) and self.carries(expr.args[0])
        if builtin in _CARRIERS:
            iterated = args[1:] if builtin in ("map", "filter") else args
            return any(self.carries(a) for a in iterated)
        called = qualified(func, self.names) or ""
        if called in ("copy.copy", "copy.deepcopy"):  # a copy of a set iterates as the set does
            return any(self.carries(a) for a in args)
        if called in _MAPPINGS or called.startswith(("itertools.", "collections.")):
            return any(self.carries(a) for a in args)
        if called in _SEQUENCE_CALLS:  # `heapq.nlargest(1, s, key=len)`: its ties in the set's order
            return (called == "collections.deque" or _ties(expr.keywords, self.names)) and \
                any(self.carries(a) for a in args)
        if isinstance(func, ast.Attribute):
            if func.attr == "__iter__":  # `s.__iter__()`
                return self.carries(func.value)
            if func.attr in _SET_METHODS or func.attr in _VIEWS:
                held = func.value
                if isinstance(held, ast.Name) and held.id in _SETS and held.id not in self.names:  # `set.union(s, t)`
                    return any(self.carries(a) for a in args)
                return self.carries(held)
            if func.attr == "fromkeys" and args:  # `dict.fromkeys(s)`, `OrderedDict.fromkeys(s)`
                return self.carries(args[0])
        return False

    def _comprehension_carries(self, comp: ast.GeneratorExp | ast.ListComp | ast.DictComp | ast.SetComp) -> bool:
        """Whether a comprehension meets a set's order: its first loop's, or a later loop's over a name an earlier
        one bound to a set (`[y for xs in [s] for y in xs]`)."""
        if self.carries(comp.generators[0].iter):
            return True
        held: set[str] = set()
        for loop in comp.generators:
            if isinstance(loop.iter, ast.Name) and loop.iter.id in held:
                return True
            if self.holds(loop.iter):
                held |= _names(loop.target)
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
        if isinstance(expr, ast.Attribute):
            return self.carries(expr) and _target(expr) not in self.mappings
        if isinstance(expr, ast.Call) and self._builtin(expr.func) == "sum":
            return self._joins(expr)
        if isinstance(expr, ast.Call) and (unwrapped := self._unwrapped(expr)) is not None:
            return self.sequence(unwrapped)  # `functools.partial(sorted, key=len)(s)`: `sorted(s, key=len)`
        if isinstance(expr, ast.Call) and (qualified(expr.func, self.names) or "") in _SEQUENCE_CALLS:
            return self.carries(expr)
        if isinstance(expr, ast.ListComp):
            return self.carries(expr)
        if isinstance(expr, (ast.List, ast.Tuple)):
            return self.carries(expr)
        if isinstance(expr, ast.Call) and self._own(expr) is not None:  # what the check's own function hands back
            return self.carries(expr)
        return isinstance(expr, ast.Call) and self._builtin(expr.func) in _SEQUENCES and self.carries(expr)

    def float_sum(self, expr: ast.expr, sides: tuple[ast.expr, ...]) -> bool:
        """`sum(prices[n] for n in names) == 0.6`: floats added in a set's order and compared exactly. Float addition
        is not associative (`0.1 + 0.2 + 0.3` is not `0.3 + 0.2 + 0.1`), so the last bit follows the order. Floats
        are known by a float among the compared sides, the sum's start (`sum(xs, 0.0)`) or its terms
        (`float(...)`, a float constant); a sum of a set itself is left alone (a set of numbers iterates by their
        values, unsalted), and so is a sum of whole numbers, which any order adds alike."""
        if isinstance(expr, ast.Name) and expr.id in self.sums:  # `total = sum(...)` compared as `total == 0.6`
            expr = self.sums[expr.id]
        if not (isinstance(expr, ast.Call) and self._builtin(expr.func) == "sum" and expr.args):
            return False
        terms = expr.args[0]
        if self.is_set(terms) or not self.carries(terms):
            return False
        start = [*expr.args[1:2], *(k.value for k in expr.keywords if k.arg == "start")]
        elt = terms.elt if isinstance(terms, (ast.GeneratorExp, ast.ListComp)) else None
        return any(self.floaty(e) for e in (*start, *(s for s in sides if s is not expr))) or \
            (elt is not None and self.floaty(elt))

    def floaty(self, expr: ast.expr) -> bool:
        """A float: a float constant (`0.6`, `-0.5`), `float(...)`, a true division, a name bound to one, or a value
        looked up in a mapping of floats (`prices[n]` where `prices = {'a': 0.1}`)."""
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
            return self.floaty(expr.operand)
        if _is_float(expr):
            return True
        if isinstance(expr, ast.Name):
            return expr.id in self.floats
        if isinstance(expr, ast.BinOp):
            return isinstance(expr.op, ast.Div) or self.floaty(expr.left) or self.floaty(expr.right)
        if isinstance(expr, ast.Subscript):
            return isinstance(expr.value, ast.Name) and expr.value.id in self.float_maps
        return isinstance(expr, ast.Call) and self._builtin(expr.func) == "float"

    def reads_order(self, node: ast.AST) -> bool:
        if isinstance(node, (ast.Name, ast.Attribute)) and id(node) in self.after:  # the last member a loop met, read after it
            return True
        if isinstance(node, ast.Subscript):
            return self.sequence(node.value)
        if isinstance(node, ast.For):  # `for x in s: return x`: the first member it meets
            return self.carries(node.iter) and _stops_by_member(node)
        if isinstance(node, ast.Assign) and any(isinstance(t, (ast.Tuple, ast.List)) for t in node.targets):
            return self.carries(node.value)  # `first, *rest = s`: members bound by position
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant) and \
                isinstance(node.left.value, str):  # `'%s' % (list(s),)`: its text
            return any(self.carries(e) for e in (node.right.elts if isinstance(node.right, ast.Tuple)
                                                 else [node.right]))
        if isinstance(node, ast.keyword) and node.arg == "key" and isinstance(node.value, ast.Name):
            return node.value.id in ("id", "hash") and node.value.id not in self.names  # `sorted(rows, key=id)`
        if isinstance(node, ast.Compare):
            sides = (node.left, *node.comparators)
            if any(isinstance(op, (ast.Eq, ast.NotEq)) for op in node.ops) and \
                    any(self.float_sum(side, sides) or (isinstance(side, ast.Name) and side.id in self.float_totals)
                        for side in sides):
                return True
            # `errors == []`: no member, no order to read
            empty = any(isinstance(side, (ast.List, ast.Tuple)) and not side.elts for side in sides)
            return any(self.sequence(side) for side in sides) and not empty and \
                not all(isinstance(op, (ast.In, ast.NotIn, ast.Is, ast.IsNot)) for op in node.ops)
        if isinstance(node, ast.FormattedValue):
            return self.carries(node.value)
        if not isinstance(node, ast.Call):
            return False
        return self._call_reads_order(node)

    def _call_reads_order(self, node: ast.Call) -> bool:
        unwrapped = self._unwrapped(node)
        if unwrapped is not None:  # `functools.partial(next, iter(s))()`: `next(iter(s))`
            return self._call_reads_order(unwrapped)
        if self.draws(node.func):  # `take()` where `take = s.pop`: the member the set's order hands out first
            return True
        if isinstance(node.func, ast.Call) and node.args and \
                (qualified(node.func.func, self.names) or "") == "operator.methodcaller" and node.func.args and \
                isinstance(node.func.args[0], ast.Constant) and node.func.args[0].value in _POPS and \
                len(node.func.args) == 1:  # `operator.methodcaller('pop')(s)`
            return self.carries(node.args[0])
        if isinstance(node.func, ast.Attribute) and node.func.attr in _POPS and len(node.args) == 1 and \
                self._unbound(node.func.value):  # `set.pop(s)`, `type(s).pop(s)`: `s.pop()`
            return self.carries(node.args[0])
        own = self._own(node)
        if own is not None:  # `first(s)` where `def first(xs): return list(xs)[0]`
            function, given = own
            return any(a is not None and i in function.reads and self.carries(a) for i, a in enumerate(given))
        func, args = node.func, self._spread(node.args)
        builtin = self._builtin(func)
        if builtin == "next" and args:
            return self.carries(args[0])
        if builtin in _TEXT and args:
            return self.carries(args[0])
        if builtin == "enumerate" and args:  # a position paired with each member
            return self.carries(args[0])
        if builtin == "zip" and len(args) > 1:  # members paired with another iterable's, in turn
            return any(self.carries(a) for a in args) and len({ast.dump(a) for a in args}) > 1
        if builtin in _TIES and _ties(node.keywords, self.names) and args:
            return self.carries(args[0])  # ties by the key fall to the set's order
        if builtin == "print":  # `print(*s, file=out)`: its members in turn as text the check can read back
            return any(k.arg == "file" for k in node.keywords) and any(
                isinstance(a, ast.Starred) and self.carries(a.value) for a in node.args)
        called = qualified(func, self.names) or ""
        if (called == "functools.reduce" or called in _ORDER_READERS) and args and id(node) not in self.read_back:
            return self.carries(args[1] if called == "functools.reduce" and len(args) > 1 else args[0])
        if isinstance(func, ast.Call) and (qualified(func.func, self.names) or "") == "operator.itemgetter" and args:
            return self.sequence(args[0])  # `operator.itemgetter(0)(list(s))`
        if called in ("operator.getitem", "operator.__getitem__") and args:  # `operator.getitem(list(s), 0)`
            return self.sequence(args[0])
        if not isinstance(func, ast.Attribute):
            return False
        if func.attr in _DRAWS and args:  # `random.Random(7).choice(list(s))`: a fixed position, a member by order
            return self.carries(args[0])
        if func.attr in _WRITES and args:  # `csv.writer(out).writerow(s)`
            return self.carries(args[0])
        if func.attr == "format" and isinstance(func.value, ast.Constant) and isinstance(func.value.value, str):
            return any(self.carries(a) for a in (*args, *(k.value for k in node.keywords)))
        if func.attr in _SHOWN:  # `s.__repr__()`, `s.__reduce__()`: its members in turn, as text or a list
            return self.carries(func.value)
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


def _ties(keywords: list[ast.keyword], names: dict[str, str]) -> bool:
    """Whether a sort, `min`/`max` or `heapq` call has a key that can tie two members (whose order then falls to the
    set's): any key but a lambda handing back the member itself or a tuple holding it (`lambda s: (len(s), s)`), or
    the built-in `str`, `repr` or `ascii` (a string's text is itself: the salted sets are of strings), which no two
    distinct members share."""
    for keyword in keywords:
        if keyword.arg != "key":
            continue
        key = keyword.value
        if isinstance(key, ast.Name) and key.id in _TEXT_KEYS and key.id not in names:
            return False  # `key=str`: a string's own text, which no two strings share
        if not isinstance(key, ast.Lambda) or len(key.args.args) != 1 or key.args.vararg or key.args.kwarg:
            return True
        member = key.args.args[0].arg
        parts = key.body.elts if isinstance(key.body, ast.Tuple) else [key.body]
        return not any(isinstance(part, ast.Name) and part.id == member for part in parts)
    return False


def _builtin_aliases(tree: ast.Module, names: dict[str, str]) -> dict[str, str]:
    """Names the check binds to a built-in (`step = next`, `as_list = list`), as `builtins.next`: called, they are
    the built-in (a name bound to anything else as well is left out)."""
    bound: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.NamedExpr)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(target, ast.Name):
                    value = node.value
                    builtin = value.id if isinstance(value, ast.Name) and value.id not in names and \
                        value.id in dir(builtins) else ""
                    bound.setdefault(target.id, set()).add(builtin)
    return {name: f"builtins.{found.pop()}" for name, found in bound.items() if len(found) == 1 and "" not in found
            and name not in names}


def _names(target: ast.expr) -> set[str]:
    """The names a loop's target binds (`x`, `k, v`)."""
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _last_bound(loop: ast.For | ast.AsyncFor) -> set[str]:
    """What a loop that ends without a break leaves bound to the last member it met: its target's names, and names
    its body binds from them in turn (`last = x`, `name = x.strip()`; not an accumulator, `total = total + len(x)`)."""
    met = _names(loop.target)
    kept = {t.id for stmt in loop.body for n in ast.walk(stmt) if isinstance(n, (ast.Assign, ast.AnnAssign))
            and n.value is not None and any(isinstance(v, ast.Name) and v.id in met for v in ast.walk(n.value))
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)
            # `total = total + len(x)`, `best = max(best, x)`: what every member adds to, not the last one
            and not any(isinstance(v, ast.Name) and v.id == t.id for v in ast.walk(n.value))}
    return met | kept


def _walrus_bound(comp: ast.AST) -> set[str]:
    """The names a comprehension's walrus binds from its loop's names (`[(last := x) for x in s]`): they outlive it,
    bound to what the last member gave."""
    met = {name for loop in getattr(comp, "generators", []) for name in _names(loop.target)}
    return {n.target.id for n in ast.walk(comp) if isinstance(n, ast.NamedExpr) and
            any(isinstance(v, ast.Name) and v.id in met for v in ast.walk(n.value))}


def _loads_after(tree: ast.AST, lasts: list[tuple[str, ast.AST]]) -> set[int]:
    """The reads of a name a loop or comprehension left bound to its last member (`_last_bound`, `_walrus_bound`)
    that come after it and before the name is bound again, outside it (by position in the source: a function
    defined later reads a module's name as it was left), and not in a function, lambda or comprehension that binds
    a name of its own so called."""
    if not lasts:
        return set()
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    nodes = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and hasattr(n, "lineno")]
    found: set[int] = set()
    for name, holder in lasts:
        end = (holder.end_lineno or 0, holder.end_col_offset or 0)  # type: ignore[attr-defined]
        inside = {id(n) for n in ast.walk(holder)}
        stores = sorted((n.lineno, n.col_offset) for n in nodes if n.id == name and not isinstance(n.ctx, ast.Load)
                        and id(n) not in inside and (n.lineno, n.col_offset) > end)
        for node in nodes:
            where = (node.lineno, node.col_offset)
            if node.id == name and isinstance(node.ctx, ast.Load) and id(node) not in inside and where > end and \
                    not any(end < store < where for store in stores) and \
                    not _bound_nearer(node, name, holder, parents):
                found.add(id(node))
        found |= _class_reads(tree, name, holder, parents, stores)
    return found


def _class_reads(tree: ast.AST, name: str, holder: ast.AST, parents: dict[ast.AST, ast.AST],
                 stores: list[tuple[int, int]]) -> set[int]:
    """Where the loop is a statement of a class's body (`class H: for last in s: pass`), its name is left as the
    class's attribute: the reads of it as one (`H.last`, `H().last`, `self.last` in the class's methods), unless
    the class binds it again after the loop."""
    owner = parents.get(holder)
    if not isinstance(owner, ast.ClassDef) or holder not in owner.body:
        return set()
    end = (owner.end_lineno or 0, owner.end_col_offset or 0)
    if any(store < end for store in stores) or any(
            isinstance(n, ast.Attribute) and n.attr == name and not isinstance(n.ctx, ast.Load) for n in ast.walk(tree)):
        return set()
    selves = {f.args.args[0].arg for f in owner.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
              and f.args.args and not any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in f.decorator_list)}

    def is_owner(value: ast.expr) -> bool:
        if isinstance(value, ast.Call):
            value = value.func
        return isinstance(value, ast.Name) and value.id == owner.name

    def in_method(node: ast.AST) -> bool:
        scope = parents.get(node)
        while scope is not None and scope is not owner:
            if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) and parents.get(scope) is owner:
                return True
            scope = parents.get(scope)
        return False
    return {id(n) for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == name and
            isinstance(n.ctx, ast.Load) and (is_owner(n.value) or (isinstance(n.value, ast.Name) and
                                                                     n.value.id in selves and in_method(n)))}


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
           ast.GeneratorExp)


def _bound_nearer(node: ast.AST, name: str, holder: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """Whether a scope around `node` that does not hold `holder` binds `name` of its own: a parameter, a
    comprehension's name, a name a function assigns (unless it declares it global or nonlocal)."""
    scope = parents.get(node)
    while scope is not None:
        if isinstance(scope, _SCOPES) and not any(n is holder for n in ast.walk(scope)):
            if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                args = scope.args
                if name in {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg,
                                            args.kwarg) if a is not None}:
                    return True
                if not isinstance(scope, ast.Lambda):
                    declared = {n for d in ast.walk(scope) if isinstance(d, (ast.Global, ast.Nonlocal))
                                for n in d.names}
                    if name not in declared and any(isinstance(n, ast.Name) and n.id == name and
                                                    isinstance(n.ctx, ast.Store) for n in ast.walk(scope)):
                        return True
            elif any(name in _names(loop.target) for loop in scope.generators):  # type: ignore[union-attr]
                return True
        scope = parents.get(scope)
    return False


def _target(target: ast.expr) -> str | None:
    """What an assignment binds: a name (`names`), or an attribute of a name (`self.names` of `self.names = ...`,
    read as `self.names` in a method or a property)."""
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
        return f"{target.value.id}.{target.attr}"
    return None


def _accumulated(loop: ast.For | ast.AsyncFor, reader: _Reader) -> set[str]:
    """The names a loop fills in the order it meets its members: `out.append(x)`, `out.extend(...)`, `out += [x]`,
    `text += x` (text or a list grown by what the loop met), not `count += 1` or a sum of numbers."""
    met = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}

    def meets(expr: ast.expr) -> bool:
        return any(isinstance(n, ast.Name) and n.id in met for n in ast.walk(expr))
    filled: set[str] = set()
    for node in (n for stmt in loop.body for n in ast.walk(stmt)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _APPENDS and \
                isinstance(node.func.value, ast.Name) and any(meets(a) for a in node.args):
            filled.add(node.func.value.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and isinstance(node.target, ast.Name):
            value = node.value
            grown = isinstance(value, (ast.List, ast.Tuple, ast.JoinedStr)) or \
                (isinstance(value, ast.Name) and node.target.id in reader.texts) or \
                (isinstance(value, ast.BinOp) and any(isinstance(v, ast.Constant) and isinstance(v.value, str)
                                                      for v in (value.left, value.right)))
            if grown and meets(value):
                filled.add(node.target.id)
    return filled


def _float_totals(loop: ast.For | ast.AsyncFor, reader: _Reader) -> set[str]:
    """The names a loop adds floats to in the order it meets its members (`total += prices[n]`)."""
    return {node.target.id for stmt in loop.body for node in ast.walk(stmt)
            if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and isinstance(node.target, ast.Name)
            and (reader.floaty(node.value) or node.target.id in reader.floats)}


def _float_mapping(expr: ast.expr, reader: _Reader) -> bool:
    """A mapping whose values are floats: `{'a': 0.1, 'b': 0.2}`, `{n: p / 100 for ...}`."""
    if isinstance(expr, ast.Dict):
        return bool(expr.values) and all(reader.floaty(v) for v in expr.values)
    return isinstance(expr, ast.DictComp) and reader.floaty(expr.value)


def own_method(func: ast.Attribute, names: dict[str, str]) -> bool:
    """Whether `x.name(...)` may call a method the check defines: not a module's member (`os.name`)."""
    return qualified(func, names) is None


def _is_float(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and isinstance(expr.value, float)


class _Function:
    """One function or lambda of the check, read for what it does with a set's order: the positions of the parameters
    whose order it reads (`reads`) or returns carried (`passes`), and whether it returns a set's order of its own
    (`makes_set`: `def names(rows): return {r['name'] for r in rows}`)."""

    def __init__(self, params: list[str], reads: set[int], passes: set[int], makes_set: bool,
                 method: bool = False, defaults: list[ast.expr | None] | None = None) -> None:
        self.params, self.reads, self.passes, self.makes_set = params, reads, passes, makes_set
        # each parameter's default (`def first(xs=s)`), which a call that leaves it out gives it
        self.defaults: list[ast.expr | None] = defaults if defaults is not None else [None] * len(params)
        self.method = method  # called bound (`obj.first(s)`): its first parameter is the object, not an argument

    def same(self, other: _Function) -> bool:
        return (self.reads, self.passes, self.makes_set) == (other.reads, other.passes, other.makes_set)

    @classmethod
    def read(cls, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, names: dict[str, str],
             functions: dict[str, _Function] | None = None, *, method: bool = False) -> _Function:
        """Read with what the check's other functions do (`functions`, as known so far); a method (`method`) other
        than a static one is called bound."""
        params = [a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)]
        local = {k: v for k, v in names.items() if k not in params}
        body: list[ast.AST] = [node.body] if isinstance(node, ast.Lambda) else list(node.body)
        holder: ast.AST = node.body if isinstance(node, ast.Lambda) else ast.Module(body=node.body, type_ignores=[])
        known = dict(functions or {})
        static = not isinstance(node, ast.Lambda) and any(
            isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)

        def returned(reader: _Reader) -> bool:
            if isinstance(node, ast.Lambda):
                return reader.carries(node.body)
            parts = [n for part in body for n in ast.walk(part)]
            # a generator hands back what it yields in the order it meets it: `for x in xs: yield x`
            yields = any(isinstance(n, ast.YieldFrom) and reader.carries(n.value) for n in parts) or any(
                isinstance(n, (ast.For, ast.AsyncFor)) and reader.carries(n.iter) and
                any(isinstance(y, ast.Yield) for stmt in n.body for y in ast.walk(stmt)) for n in parts)
            return yields or any(isinstance(n, ast.Return) and n.value is not None and reader.carries(n.value)
                                 for n in parts)

        reads, passes = set(), set()
        for index, param in enumerate(params):
            reader = _Reader(holder, local, frozenset({param}), functions=known)
            if any(reader.reads_order(n) for part in body for n in ast.walk(part)):
                reads.add(index)
            if returned(reader):
                passes.add(index)
        makes_set = returned(_Reader(holder, local, functions=known))
        positional = [*node.args.posonlyargs, *node.args.args]
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(node.args.defaults))
        defaults += [*node.args.defaults, *node.args.kw_defaults]
        return cls(params, reads, passes, makes_set, method=method and not static, defaults=defaults)

    def arguments(self, call: ast.Call, *, bound: bool = False) -> list[ast.expr | None]:
        """The argument that meets each parameter, by position or keyword (None where none does or a `*args` hides
        which); a bound call's first parameter is met by the object it is called on."""
        given: list[ast.expr | None] = [None] * len(self.params)
        for index, arg in enumerate(call.args, start=1 if bound else 0):
            if isinstance(arg, ast.Starred):
                break
            if index < len(given):
                given[index] = arg
        for keyword in call.keywords:
            if keyword.arg in self.params:
                given[self.params.index(keyword.arg)] = keyword.value
        starred = any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords)
        return given if starred else [default if arg is None and index >= (1 if bound else 0) else arg
                                      for index, (arg, default) in enumerate(zip(given, self.defaults, strict=True))]
