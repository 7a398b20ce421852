# expect: ok
# expect-kernel: ok
# value: 1
# The honest twin of `blocked_module_loaded_from_its_file`: a grader reading standard-library sources (inspect of a
# stdlib function, linecache, `tty.py`, which pty imports but which is no refused module, a package's `__init__.py`)
# and loading a stdlib module by path works in every set: only a refused module's own file is refused.
import importlib.util
import inspect
import json
import linecache
import os
import tty


def check(**p):
    base = os.path.dirname(os.__file__)
    spec = importlib.util.spec_from_file_location("textwrap_copy", os.path.join(base, "textwrap.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with open(tty.__file__) as fh:
        tty_text = fh.read()
    with open(os.path.join(base, "json", "__init__.py")) as fh:
        json_text = fh.read()
    found = [inspect.getsource(json.dumps).startswith("def dumps("), "def setraw" in tty_text,
             "JSONDecodeError" in json_text, bool(linecache.getline(os.path.join(base, "shlex.py"), 1)),
             module.dedent("  a\n  b") == "a\nb"]
    return 1 if all(found) else repr(found)
