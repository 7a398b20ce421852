# expect: ok
# expect-kernel: ok
# value: 1
# A false positive, not an escape: a grader that checks an agent's file compiles (`py_compile.compile(doraise=True)`,
# `compileall`) and then imports it wrote a `.pyc` into the scratch, which the import system then loaded: the hook
# loads bytecode only from the standard library's `.pyc` files, so the import was `forbidden` in every set with the
# hook. The import system now finds no `.pyc` of the scratch's modules and compiles their source, as `-B` does; a
# `.pyc` without its source stays refused (`bytecode_import_pyc_written_to_scratch`).
def check(**p):
    import compileall
    import importlib
    import os
    import py_compile
    import sys

    os.makedirs("pkg")
    with open("solution.py", "w") as f:
        f.write("def answer():\n    return 41 + 1\n")
    with open("pkg/__init__.py", "w") as f:
        f.write("VALUE = 3\n")
    py_compile.compile("solution.py", doraise=True)
    compiled = compileall.compile_dir("pkg", quiet=1)
    with open("bad.py", "w") as f:
        f.write("def (:\n")
    try:
        py_compile.compile("bad.py", doraise=True)
        syntax = "compiled"
    except py_compile.PyCompileError:
        syntax = "PyCompileError"
    sys.path.insert(0, ".")
    import pkg
    import solution

    with open("solution.py", "w") as f:
        f.write("def answer():\n    return 43\n")
    importlib.invalidate_caches()
    reloaded = importlib.reload(solution).answer()
    found = [bool(compiled), syntax, pkg.VALUE, reloaded, sorted(os.listdir("__pycache__"))]
    cached = "solution.cpython-{}{}.pyc".format(*sys.version_info[:2])
    return 1 if found == [True, "PyCompileError", 3, 43, [cached]] else repr(found)
