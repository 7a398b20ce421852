"""`python -m tests.faults.child ARGS` for the fault corpus's pipeline cases, forked from one interpreter that
imported the pipeline's modules once, instead of a fresh interpreter importing them (~2.7 s of CPU) per child.

The server is a fresh interpreter of its own (never a fork of the test process, whose threads may hold locks),
started with the test process's environment, standard input and working folder, as `subprocess.run` starts a
child. Each child is forked from it and made what a fresh `python -m tests.faults.child` would be before it runs:
its stdout and stderr the write ends of pipes this process reads (handed over with SCM_RIGHTS: the same pipes
`capture_output=True` gives), its environment the one the caller computed (os.environ and the C library's, replaced
whole), `tests.faults.child.main(ARGS)` its program, and it ends as the interpreter ends a program (SystemExit, an
uncaught exception's traceback and exit 1, a KeyboardInterrupt's SIGINT; threads joined, atexit handlers run, the
streams flushed). It stays in the test process's process group, as a `subprocess.run` child does. Nothing of one
child reaches the next: each is a fork of the server, which runs no case itself.

What a fork cannot reproduce is left to fresh interpreters (`run` answers None, and the caller starts one): an
environment whose variables the interpreter reads at start-up (PYTHON*, the locale's) differs from the server's, or
the server holds a descriptor other than 0-2 and its socket, or a Python thread (one could hold a lock at the
fork), or a fault point's original is held where a fresh child would hold the replacement and no name can be rebound
(`fork_plan`), or the child's environment differs in a variable the preload read while importing
(`environment_reads`). The preload is frozen (`gc.freeze`) in each child, out of its collections. The threads native libraries start when imported (pyarrow's and polars' jemalloc background threads,
OpenBLAS's pool, polars' spill cleaner) are not carried into a child, as in the suite's other fork servers
(`tests.support.pipeline_child`, `tests.support.preloaded_python`): jemalloc and OpenBLAS take their locks around a
fork (pthread_atfork) and start them again when used. The server's children share its hash secret and address
layout, which fresh ones draw each; no fault case reads either. The cases that count their open files (`--nofile`)
or change the standard streams or the locale are never sent here (see `tests.faults.harness.run_child`).
Children a test runs side by side (two writers of one folder) come from `start_beside`: the same checks and fork,
by a waiter of the child's own (a fork of the server that writes the child's exit code into a file), so that the
server takes the next request at once. Modules that read the environment when imported (`pipelines.definitions`) are
not preloaded. Where what this
process passes on through exec (ignored signals, blocked mask, umask, resource limits, its own environment's start-up
variables) changed since the server started (an earlier test's doing), a new server is started first.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import selectors
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from tests.support import preloaded_python

ROOT = Path(__file__).resolve().parents[2]

# What a pipeline case's child imports, less `pipelines.definitions` (its settings are read from the environment when
# it is imported: each child imports it itself, as a fresh one does).
PRELOAD = ("tests.faults.child", "tests.faults.scenarios", "tests.support.sqlite_nosync", "pipelines.run",
           "pipelines.console_logger", "pipelines.executors", "pipelines.jobs", "pipelines.resources",
           "pipelines.sensors", "assets.envs", "assets.hub", "assets.rl", "assets.sft", "assets.specs",
           "assets.taxonomy", "assets.training", "assets.trajectories",
           # the `coworkenv` command line (its commands and the registered plugins' are imported with it): the
           # synth, rollout, curate, validate and publish cases' children
           "coworkenv.cli")
# Read by the interpreter as it starts (encodings, paths, hash seed, warnings...) or by the C library's locale: a
# child whose values differ from the server's would not be the same as a fresh one.
STARTUP_PREFIXES = ("PYTHON", "LC_", "LANG")

_SERVE = r"""
import importlib, json, os, socket, sys, threading
importlib.import_module("tests.faults.child")
before_arming = set(sys.modules)  # what a fresh child has imported when it arms its fault points
from tests.support.fault_child_server import environment_reads, fork_plan, rebind_when_armed
started_with = dict(os.environ)  # the preload may set variables (polars its allocator's) as a fresh child's would
with environment_reads() as read_at_import:  # what a fresh child would read from its own environment instead
    for name in sys.argv[2:]:
        importlib.import_module(name)
channel = socket.socket(fileno=int(sys.argv[1]))
import gc
gc.collect()  # no garbage left to freeze with the preload (see the fork below)
def _answer(reply):
    channel.sendall(json.dumps(reply).encode() + b"\n")
_answer({"ready": True})
while True:
    try:  # the waiters of children started side by side (see `status` below) that have ended
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass
    message, fds, _flags, _addr = socket.recv_fds(channel, 1 << 20, 2)
    if not message:
        break
    request = json.loads(message)
    try:
        bound, rebind = fork_plan(request["argv"], before_arming)
    except Exception as error:  # a fresh child then, rather than no child
        bound, rebind = f"the fork could not be planned: {error!r}", {}
    differing = sorted(name for name in read_at_import if request["env"].get(name) != started_with.get(name))
    if differing:
        bound = f"the preloaded modules read {differing} from the environment, where this child's differs"
    if bound:
        for fd in fds:
            os.close(fd)
        _answer({"refused": bound})
        continue
    listed = os.listdir("/proc/self/fd")  # the listing's own descriptor is closed by now
    held = [int(fd) for fd in listed if int(fd) not in (0, 1, 2, channel.fileno(), *fds)
            and os.path.exists(f"/proc/self/fd/{fd}")]
    if held or threading.active_count() != 1:
        for fd in fds:
            os.close(fd)
        _answer({"refused": f"the server holds descriptors {held} or Python threads"})
        continue
    sys.stdout.flush()
    sys.stderr.flush()
    # The preload's objects kept out of the child's collections (gc.freeze, as the gc module's documentation
    # advises before a fork): a collection of the oldest generation in the child would otherwise walk every object
    # of the preload (Dagster's, the CLI's: a fresh child running `synth` has few of them), writing to each one's
    # header and so copying nearly every page of the heap. Thawed again here once forked: `fork_plan` looks for
    # holders with gc.get_referrers, which does not search frozen objects.
    gc.freeze()
    # A child started side by side with others (`status`: the file its exit code goes to): forked by a waiter of its
    # own, a fork of this server that answers with the child's pid, waits for it and writes the file, so that this
    # server takes the next request at once. The waiter answers nothing else on the channel.
    status_file = request.get("status")
    if status_file and os.fork():
        gc.unfreeze()
        for fd in fds:
            os.close(fd)
        continue
    pid = os.fork()
    if pid != 0 and not status_file:
        gc.unfreeze()
    if pid == 0:
        channel.close()
        os.dup2(fds[0], 1)
        os.dup2(fds[1], 2)
        for fd in fds:
            os.close(fd)
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        sys.argv = [sys.modules["tests.faults.child"].__file__, *request["argv"]]
        if rebind:
            rebind_when_armed(sys.modules["tests.faults.child"], rebind)
        sys.modules["tests.faults.child"].main(sys.argv[1:])
        raise SystemExit(0)
    for fd in fds:
        os.close(fd)
    _answer({"pid": pid})
    if status_file:
        channel.close()
        _, status = os.waitpid(pid, 0)
        with open(status_file + ".part", "w") as written:
            written.write(str(os.waitstatus_to_exitcode(status)))
        os.rename(status_file + ".part", status_file)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    _answer({"returncode": os.waitstatus_to_exitcode(status)})
"""


@contextlib.contextmanager
def environment_reads() -> Iterator[set[str]]:
    """The names of the environment variables read one by one (`os.environ[...]`, `.get`, `os.getenv`, `in`; the
    same through `os.environb`) while the block runs, absent ones included: what an import may have kept (a width, a
    folder) that a fresh child would have taken from its own environment. A copy of the whole environment
    (`dict(os.environ)`, which reads each variable after listing them) is not counted: at import the preload makes
    one only to hand it to a program it runs (`platform.architecture()` running `file`, as Dagster's vendored
    croniter asks whether it runs on 32 bits), whose answer no variable changes. Reads that bypass `os.environ`
    (C code's `getenv`, `posix.environ`) are not seen."""
    read: set[str] = set()
    environments = (os.environ, os.environb)
    kinds = [type(environment) for environment in environments]

    class Recording(os._Environ):  # type: ignore[misc,type-arg]  # os._Environ is generic only in typeshed
        listed: set[object] = set()  # listed by an iteration and not yet read: a copy's reads

        def __iter__(self) -> Iterator[object]:
            for key in super().__iter__():
                self.listed.add(key)
                yield key

        def __getitem__(self, key: object) -> object:
            if key in self.listed:
                self.listed.discard(key)
            else:
                read.add(os.fsdecode(key))  # type: ignore[arg-type]
            return super().__getitem__(key)

    try:
        for environment in environments:
            environment.__class__ = Recording
        yield read
    finally:
        for environment, kind in zip(environments, kinds, strict=True):
            environment.__class__ = kind


def bound_elsewhere(argv: list[str], before_arming: set[str],
                    imported_by: Callable[[list[str]], set[str]] | None = None) -> str | None:
    """Why a child with these arguments, forked from this interpreter, would not meet its fault points as a fresh one
    does (None where it would, `fork_plan`'s rebinding done)."""
    return fork_plan(argv, before_arming, imported_by)[0]


def fork_plan(argv: list[str], before_arming: set[str],
              imported_by: Callable[[list[str]], set[str]] | None = None) -> tuple[str | None, dict[str, list[str]]]:
    """(why not to fork, None where a fork will do; for each fault point's MODULE:ATTR, the modules whose names must
    be bound to the replacement once it is armed).

    A fault point (`--kill`/`--fail MODULE:ATTR:...`) replaces MODULE.ATTR once the child arms it; a module imported
    after that which binds ATTR by name (`from MODULE import ATTR`) holds the replacement in a fresh child, but the
    original in a fork of an interpreter that imported it before. What a fresh child has imported when it arms the
    point holds the original in both: `before_arming` (`tests.faults.child`'s imports), MODULE's packages, the module
    that defines ATTR (and for Class.method, the class), and what a fresh child's arming imports up to this point
    (`imported_by`: the modules a fresh `tests.faults.child` imports with these MODULEs, asked of a fresh
    interpreter: default `imported_in_a_fresh_child`). Any other module's namespace holding the original is named
    for rebinding (`rebind_when_armed`: each of its names bound to the original then names the replacement, as the
    module's import after the arming would have bound it); a holder of another kind (a tuple, a closure, a class)
    refuses the fork, and the child starts fresh."""
    import gc

    specs = [*(argv[i + 1] for i, arg in enumerate(argv[:-1]) if arg == "--kill"),
             *(argv[i + 1] for i, arg in enumerate(argv[:-1]) if arg == "--fail")]  # the child's order of arming
    namespace_of = {id(vars(module)): name for name, module in list(sys.modules.items()) if module is not None}
    rebind: dict[str, list[str]] = {}
    armed: list[str] = []
    for spec in specs:
        module_name, attr = spec.split(":")[:2]
        armed.append(module_name)
        if module_name not in sys.modules:
            continue  # imported by the child's own arming, as a fresh child imports it
        owner: object = sys.modules[module_name]
        *path, name = attr.split(".")
        for part in path:
            owner = getattr(owner, part)
        original = getattr(owner, name)
        parts = module_name.split(".")
        early = {*before_arming, *(".".join(parts[:n]) for n in range(1, len(parts) + 1)),
                 getattr(original, "__module__", module_name)}
        namespaces = [vars(sys.modules[early_name]) for early_name in early if early_name in sys.modules]
        if path:
            namespaces += [ns for ns in gc.get_referents(vars(owner)) if isinstance(ns, dict)]  # behind the proxy
        late: list[str] = []
        holders = gc.get_referrers(original)
        if any(not isinstance(h, dict) for h in holders):  # a traceback's frame in a cycle some earlier code left is
            del holders  # garbage, no holder (the list would keep it alive): under xdist a test once found one
            gc.collect()
            holders = gc.get_referrers(original)
        for holder in holders:
            if any(holder is namespace for namespace in namespaces):
                continue
            if id(holder) in namespace_of:
                late.append(namespace_of[id(holder)])
                continue
            held_by = holder.get("__name__", "?") if isinstance(holder, dict) else type(holder).__name__
            return f"{spec}: its original is held by {held_by}, which a fresh child imports after the arming", {}
        for holder in late:
            source = _bound_from(holder, original, name)
            if source in early and source != module_name:
                continue  # the original in a fresh child too: taken from a module the arming left alone
            if source != module_name:  # bound some other way, or through a module of its own imports
                return (f"{spec}: its original is held by {holder}, which a fresh child imports after the arming, and "
                        f"not only by `from {module_name} import {name}`"), {}
            if holder not in (imported_by or imported_in_a_fresh_child)(armed):  # else the original in both
                rebind.setdefault(f"{module_name}:{attr}", []).append(holder)
    return None, rebind


def _bound_from(holder: str, original: object, name: str) -> str | None:
    """The module `holder` took `original` from, where each of its names bound to it is bound by one statement
    `from MODULE import NAME [as ...]` of its source (None otherwise: the fork's answer could not be told)."""
    import ast
    import importlib.util

    module = sys.modules[holder]
    names = {key for key, value in vars(module).items() if value is original}
    try:
        tree = ast.parse(Path(str(module.__file__)).read_text())
    except (OSError, SyntaxError, TypeError, ValueError):
        return None
    sources: dict[str, set[str]] = {key: set() for key in names}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            package = holder if module.__spec__ and module.__spec__.submodule_search_locations else \
                holder.rpartition(".")[0]
            source = importlib.util.resolve_name("." * node.level + (node.module or ""), package) if node.level \
                else str(node.module)
            for alias in node.names:
                if alias.name == name and (alias.asname or alias.name) in sources:
                    sources[alias.asname or alias.name].add(source)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr, ast.FunctionDef,
                               ast.AsyncFunctionDef, ast.ClassDef, ast.Global)):
            bound = [t.id for t in ast.walk(node) if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)]
            bound += [node.name] if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else []
            if any(key in sources for key in bound) and not isinstance(node, ast.Global):
                return None  # bound some other way too
    found = {source for each in sources.values() for source in each}
    return found.pop() if len(found) == 1 and all(len(each) == 1 for each in sources.values()) else None


_imported: dict[tuple[str, ...], set[str]] = {}


def imported_in_a_fresh_child(modules: list[str]) -> set[str]:
    """The modules a fresh interpreter has imported once `tests.faults.child` and `modules` are (in that order, as the
    child's arming imports them): asked of one, once per list."""
    key = tuple(modules)
    if key not in _imported:
        code = ("import importlib, json, sys\nimportlib.import_module('tests.faults.child')\n"
                "for name in sys.argv[1:]:\n    importlib.import_module(name)\nprint(json.dumps(sorted(sys.modules)))")
        done = subprocess.run([sys.executable, "-c", code, *modules], capture_output=True, text=True, check=True,
                              cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
        _imported[key] = set(json.loads(done.stdout.splitlines()[-1]))
    return _imported[key]


def rebind_when_armed(child: object, rebind: dict[str, list[str]]) -> None:
    """In a forked child: once `tests.faults.child` (`child`) arms MODULE:ATTR, each name of the modules
    `rebind[MODULE:ATTR]` that held the original names the replacement (see `fork_plan`)."""
    patch = child._patch  # type: ignore[attr-defined]

    def resolve(target: str) -> object:
        module_name, attr = target.split(":")
        owner: object = sys.modules[module_name]
        for part in attr.split("."):
            owner = getattr(owner, part)
        return owner

    def patch_and_rebind(target: str, *args: object) -> None:
        original = resolve(target) if target in rebind else None
        patch(target, *args)
        for holder in rebind.get(target, ()):
            namespace = vars(sys.modules[holder])
            for key, value in list(namespace.items()):
                if value is original:
                    namespace[key] = resolve(target)

    child._patch = patch_and_rebind  # type: ignore[attr-defined]


class FaultChildServer:
    """One server per test process, started on first use, closed at exit."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.inherited = _inherited()
        # Its stdout and stderr are a pipe, as a child's are (the objects the interpreter made for them at start-up
        # are the ones each child writes through): what the server itself prints (an import's warning) is read and
        # dropped before each child.
        self.own_output, own_output_w = os.pipe()
        os.set_blocking(self.own_output, False)
        self.process = subprocess.Popen([sys.executable, "-c", _SERVE, str(theirs.fileno()), *PRELOAD], cwd=ROOT,
                                        env=self.env, stdout=own_output_w, stderr=own_output_w,
                                        pass_fds=(theirs.fileno(),))
        theirs.close()
        os.close(own_output_w)
        self.channel = ours
        self.buffer = b""
        self.forked = 0  # children made here (a test checks the route is taken)
        self.refused: list[str] = []  # why a child was sent to a fresh interpreter instead
        self.broken = "ready" not in self._reply()

    def _reply(self) -> dict[str, object]:
        while b"\n" not in self.buffer:
            chunk = self.channel.recv(65536)
            if not chunk:
                self.broken = True
                return {}
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        reply: dict[str, object] = json.loads(line)
        return reply

    def fits(self, env: dict[str, str]) -> bool:
        """Whether a child with environment `env` starts as a fresh interpreter with it would (and with what this
        process passes on through exec now)."""
        return not self.broken and _startup(env) == _startup(self.env) and _inherited() == self.inherited

    def run(self, argv: list[str], env: dict[str, str], timeout: float) -> tuple[int, str, str] | None:
        """(exit code, stdout, stderr) of `tests.faults.child.main(argv)` in a forked child, or None where the server
        cannot make one that a fresh interpreter would equal (the caller then starts one)."""
        started = self._fork(argv, env)
        if started is None:
            return None
        pid, out_r, err_r = started
        try:
            stdout, stderr = _read_both(out_r, err_r, timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):  # as subprocess.run: the child is killed, then waited for
                os.kill(pid, 9)
            self._reply()
            raise
        ended = self._reply()
        if "returncode" not in ended:
            raise RuntimeError(f"the fault child server ended while its child {pid} ran (exit {self.process.poll()})")
        return int(str(ended["returncode"])), _text(stdout), _text(stderr)

    def start_beside(self, argv: list[str], env: dict[str, str], status: Path) -> Beside | None:
        """`tests.faults.child.main(argv)` in a forked child, started and returned at once, as `subprocess.Popen(...,
        stdout=PIPE, stderr=PIPE, text=True)` starts one: several side by side. Its exit code is written into
        `status` when it ends (by a waiter of its own, the child's parent). None where `run` would answer None."""
        started = self._fork(argv, env, status=str(status))
        return None if started is None else Beside(*started, status)

    def _fork(self, argv: list[str], env: dict[str, str], **extra: str) -> tuple[int, int, int] | None:
        """Ask for a child (its stdout and stderr the write ends of two new pipes): its pid and the read ends, or
        None where the server cannot make one a fresh interpreter would equal (why, in `refused`)."""
        if not self.fits(env):
            return None
        with contextlib.suppress(BlockingIOError):
            while os.read(self.own_output, 65536):
                pass
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        try:
            request = {"argv": argv, "env": env, "cwd": str(ROOT), **extra}
            socket.send_fds(self.channel, [json.dumps(request).encode()], [out_w, err_w])
        finally:
            os.close(out_w)
            os.close(err_w)
        started = self._reply()
        if "pid" not in started:
            self.refused.append(str(started.get("refused")))
            os.close(out_r)
            os.close(err_r)
            return None
        self.forked += 1
        return int(str(started["pid"])), out_r, err_r

    def close(self) -> None:
        self.channel.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=30)
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        os.close(self.own_output)


class Beside(preloaded_python.Beside):
    """A child of `FaultChildServer.start_beside`, answering what a `subprocess.Popen` started with stdout=PIPE,
    stderr=PIPE, text=True answers a test that runs children side by side (`preloaded_python.Beside`), but read from
    pipes: `communicate` reads stdout and stderr to their end (only it reads them, as Popen's), then the exit code;
    `subprocess.TimeoutExpired` past the timeout, the child going on, its output lost."""

    def __init__(self, pid: int, out_r: int, err_r: int, status: Path) -> None:
        super().__init__(pid, status)
        self.pipes = (out_r, err_r)

    def communicate(self, timeout: float | None = None) -> tuple[str, str]:
        import time

        deadline = time.monotonic() + (timeout if timeout is not None else 1e9)
        stdout, stderr = _read_both(*self.pipes, deadline - time.monotonic())
        self.wait_ended(deadline, timeout)  # the pipes closed as the child ended: its waiter writes the file just after
        return _text(stdout), _text(stderr)


def _startup(env: dict[str, str]) -> dict[str, str]:
    return {key: value for key, value in env.items() if key.startswith(STARTUP_PREFIXES)}


def _inherited() -> tuple[object, ...]:
    """What a child inherits from this process through exec besides its environment: ignored signals, the blocked
    mask, the umask, the resource limits (a test may have changed any of them since the server started)."""
    import resource
    import signal

    ignored = sorted(int(s) for s in signal.valid_signals() if s not in (signal.SIGKILL, signal.SIGSTOP)
                     and signal.getsignal(s) == signal.SIG_IGN)
    mask = sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, []))
    limits = [resource.getrlimit(getattr(resource, name)) for name in dir(resource) if name.startswith("RLIMIT_")]
    with open("/proc/self/status") as status:  # read, not set and put back: the test process may have threads
        umask = next((line.split()[1] for line in status if line.startswith("Umask:")), None)
    return ignored, mask, umask, limits


def _read_both(out_r: int, err_r: int, timeout: float) -> tuple[bytes, bytes]:
    """Everything written to both pipes until every writer closed them (the child and what it started), as
    `communicate` reads; TimeoutExpired past `timeout`."""
    import time

    chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        for fd in chunks:
            selector.register(fd, selectors.EVENT_READ)
        try:
            while selector.get_map():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise subprocess.TimeoutExpired(["python", "-m", "tests.faults.child"], timeout)
                for key, _ in selector.select(left):
                    data = os.read(key.fd, 65536)
                    if data:
                        chunks[key.fd].append(data)
                    else:
                        selector.unregister(key.fd)
        finally:
            os.close(out_r)
            os.close(err_r)
    return b"".join(chunks[out_r]), b"".join(chunks[err_r])


def _text(data: bytes) -> str:
    """As `subprocess.run(..., text=True)` decodes: the locale's encoding, universal newlines."""
    import io

    return io.TextIOWrapper(io.BytesIO(data)).read()


_server: FaultChildServer | None = None


def server() -> FaultChildServer:
    """This process's server, started again where what it inherited (the environment's start-up variables, ignored
    signals, mask, umask, limits) is no longer what this process passes on: an earlier test may have changed them."""
    global _server
    if _server is not None and not _server.broken and _server.inherited == _inherited() and \
            _startup({**os.environ, "PYTHONPATH": str(ROOT)}) == _startup(_server.env):
        return _server
    if _server is not None:
        atexit.unregister(_server.close)
        _server.close()
    _server = FaultChildServer()
    atexit.register(_server.close)
    return _server


def describe(*_: str) -> None:
    """What a child's program could tell of how it was started (printed as JSON; `--call` this to compare a forked
    child with a fresh one): its descriptors and what they are, its signal dispositions and mask, its process group
    and session against its parent's, environment, arguments, folder, flags, threads, standard streams' settings,
    umask, resource limits."""
    import resource
    import signal
    import stat
    import threading

    def kind(fd: int) -> str:
        mode = os.fstat(fd).st_mode
        return next(name for name, test in (("fifo", stat.S_ISFIFO), ("chr", stat.S_ISCHR), ("reg", stat.S_ISREG),
                                            ("sock", stat.S_ISSOCK), ("dir", stat.S_ISDIR)) if test(mode))

    fds = sorted(int(fd) for fd in os.listdir("/proc/self/fd") if os.path.exists(f"/proc/self/fd/{fd}"))
    streams = {name: {"seekable": stream.seekable(), "tty": stream.isatty(), "encoding": stream.encoding,
                      "errors": stream.errors, "line_buffering": stream.line_buffering,
                      "write_through": getattr(stream, "write_through", None)}
               for name, stream in (("stdin", sys.stdin), ("stdout", sys.stdout), ("stderr", sys.stderr))}
    print(json.dumps({
        "fds": {fd: kind(fd) for fd in fds}, "inheritable": {fd: os.get_inheritable(fd) for fd in fds},
        "signals": {signal.Signals(s).name: str(signal.getsignal(s)) for s in signal.valid_signals()
                    if s not in (signal.SIGKILL, signal.SIGSTOP) and s < signal.SIGRTMIN},
        "mask": sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, [])),
        "group_is_parents": os.getpgid(0) == os.getpgid(os.getppid()),
        "session_is_parents": os.getsid(0) == os.getsid(os.getppid()),
        "environ": dict(sorted(os.environ.items())), "argv0": os.path.basename(sys.argv[0]), "argv": sys.argv[1:],
        "cwd": os.getcwd(), "flags": str(sys.flags), "threads": threading.active_count(), "streams": streams,
        "path0": os.path.realpath(sys.path[0] or "."), "umask": os.umask(os.umask(0)),
        "limits": {name: resource.getrlimit(getattr(resource, name)) for name in dir(resource)
                   if name.startswith("RLIMIT_")}}, sort_keys=True))
    print("to stderr", file=sys.stderr)
