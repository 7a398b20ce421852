# expect: forbidden
# ruff: noqa: SIM105
# expect-kernel: ok
# value: 42
# error: code.__new__
# Code objects from parts: types.CodeType(...) and code.replace(co_code=..., co_consts=...) with raw bytecode the
# interpreter runs unverified; then types.FunctionType around it.
import types


def template():
    return 41


def check(**p):
    c = template.__code__
    consts = tuple(42 if x == 41 else x for x in c.co_consts)  # benign: the hook must refuse the making
    made = []
    try:
        made.append(c.replace(co_consts=consts))
    except Exception:
        pass
    try:
        made.append(types.CodeType(
            c.co_argcount, c.co_posonlyargcount, c.co_kwonlyargcount, c.co_nlocals, c.co_stacksize, c.co_flags,
            c.co_code, consts, c.co_names, c.co_varnames, c.co_filename, c.co_name, c.co_qualname,
            c.co_firstlineno, c.co_linetable, c.co_exceptiontable, c.co_freevars, c.co_cellvars))
    except Exception:
        pass
    for code in made:
        try:
            return types.FunctionType(code, {})()
        except Exception:
            pass
        template.__code__ = code
        return template()
    return 0
