"""Run untrusted Python carried by environment specs (Python checks, custom tools) in an isolated child process.

The code is hostile by assumption. Layers, outermost first (`isolation_layers()` says which take effect here;
a missing one is logged once per process as a warning that names it and why, and a call can refuse to run
without the layers it requires, see `run_sandboxed(require_layers=...)` and `COWORKENV_SANDBOX_REQUIRE`):
- host: a separate process in its own session, started with `python -I -S -B` and an empty environment, a fresh
  scratch directory as cwd (removed afterwards), a wall-clock timeout that kills the whole process group, and
  caps on stdout/stderr and on the result channel;
- privileged kernel layers (where the host runs as root): an empty network namespace (`netns`); a time namespace
  whose boot clocks start near zero, so they do not read the machine's uptime (`timens`); a pid namespace of the
  run's own, made by the host at the spawn, where the child is pid 2 in every run (`pidns`); a private mount namespace
  (`mountns`) whose root holds only the stdlib, the libraries it loads, a few system files, device nodes of its own
  and the scratch (`min-root`: no other host path exists in there, not even for stat), read-only (`ro-root`), with
  an empty /proc (`proc-hidden`) and a size-capped tmpfs scratch (`scratch-tmpfs`); a memory cgroup of the run's
  own that counts kernel memory and scratch too (`memory-cgroup`) and a pids cgroup that caps its tasks, threads
  included, whatever its uid (`pids-cgroup`), where the host's cgroups allow sub-groups; a per-run unprivileged
  uid (`uid-drop`);
- unprivileged kernel layers, the boundary on every host that allows them: the kernel's OOM killer picks the
  child first wherever memory runs short, never a larger host process (`oom-first`); all capabilities cleared
  (`caps-drop`), the child killed with the host (`dies-with-host`: a host killed mid-call takes its wall clock
  with it), rlimits on CPU, memory, file size, processes (`rlimits`), `no-new-privs`, Landlock (reads only
  from scratch, the standard library and a few system files, writes only in scratch, no signals out, and no
  TCP where there is no empty network namespace: `landlock`) and a seccomp filter against sockets, fork/exec, signals to other processes, ptrace, mounts,
  namespaces, chdir, links and handle-based opens (`seccomp`), whose rule against the C library's own /proc and
  /sys paths (found by address in the library's read-only data) is reported apart (`libc-paths`);
- Python: an audit hook (`audit-hook`) that refuses and reports what it sees; defence in depth only, written so
  that the code cannot steer it.

A call may give the code one way out: `run_sandboxed(..., ask=handler)` puts `ask_host(request)` in the code's
namespace; a request is a flat object of texts, answered by `handler` in the host (an LLM judge: `coworkenv.checks.judge`)
with a text, within `SandboxLimits`' count, size and time for requests. Nothing else crosses.
"""

from __future__ import annotations

import ctypes
import functools
import json
import logging
import marshal
import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from coworkenv.sandbox._cgroup import (
    CONTROLLER_LAYERS,
    KERNEL_SLACK_BYTES,
    RunCgroups,
    make_run_cgroups,
    remove_run_cgroup,
)
from coworkenv.sandbox._confine import c_library_path_offsets, object_dict_offsets, sqlite_hook_offsets
from coworkenv.sandbox._host import (
    BOOTSTRAP_NAME,
    AskHandler,
    AskRefused,
    Outcome,
    bootstrap_bytes,
    compile_for_child,
    hidden_from_runs,
    note_run_layers,
    runs_can_read_the_host,
    spawn_and_collect,
)
from coworkenv.sandbox._leftovers import RUN_DIR_PREFIX, hold_run_dir, remove_abandoned_runs, remove_run_dir
from coworkenv.sandbox._types import ERROR_KINDS, KNOWN_LAYERS, SandboxLimits, SandboxResult

__all__ = [
    "ERROR_KINDS", "KNOWN_LAYERS", "REQUIRE_ENV", "AskHandler", "AskRefused", "SandboxLimits", "SandboxResult",
    "isolation_layers", "isolation_report", "missing_layers", "required_layers", "requiring_layers", "run_sandboxed",
]

REQUIRE_ENV = "COWORKENV_SANDBOX_REQUIRE"
_SWITCHED_OFF = "switched off by the caller"  # kept in step with _child.SWITCHED_OFF
_log = logging.getLogger(__name__)
_warned: set[str] = set()
# Layers a caller's scope requires on top of COWORKENV_SANDBOX_REQUIRE (the strict validation policy sets them).
_scoped: ContextVar[tuple[str, ...]] = ContextVar("coworkenv_sandbox_required", default=())


@contextmanager
def requiring_layers(layers: Iterable[str]) -> Iterator[None]:
    """Within this scope every call requires `layers` too (e.g. strict validation: spec code never runs weaker)."""
    token = _scoped.set(tuple(dict.fromkeys((*_scoped.get(), *_layer_names(layers, "requiring_layers")))))
    try:
        yield
    finally:
        _scoped.reset(token)


def run_sandboxed(
    code: str, entrypoint: str, payload: dict[str, Any], limits: SandboxLimits = SandboxLimits(),  # noqa: B008
    *, require_layers: Iterable[str] | None = None, ask: AskHandler | None = None, prelude: str | None = None,
) -> SandboxResult:
    """Run `entrypoint(**payload)` from the Python source `code` in a sandboxed child process.

    Never raises for anything the code does (loops, bombs, crashes, escapes): those come back as a result with
    `ok=False` and an `error_kind` from `ERROR_KINDS`. `require_layers` (default: `required_layers()`, from
    COWORKENV_SANDBOX_REQUIRE) names layers that must take effect; if one does not, the code is not run and
    the result has error kind `isolation_missing`. Raises ValueError for a bad call (an entrypoint that is not
    an identifier, a payload that is not a JSON object, an unknown layer name) and RuntimeError if no
    interpreter can be started. `ask` lets the code ask the host: `ask_host(request)` in its namespace sends a dict
    of texts, `ask(request, seconds_left)` answers it with a text or refuses (`AskRefused`, which the code gets as
    a RuntimeError); the limits' `max_asks`, `max_ask_bytes`, `max_answer_bytes` and `ask_seconds` bound it.
    `prelude` is setup code run first in the same process, as a unit of its own with a namespace of its own (the
    code's globals, source, line numbers and frames are those of a run without it; its own `from __future__`
    stays first); an exception there comes back as error kind `exception`, its text starting "the setup failed". The
    prelude is the caller's own code, trusted: it is compiled here (cached by text) and shipped as byte code; the
    untrusted `code` is compiled in the child only.
    """
    required = required_layers() if require_layers is None else _layer_names(require_layers, "require_layers")
    return _execute(code, entrypoint, payload, limits, require=required, ask=ask, prelude=prelude).result


def required_layers() -> tuple[str, ...]:
    """The layers every call requires unless it says otherwise: COWORKENV_SANDBOX_REQUIRE, comma-separated
    layer names or `all` (every name in KNOWN_LAYERS; none when unset), plus those of `requiring_layers` scopes."""
    text = os.environ.get(REQUIRE_ENV, "").strip()
    configured = KNOWN_LAYERS if text.lower() == "all" else _layer_names(
        [part for part in text.split(",") if part.strip()], REQUIRE_ENV)
    return tuple(dict.fromkeys((*configured, *_scoped.get())))


def missing_layers(required: Iterable[str] | None = None) -> list[str]:
    """The layers of `required` (default: `required_layers()`) that do not take effect on this machine."""
    wanted = required_layers() if required is None else _layer_names(required, "required")
    active = set(isolation_layers())
    return [layer for layer in wanted if layer not in active]


def isolation_layers() -> tuple[str, ...]:
    """The isolation layers that take effect on this machine (runs one trivial sandboxed call, then cached)."""
    return _probe().layers


def isolation_report() -> dict[str, str]:
    """Each known layer that does not take effect on this machine, and why (from the same cached probe)."""
    return dict(_probe().missing)


@functools.lru_cache(maxsize=1)
def _probe() -> Outcome:
    return _execute("def probe():\n    return 1\n", "probe", {}, SandboxLimits())


def _layer_names(names: Iterable[str], where: str) -> tuple[str, ...]:
    if isinstance(names, str):
        names = names.split(",")
    cleaned = tuple(name.strip() for name in names)
    unknown = [name for name in cleaned if name not in KNOWN_LAYERS]
    if unknown:
        raise ValueError(f"{where}: unknown sandbox isolation layer(s) {unknown}; "
                         f"use names from {list(KNOWN_LAYERS)} or 'all'")
    return cleaned


def _execute(
    code: str, entrypoint: str, payload: dict[str, Any], limits: SandboxLimits,
    disable: frozenset[str] = frozenset(), require: Iterable[str] = (), ask: AskHandler | None = None,
    prelude: str | None = None,
) -> Outcome:
    """Run one call; `disable` switches off layers by name (tests use it to check graceful degradation):
    netns, timens, pidns, mountns, cgroup (the memory and pids cgroups), uid, landlock, seccomp, hook."""
    require = tuple(require)
    if not entrypoint.isidentifier():
        raise ValueError(f"sandbox entrypoint must be a Python identifier, got {entrypoint!r}")
    if not isinstance(payload, dict) or not all(isinstance(k, str) and k.isidentifier() for k in payload):
        raise ValueError("sandbox payload must be a dict whose keys are identifiers (they become keyword arguments)")
    job: dict[str, Any] = {
        "code": code, "entrypoint": entrypoint, "payload": payload, "disable": sorted(disable), "require": list(require),
        "host_pid": os.getpid(), "ask": ask is not None, "libc_paths": _libc_path_offsets(),
        "sqlite_hooks": _sqlite_hook_offsets(), "object_dicts": _object_dict_offsets(),
        "limits": {"cpu_seconds": limits.cpu_seconds, "memory_bytes": limits.memory_bytes,
                   "file_size_bytes": limits.file_size_bytes, "max_processes": limits.max_processes,
                   "max_threads": limits.max_threads,
                   "scratch_bytes": limits.scratch_bytes, "core_helper": _core_dumps_reach_a_helper()}}
    setup = _prelude_bytes(prelude) if prelude else None
    if prelude:  # its byte code in PRELUDE_NAME, or (where it does not compile here) its source, which the child compiles
        job.update({"prelude_code": True} if setup is not None else {"prelude": prelude})
    try:  # once: the job file is this text with the run's cgroups added as its last key (a payload can be large)
        job_text = json.dumps(job, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"sandbox payload is not JSON-serialisable: {exc}") from exc
    _remove_abandoned_runs_once()
    # A host its runs could read in /proc/<pid> (no capabilities, no Landlock) hides itself while the call is in
    # flight: its descriptors name the run folders of every call then (`_host.hidden_from_runs`).
    hidden = runs_can_read_the_host(disable)
    with hidden_from_runs(hidden):
        # Resolved, because the child's audit hook compares paths with the (resolved) scratch path as plain strings.
        run_dir = os.path.realpath(tempfile.mkdtemp(prefix=RUN_DIR_PREFIX))
        held = hold_run_dir(run_dir)
        cgroups = RunCgroups((), dict.fromkeys(CONTROLLER_LAYERS.values(), _SWITCHED_OFF))
        try:
            if "cgroup" not in disable:
                cgroups = make_run_cgroups(os.path.basename(run_dir), limits.memory_bytes + limits.scratch_bytes
                                           + KERNEL_SLACK_BYTES, limits.max_processes + limits.max_threads)
            cgroup = {"join": cgroups.joins(), "missing": cgroups.missing}
            os.chmod(run_dir, 0o711)  # the child's unprivileged uid must traverse it, never list or read it
            os.mkdir(os.path.join(run_dir, "work"), 0o700)
            fd = os.open(os.path.join(run_dir, "job.json"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(f'{job_text[:-1]}, "cgroup": {json.dumps(cgroup)}}}')  # json.dumps({**job, "cgroup": cgroup})
            boot = bootstrap_bytes(os.path.join(run_dir, BOOTSTRAP_NAME))
            files = (("boot.bin", _child_modules()), (BOOTSTRAP_NAME, boot), *(((PRELUDE_NAME, setup),) if setup else ()))
            for name, content in files:
                fd = os.open(os.path.join(run_dir, name), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "wb") as fb:
                    fb.write(content)
            outcome = spawn_and_collect(run_dir, limits, require, cgroups.memory(), ask, pid_namespace="pidns" not in disable,
                                         joins=tuple(dict.fromkeys(cgroups.joins().values())))
        finally:
            for group in cgroups.groups:  # the child is reaped by now (or never started)
                remove_run_cgroup(group)
            remove_run_dir(run_dir, held)
    note_run_layers(outcome.layers, hidden)
    _warn_missing(outcome.missing)
    return outcome


@functools.lru_cache(maxsize=1)
def _remove_abandoned_runs_once() -> None:
    """The first call of each host process removes what hosts killed mid-call left (their run dirs and cgroups)."""
    remove_abandoned_runs(tempfile.gettempdir())


def _core_dumps_reach_a_helper(pattern_file: str = "/proc/sys/kernel/core_pattern") -> bool:
    """Whether the kernel pipes a crashing process's core to a helper program (core_pattern `|...`), which RLIMIT_CORE
    does not stop."""
    try:
        with open(pattern_file, "rb") as fh:
            return fh.read(1) == b"|"
    except OSError:
        return False


@functools.lru_cache(maxsize=1)
def _child_modules() -> bytes:
    """The child's helper modules (kernel layers, confinement, audit hook), compiled once per host process, under
    file names that say what they are, not where the host keeps them (the hook's frame shows in a refusal's
    traceback, and its file name with it)."""
    here = Path(__file__).parent
    return marshal.dumps({name: compile_for_child((here / f"{name}.py").read_text(encoding="utf-8"), f"<sandbox {name}>", -1)
                          for name in ("_kernel", "_confine", "_hook")})


@functools.lru_cache(maxsize=1)
def _libc_path_offsets() -> dict[str, Any] | None:
    """Where the C library's own /proc, /sys and /dev texts lie in it, found once per host process in its own copy of
    the library (`_confine.c_library_path_offsets`): the child takes them where its library is the same build (the
    same file, mapped elsewhere) instead of scanning it on every call; None where they cannot be found here."""
    try:
        return c_library_path_offsets(ctypes.CDLL(None, use_errno=True))
    except (AttributeError, OSError, ValueError):  # a C library without getlogin or dladdr: the child scans its own
        return None


@functools.lru_cache(maxsize=1)
def _sqlite_hook_offsets() -> dict[str, Any] | None:
    """Where `_sqlite3`'s connection method entries and `backup`'s argument parser lie in its file, found once per host
    process in its own mapping of the file (`_confine.sqlite_hook_offsets`: mapped, never run as a module here): the
    child's `seal_sqlite_hooks` takes them where its file is the same build and each checks out, instead of scanning
    the file's segments on every call; None where they cannot be found here (the child scans)."""
    try:
        return sqlite_hook_offsets()
    except (AttributeError, OSError, ValueError):  # no dlopen of it here: the child scans its own
        return None


@functools.lru_cache(maxsize=1)
def _object_dict_offsets() -> dict[str, Any] | None:
    """Where the interpreter's `__dict__` getset definitions naming `PyObject_GenericSetDict` lie in its library, found
    once per host process (`_confine.object_dict_offsets`): the child's `seal_object_dicts` takes them where its
    library is the same build and each checks out, instead of scanning the library's writable data on every call
    (1.3 ms); None where they cannot be found here (the child scans)."""
    try:
        return object_dict_offsets()
    except (AttributeError, OSError, ValueError):  # no dladdr here: the child scans its own
        return None


PRELUDE_NAME = "setup.bin"  # kept in step with _child.PRELUDE_NAME
PRELUDE_FILENAME = "<setup>"  # kept in step with _child.PRELUDE_FILENAME


@functools.lru_cache(maxsize=32)
def _prelude_bytes(prelude: str) -> bytes | None:
    """The caller's setup code compiled as the child compiled it (its own unit, no future flags of this module, no
    optimisation: the child runs without -O), marshalled; None where it does not compile here (the child then compiles
    the source and reports the error as before). The prelude is the caller's own code (`run_setup`'s, with the probe's
    values), never the untrusted code, which only the child compiles. Compiling it took the child 3 ms of CPU a call
    (220 lines), the same text on most calls of a validation: cached by text."""
    try:
        code = compile(prelude, PRELUDE_FILENAME, "exec", dont_inherit=True, optimize=0)
    except Exception:  # SyntaxError, ValueError (a NUL), RecursionError...: the child's to report
        return None
    return marshal.dumps(code)


def _warn_missing(missing: dict[str, str]) -> None:
    for layer, why in missing.items():
        if why != _SWITCHED_OFF and layer not in _warned:
            _warned.add(layer)
            _log.warning("sandbox isolation layer %r is not in effect on this machine: %s", layer, why)
