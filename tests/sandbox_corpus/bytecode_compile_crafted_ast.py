# expect: forbidden
# ruff: noqa: SIM105
# expect-kernel: ok
# value: 42
# error: AST
# compile() of an AST the check built by hand: no source text exists for it, so nothing that reads the source ever
# sees what runs (and malformed trees have crashed the compiler before). Also through exec and eval.
import ast


def check(**p):
    tree = ast.Module(body=[ast.Assign(targets=[ast.Name("result", ast.Store())], value=ast.Constant(42), lineno=1,
                                       col_offset=0)], type_ignores=[])
    ast.fix_missing_locations(tree)
    namespace = {}
    for attempt in (lambda: exec(compile(tree, "<ast>", "exec"), namespace),
                    lambda: namespace.update(result=eval(compile(ast.Expression(ast.Constant(42)), "<ast>", "eval")))):
        try:
            attempt()
        except Exception:
            pass
    return namespace.get("result", 0)
