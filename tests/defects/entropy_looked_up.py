"""Entropy looked up: a Python check fails one correct agent in a thousand at random, by the OS's or the process's
randomness (entropy_unpinned's draws) reached through a run-time lookup instead of a plain import: `__import__('os')`,
`importlib.import_module`, `sys.modules['os']` or `.get('os')`, `getattr(os, 'urandom')` (or a name built at run time,
`getattr(uuid, 'uuid' + '4')`), `vars(os)[...]`, a module's `__dict__`, `getattr(builtins, 'hash')`, a name bound to
the looked-up module, or a constant string given to `eval`. The static reading that rejects those draws unrun named a
call only through an import statement, and the probes pin none of them: every probe run sees a check that always
passes, and main accepted every defect here but `getattr-perf-counter`, which it rejected only as `probe_aware` (its
`getattr` of the patched `time` module), never as the draw it is.

The sound twins are the same Python check without the draw, and look-alikes that look up a module's deterministic
members the same ways (`__import__('os').path.basename`, `importlib.import_module('math')`, `sys.modules['os'].sep`,
`getattr(os, 'sep')`, `vars(os)['path']`, `getattr(builtins, 'hash')(7)`, `eval('len(rows)')`).

Caught unrun by the sandbox gate (`nondeterministic_check`): the reading names what a check calls through the run-time
lookups of a module or its members as it does through an import (`coworkenv/validate/_module_lookups.py`), reads the
constant text given to `eval`/`exec` as the check's own code, and counts a member named at run time of a module that
holds such randomness as a draw.
"""

from __future__ import annotations

from tests.defects._core import Defect
from tests.defects.random_unpinned import flaky_defect

CLASS = "entropy_looked_up"
DETECTION = (
    "name what the check calls through run-time lookups (__import__, importlib.import_module, sys.modules, getattr, "
    "vars, a module's __dict__, builtins, names bound to them, eval of a constant string) as through an import, and "
    "reject a draw of the OS's, a monotonic clock's or the process's randomness reached so unrun"
)

_OS, _UUID = "import os\n", "import uuid\n"
_BASES = (("synth:scheduler_pause_failing_jobs@1", "paused-job-843"), ("synth:feature_flag_rollout@1",
                                                                       "staging-rolled-back"),
          ("synth:incident_investigate_fix@1", "service-healthy"), ("synth:feature_flag_rollout@2", None),
          ("synth:scheduler_pause_failing_jobs@1", "paused-job-842"), ("synth:incident_investigate_fix@1", "fixed"))
# name: (draw, imports, the deterministic look-alike or None, its imports)
_DRAWS: dict[str, tuple[str, str, str | None, str]] = {
    "dunder-import": ("int.from_bytes(__import__('os').urandom(2), 'big') % 1000 < 999", "",
                      "__import__('os').path.basename('a/b') == 'b'", ""),
    "import-module": ("importlib.import_module('os').getpid() % 1000 < 999", "import importlib\n",
                      "importlib.import_module('math').floor(2.5) == 2", "import importlib\n"),
    "getattr-perf-counter": ("getattr(__import__('time'), 'perf_counter_ns')() % 1000 < 999", "", None, ""),
    "sys-modules": ("sys.modules['os'].urandom(1)[0] < 255", "", "sys.modules['os'].sep == '/'", ""),
    "dunder-import-uuid": ("__import__('uuid').uuid4().int % 1000 < 999", "", None, ""),
    "getattr-constant": ("getattr(os, 'urandom')(1)[0] < 255", _OS, "getattr(os, 'sep') == '/'", _OS),
    "getattr-built-name": ("getattr(uuid, 'uuid' + '4')().int % 1000 < 999", _UUID, None, ""),
    "vars-member": ("vars(os)['getpid']() % 1000 < 999", _OS, "vars(os)['path'].basename('a/b') == 'b'", _OS),
    "module-dict": ("secrets.__dict__['token_bytes'](2)[0] < 255", "import secrets\n", None, ""),
    "builtins-hash": ("getattr(builtins, 'hash')(object()) % 997 != 0", "import builtins\n",
                      "getattr(builtins, 'hash')(7) % 1000 < 999", "import builtins\n"),
    "bound-loader": ("(o := __import__('os')) and o.getpid() % 1000 < 999", "", None, ""),
    "eval-text": ("eval('os.urandom(1)[0]') < 255", _OS, "eval('len(rows)') >= 0", ""),
    "import-module-from": ("import_module('time').monotonic_ns() % 1000 < 999", "from importlib import import_module\n",
                           None, ""),
    "sys-modules-get": ("sys.modules.get('os').getpid() % 1000 < 999", "", None, ""),
}


def _defect(i: int, name: str) -> Defect:
    draw, imports, twin, twin_imports = _DRAWS[name]
    base, check_id = _BASES[i % len(_BASES)]
    return flaky_defect(CLASS, name, base, check_id, draw, imports,
                        "randomness of the OS or the process reached through a run-time lookup", twin, twin_imports)


DEFECTS = [_defect(i, name) for i, name in enumerate(_DRAWS)]
