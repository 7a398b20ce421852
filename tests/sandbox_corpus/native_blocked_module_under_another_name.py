# expect: forbidden
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# A refused extension module (_xxsubinterpreters, _testcapi and the other test modules, _ctypes, _posixsubprocess)
# loaded from the stdlib's own file under a dotted alias ("pkg._ctypes": the init function is found by the last part): a subinterpreter
# has none of this interpreter's audit hooks, so code run there reads the host's secret and hands it back
# through scratch. Loading one at all must be refused (a value, no violation, means it loaded); without the hook
# it loads, and Landlock keeps the secret out of the subinterpreter's reach too.
import importlib.machinery
import importlib.util
import os
import sys


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def load(name, stem):
    folder = next(p for p in sys.path if p.endswith("lib-dynload"))
    path = os.path.join(folder, next(f for f in os.listdir(folder) if f.startswith(stem + ".")))
    spec = importlib.util.spec_from_file_location(name, path, loader=importlib.machinery.ExtensionFileLoader(name,
                                                                                                             path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check(**p):
    script = (f"with open({p.get('secret_file', '/etc/shadow')!r}) as fh, open('out.txt', 'w') as out:\n"
              "    out.write(fh.read())\n")
    for name, run in (("pkg._xxsubinterpreters", lambda m: m.run_string(m.create(), script)),
                      ("pkg._testcapi", lambda m: m.run_in_subinterp(script)),
                      ("_testinternalcapi", lambda m: m.run_in_subinterp_with_config(script)),
                      ("pkg._testclinic", lambda m: m.__name__)):
        try:
            run(load(name, name.rpartition(".")[2]))
        except BaseException:
            pass
    try:
        with open("out.txt") as fh:
            return leak(fh.read())
    except OSError:
        pass
    loaded = []
    for name in ("pkg._ctypes", "pkg._posixsubprocess"):
        try:
            load(name, name.rpartition(".")[2])
            loaded.append(name)
        except BaseException:
            pass
    return loaded
