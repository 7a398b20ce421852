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
fork), or a fault point's original is held where a fresh child would hold the replacement (`bound_elsewhere`). The threads native libraries start when imported (pyarrow's and polars' jemalloc background threads,
OpenBLAS's pool, polars' spill cleaner) are not carried into a child, as in the suite's other fork servers
(`tests.support.pipeline_child`, `tests.support.preloaded_python`): jemalloc and OpenBLAS take their locks around a
fork (pthread_atfork) and start them again when used. The server's children share its hash secret and address
layout, which fresh ones draw each; no fault case reads either. The cases that count their open files (`--nofile`)
or change the standard streams or the locale are never sent here (see `tests.faults.harness.run_child`).
Modules that read the environment when imported (`pipelines.definitions`) are not preloaded. Where what this
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
from pathlib import Path

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
for name in sys.argv[2:]:
    importlib.import_module(name)
channel = socket.socket(fileno=int(sys.argv[1]))
from tests.support.fault_child_server import bound_elsewhere
def _answer(reply):
    channel.sendall(json.dumps(reply).encode() + b"\n")
_answer({"ready": True})
while True:
    message, fds, _flags, _addr = socket.recv_fds(channel, 1 << 20, 2)
    if not message:
        break
    request = json.loads(message)
    bound = bound_elsewhere(request["argv"], before_arming)
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
    pid = os.fork()
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
        sys.modules["tests.faults.child"].main(sys.argv[1:])
        raise SystemExit(0)
    for fd in fds:
        os.close(fd)
    _answer({"pid": pid})
    _, status = os.waitpid(pid, 0)
    _answer({"returncode": os.waitstatus_to_exitcode(status)})
"""


def bound_elsewhere(argv: list[str], before_arming: set[str]) -> str | None:
    """Why a child with these arguments, forked from this interpreter, would not meet its fault points as a fresh one
    does (None where it would). A fault point (`--kill`/`--fail MODULE:ATTR:...`) replaces MODULE.ATTR once the child
    is armed; a module imported after that which binds ATTR by name (`from MODULE import ATTR`) holds the replacement
    in a fresh child, but the original in a fork of an interpreter that imported it before. So the original may be held
    only by what a fresh child has surely imported when armed: `before_arming` (`tests.faults.child`'s imports),
    MODULE and its packages, the module that defines ATTR (and for Class.method, the class); anything else refuses the
    fork (the child then starts fresh)."""
    import gc

    specs = [argv[i + 1] for i, arg in enumerate(argv[:-1]) if arg in ("--kill", "--fail")]
    for spec in specs:
        module_name, attr = spec.split(":")[:2]
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
        for holder in gc.get_referrers(original):
            if not any(holder is namespace for namespace in namespaces):
                held_by = holder.get("__name__", "?") if isinstance(holder, dict) else type(holder).__name__
                return f"{spec}: its original is held by {held_by}, which a fresh child imports after the arming"
    return None


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
        if not self.fits(env):
            return None
        with contextlib.suppress(BlockingIOError):
            while os.read(self.own_output, 65536):
                pass
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        try:
            socket.send_fds(self.channel, [json.dumps({"argv": argv, "env": env, "cwd": str(ROOT)}).encode()],
                            [out_w, err_w])
        finally:
            os.close(out_w)
            os.close(err_w)
        started = self._reply()
        if "pid" not in started:
            self.refused.append(str(started.get("refused")))
            os.close(out_r)
            os.close(err_r)
            return None
        pid = int(str(started["pid"]))
        self.forked += 1
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

    def close(self) -> None:
        self.channel.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=30)
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        os.close(self.own_output)


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
