"""Boot module read: a Python check passes every probe run and fails a correct agent in another run, by the random
name of the run's scratch directory read through the module the sandbox boots the check from: `__main__` (the
sandbox's `boot.py`, copied into the scratch directory for every run), reached as `sys.modules['__main__']`,
`sys.modules.get('__main__')`, `import __main__`, `__import__('__main__')` or `importlib.import_module('__main__')`,
its `__file__`, its loader's `path` or its text; and `sys.path_importer_cache`, whose keys name the same file.
set_order_carried's reading named `sys.argv` and `sys.orig_argv`, which hold the same path, but not these, so main
accepted every defect here. (The check's own module is `__sandboxed__`; a check judging an agent's work from the
state has no use for the sandbox's boot module.)

The sound twins are the same Python check without the read, and a look-alike comparing the check's own module name
with the text `'__main__'` (a constant, no module reached).

Caught unrun by the sandbox gate (`nondeterministic_check`): `coworkenv/validate/_run_draws.py` names any read of
the `__main__` module, however `coworkenv/validate/_module_lookups.py` resolves it, and of `sys.path_importer_cache`.
"""

from __future__ import annotations

from tests.defects.random_unpinned import flaky_defects

CLASS = "boot_module_read"
DETECTION = (
    "read the check unrun and reject a read of the __main__ module (the sandbox's boot file, in the scratch "
    "directory's random name), however it is reached, and of sys.path_importer_cache"
)

# name: (the read, imports, the look-alike every run answers alike or None, its imports)
_READS: dict[str, tuple[str, str, str | None, str]] = {
    "modules-main-file": ("'7777' not in sys.modules['__main__'].__file__", "", "__name__ != '__main__'", ""),
    "import-main": ("'7777' not in __main__.__file__", "import __main__\n", None, ""),
    "dunder-import-main": ("'zzzz' not in repr(__import__('__main__'))", "", None, ""),
    "import-module-loader": ("'7777' not in importlib.import_module('__main__').__loader__.path",
                             "import importlib\n", None, ""),
    "importer-cache": ("'zzzz' not in ''.join(sys.path_importer_cache)", "", None, ""),
}


DEFECTS = flaky_defects(CLASS, _READS, "a value of the run", start=0,
                        told="passes every probe run and fails a correct agent in another run, by the scratch "
                             "directory's random name read through the sandbox's boot module (`{draw}`)")
