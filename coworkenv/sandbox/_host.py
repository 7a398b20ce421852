"""Host side of one sandboxed call: spawn the child, pump its pipes under the caps, classify what came back.

Only the payload goes in (as JSON in a file read before the untrusted code starts); only the function's return
value comes back, as JSON on a dedicated send-only socket (fd 3), never parsed from stdout. The code shares its
process with the bootstrap, so it could write that socket itself, but nothing it writes there is worth more than
what it can return anyway: the host accepts exactly one result line from a child that exited cleanly, treats the value as
untrusted data, and reports extra lines as tampering.

A call may also let the code ask the host (`ask`, e.g. an LLM judge): the code writes `{"ask": {name: text...}}` lines
on the same channel and reads each answer, `{"answer": text}` or `{"refused": why}`, from a second socket (fd 4) that
only the host writes. Only a flat object of strings crosses, within the limits' size, count and time; the host
answers each request with the child stopped (its clock too), and stops for good a child that leaves an answer unread.
"""

from __future__ import annotations

import ast
import contextlib
import contextvars
import ctypes
import errno
import fcntl
import functools
import importlib.util
import json
import logging
import marshal
import math
import os
import re
import resource
import selectors
import signal
import socket
import struct
import sys
import threading
import time
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from coworkenv.escaping import escape_hidden
from coworkenv.sandbox._cgroup import RunCgroup, oom_killed
from coworkenv.sandbox._pidns import RunPidNamespace
from coworkenv.sandbox._scratch import SCRATCH_ENTRIES, scratch_exceeds
from coworkenv.sandbox._types import ERROR_KINDS, SandboxLimits, SandboxResult

_CHILD = Path(__file__).with_name("_child.py")
_log = logging.getLogger(__name__)
# Where the child's bootstrap runs from: a copy in the run directory (written by the caller), so that the paths the
# code reads of its own interpreter (sys.argv, sys.orig_argv, __main__.__file__, the file names of the bootstrap's
# code in every frame above its own) name the run, never the host's checkout of the project (a user's home).
BOOTSTRAP_NAME = "boot.py"


def _interpreter() -> str:
    """The interpreter the child runs: the base installation's, not a virtual environment's (the child imports the
    standard library only, -I -S, so both behave the same), whose sys.executable and sys.prefix would name where the
    host keeps its venv, often inside the project's checkout."""
    base = getattr(sys, "_base_executable", "") or ""
    return base if base and os.path.isfile(base) and os.access(base, os.X_OK) else sys.executable


# The execution domain (personality(2)) is the calling thread's, and fork and exec pass it on: a host started under
# `setarch -R` (or a debugger) gave the child ADDR_NO_RANDOMIZE, so it ran without address-space randomisation (the
# same addresses in every run: `id()` of any object tells, no audit event), READ_IMPLIES_EXEC made every readable
# mapping executable, MMAP_PAGE_ZERO mapped page 0, UNAME26 and the rest changed what the kernel answers. The host
# spawns from a thread whose domain is the plain Linux one (PER_LINUX, no flags) and puts its own back afterwards.
_PER_LINUX = 0
_PERSONALITY_QUERY = 0xFFFFFFFF


@contextlib.contextmanager
def _plain_personality() -> Iterator[None]:
    """This thread's execution domain set to PER_LINUX for what it spawns meanwhile (nothing to do where it is)."""
    libc = ctypes.CDLL(None, use_errno=True)
    own = libc.personality(ctypes.c_ulong(_PERSONALITY_QUERY))
    if own in (_PER_LINUX, -1):  # -1: a kernel without the call, where nothing is passed on
        yield
        return
    if libc.personality(ctypes.c_ulong(_PER_LINUX)) == -1 or libc.personality(
            ctypes.c_ulong(_PERSONALITY_QUERY)) != _PER_LINUX:
        raise RuntimeError(f"cannot give the sandbox the plain execution domain: the host runs with personality "
                           f"{own:#x} ({os.strerror(ctypes.get_errno())}), which its child would inherit "
                           f"(start the host without setarch flags)")
    try:
        yield
    finally:
        libc.personality(ctypes.c_ulong(own))


def bootstrap_source() -> bytes:
    """The bootstrap's source (`_child.py`)."""
    return _CHILD.read_bytes()


@functools.lru_cache(maxsize=1)
def _bootstrap_code() -> types.CodeType:
    return compile_for_child(bootstrap_source(), str(_CHILD))


_FUTURE_ANNOTATIONS = __import__("__future__").annotations.compiler_flag


def compile_for_child(source: str | bytes, filename: str, optimize: int = 0) -> types.CodeType:
    """The child's own modules (the bootstrap, and the layers' modules it runs) compiled as the compiler compiles them
    (no optimisation: the child runs without -O), but for their `from __future__ import annotations`, whose effect is
    kept (the annotations flag) and whose statement is left out: at run time that statement imports the `__future__`
    module, 0.2-0.4 ms of CPU of every sandboxed call, for a binding of the name `annotations` none of them uses."""
    tree = ast.parse(source, filename)
    kept = [node for node in tree.body if not (isinstance(node, ast.ImportFrom) and node.module == "__future__"
                                               and [alias.name for alias in node.names] == ["annotations"])]
    flags = _FUTURE_ANNOTATIONS if len(kept) < len(tree.body) else 0
    tree.body = kept
    return compile(tree, filename, "exec", flags=flags, dont_inherit=True, optimize=optimize)


def bootstrap_bytes(path: str) -> bytes:
    """What the caller writes to `path` (BOOTSTRAP_NAME in a run directory): the bootstrap compiled once per host
    process, as a byte-code file whose code names `path` as its file, as compiling the source there would (the
    interpreter runs a file that starts with its byte-code magic as byte code, whatever its name). The child compiled
    the 760-line source on every call: 9 ms of its start-up, the largest part after the interpreter's own. The child
    is the base installation of this interpreter (`_interpreter`): the same version, the same magic.

    Renaming every code object and marshalling the tree took 0.9 ms of the host's CPU a call (a third of its share):
    a run directory's path has the same length on every call of a process (`mkdtemp`'s fixed-length name), so the
    file is made once per length with a placeholder there and the path put in its place (`_bootstrap_template`);
    the bytes are those `_bootstrap_file(path)` makes (checked when the template is made, else made that way)."""
    template = _bootstrap_template(len(path)) if path.isascii() else None
    if template is None:
        return _bootstrap_file(path)
    head, tail = template
    return head + path.encode("ascii") + tail


def _bootstrap_file(path: str) -> bytes:
    code = _renamed(_bootstrap_code(), path)
    return importlib.util.MAGIC_NUMBER + bytes(12) + marshal.dumps(code)  # flags 0, no mtime or size: run as is


@functools.lru_cache(maxsize=4)
def _bootstrap_template(length: int) -> tuple[bytes, bytes] | None:
    """`_bootstrap_file` of an ASCII path of `length` characters, split where the path's characters lie: marshal
    writes the one file-name string all code objects share once (later ones refer back to it), as its type, length
    and characters, all the same for any ASCII text of that length. None where a placeholder does not occur exactly
    once, or where another placeholder put in its place does not give the file made for it."""
    if length < 1:
        return None
    marker, other = "\x7f" * length, "\x7e" * length
    head, found, tail = _bootstrap_file(marker).partition(marker.encode("ascii"))
    if not found or marker.encode("ascii") in tail or head + other.encode("ascii") + tail != _bootstrap_file(other):
        return None
    return head, tail


def _renamed(code: types.CodeType, filename: str) -> types.CodeType:
    """`code` and every code object nested in it with `filename` as their file."""
    consts = tuple(_renamed(const, filename) if isinstance(const, types.CodeType) else const
                   for const in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)


_EXIT_TAMPERED = 86  # kept in step with _child.EXIT_TAMPERED
_EXIT_SETUP = 87  # kept in step with _child.EXIT_SETUP
_MAX_ERROR_CHARS = 500
_FRAME_SLACK = 4096  # result channel bytes allowed beyond the value itself (layers, violations, framing)
_SCRATCH_CHECK_S = 0.1  # how often the host measures a scratch folder that no tmpfs caps
# Kernels count RSS per CPU and read it approximately (an error of a few MiB on many cores), so a child's peak that
# is only the host's, carried over at exec, can read a little above the host's own figure.
_INHERITED_RSS_SLACK = 32 * 2**20
# The share of its CPU limit a child the limit's signal stopped has spent at least, as wait4 reports it. The kernel
# checks RLIMIT_CPU against its own running total, and wait4's user + system times are sampled from ticks: on a loaded
# virtual machine (half the time stolen) a genuine SIGXCPU at a 1 s limit read below 0.95 s (two corpus snippets
# counted `crashed` in a fresh clone's `make test` at load 6-8), so the bar is half the limit: a self-sent SIGXCPU
# gets the verdict only after burning that much of the budget it claims to have spent.
_CPU_LIMIT_SPENT_SHARE = 0.5
# What a terminal or log viewer acts on instead of showing: controls (ESC opens ANSI/OSC sequences that clear the
# screen, make links or write the clipboard; CR and newlines overwrite or forge log lines), format characters (bidi
# overrides reorder text, zero-width ones hide it), line and paragraph separators, and lone surrogates.
# How deep a returned value may nest: JSON decodes up to the host's recursion limit, and whoever takes the value on
# (the verifier, `json.dumps`, `copy.deepcopy`, a dataset writer) recurses once per level, from wherever it stands.
_MAX_VALUE_DEPTH = 100
# The error kinds the bootstrap itself writes on the channel. The others are verdicts on what the host saw (its
# wall clock, the CPU limit's signal, violation lines): a frame that claims one is the code's own, and forged.
_BOOTSTRAP_KINDS = frozenset({"exception", "memory_limit", "crashed", "output_limit", "bad_result",
                              "isolation_missing"})
# Why the bootstrap reports a layer missing that the caller switched off (kept in step with _child.SWITCHED_OFF). A
# violation line is the audit hook's report; where the caller switched the hook off nothing in the child writes one,
# so such a line is the code's own: main read it as the hook's refusal (`forbidden`, "blocked: reading '/etc/shadow'
# ...") in a run where no hook ran and nothing was refused.
_SWITCHED_OFF = "switched off by the caller"
ANSWER_FD = 4  # kept in step with _child.ANSWER_FD
_ASK_PREFIX = b'{"ask":'
# What answers a request: the request (names to texts) and the seconds left of the call's ask budget; the answer's
# text, or AskRefused (its message is what the code is told).
AskHandler = Callable[[dict[str, str], float], str]


class AskRefused(Exception):
    """A host handler's refusal of one request: the code gets `{"refused": message}` and goes on."""


@dataclass(frozen=True)
class Outcome:
    """One call's result, the layers that took effect, why each other layer is missing, and every violation the
    audit hook reported (the result's error names only the first)."""

    result: SandboxResult
    layers: tuple[str, ...]
    missing: dict[str, str]
    violations: tuple[str, ...] = ()

    def __iter__(self) -> Iterator[Any]:
        """Unpacks as `(result, layers)`, the pair `_execute` returned before it said more."""
        return iter((self.result, self.layers))


@dataclass
class _Collected:
    status: int
    cpu_s: float
    maxrss_bytes: int
    result_bytes: bytes
    output_tail: bytes
    stopped: str | None  # "timeout", "output_limit", "scratch_limit" or "ask_unread" when the host killed the child
    duration_s: float
    # Linux carries the spawning process's peak RSS into the child's ru_maxrss at exec: a peak no higher than
    # this says nothing about the child's own memory use.
    inherited_maxrss_bytes: int = 0
    oom_killed: bool = False  # the kernel's OOM killer stopped it: the run's memory cgroup was full


# Every signal the child starts with at its default action: a disposition the host set to "ignore" survives exec
# (SIGHUP under nohup, SIGINT and SIGQUIT for a shell's background job, SIGTTIN...), so the code would read how the
# host was started (signal.getsignal, no audit event), and could not be stopped by what it ignores.
_DEFAULT_SIGNALS = tuple(sorted(signal.valid_signals() - {signal.SIGKILL, signal.SIGSTOP}))


# A host without capabilities whose runs keep its uid (no per-run uid: a host without root) and that no Landlock keeps
# out (its ptrace rule) is theirs to read in /proc/<pid>: with `os.readlink` and `os.stat` (no audit event, and no
# empty /proc where no user namespace may be made: the weakest tier, the hook and seccomp alone) a run read this
# process's descriptor links, among them every run folder of the calls in flight (each held by a lock descriptor; the
# scratch watch's folders between two looks) and whatever else the host holds open, then `os.stat` of names in a
# concurrent run's scratch. The kernel keeps an undumpable process's /proc/<pid> to holders of CAP_SYS_PTRACE, so
# such a host is undumpable while any call is in flight, as dumpable as before once none is (exec resets it for the
# programs it starts; a child it forks meanwhile without exec stays undumpable). PR_GET_DUMPABLE, PR_SET_DUMPABLE.
_PR_GET_DUMPABLE, _PR_SET_DUMPABLE = 3, 4
_SYS_LANDLOCK_CREATE_RULESET = {"x86_64": 444, "aarch64": 444}
_hidden = threading.Lock()
_hidden_calls = [0, 0]  # calls in flight that hide this process, and whether it was dumpable before the first


@functools.lru_cache(maxsize=1)
def _landlock_available() -> bool:
    """Whether this kernel has Landlock (its ABI version answers); False where that cannot be asked."""
    number = _SYS_LANDLOCK_CREATE_RULESET.get(os.uname().machine)
    if number is None:
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return int(libc.syscall(ctypes.c_long(number), None, ctypes.c_size_t(0), ctypes.c_uint32(1))) > 0


def _holds_capabilities() -> bool:
    """Whether this process has permitted capabilities (a run, which has none, may not read a /proc/<pid> whose
    process has more: the kernel's capability check); True where its status cannot be read (nothing to hide then)."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("CapPrm:"):
                    return int(line.split()[1], 16) != 0
    except (OSError, ValueError):
        pass
    return True


_runs_went_without_landlock = [False]  # a child that had Landlock to apply ran without it (and without its own /proc)


def runs_can_read_the_host(disable: frozenset[str]) -> bool:
    """Whether a run of this call could read this process's /proc/<pid>: this process holds no capabilities and the
    run gets no Landlock (switched off, a kernel without it, or a child of this process's that failed to apply it
    before). A user namespace's empty /proc would keep it out too, but whether the child can make one is known only
    once it has tried."""
    return not _holds_capabilities() and (
        "landlock" in disable or not _landlock_available() or _runs_went_without_landlock[0])


def note_run_layers(layers: tuple[str, ...], hidden: bool) -> None:
    """After a call that did not hide this process: where its run had neither Landlock nor an empty /proc of its own
    (the kernel has Landlock, yet the child could not apply it), every later call hides it."""
    if not hidden and not {"landlock", "proc-hidden"} & set(layers) and not _holds_capabilities():
        if not _runs_went_without_landlock[0]:
            _log.warning("a sandboxed run went without Landlock on a kernel that has it: this process hides its "
                         "/proc/<pid> from later runs while their calls are in flight")
        _runs_went_without_landlock[0] = True


@contextlib.contextmanager
def hidden_from_runs(hide: bool) -> Iterator[None]:
    """This process undumpable for the block where `hide` (its /proc/<pid> closed to processes of its uid without
    CAP_SYS_PTRACE), counted across concurrent calls: the last call out restores what the first one found."""
    if not hide:
        yield
        return
    libc = ctypes.CDLL(None, use_errno=True)
    with _hidden:
        if _hidden_calls[0] == 0:
            _hidden_calls[1] = int(libc.prctl(ctypes.c_int(_PR_GET_DUMPABLE), ctypes.c_ulong(0), ctypes.c_ulong(0),
                                              ctypes.c_ulong(0), ctypes.c_ulong(0))) == 1
            if _hidden_calls[1]:
                libc.prctl(ctypes.c_int(_PR_SET_DUMPABLE), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0),
                           ctypes.c_ulong(0))
        _hidden_calls[0] += 1
    try:
        yield
    finally:
        with _hidden:
            _hidden_calls[0] -= 1
            if _hidden_calls[0] == 0 and _hidden_calls[1]:
                libc.prctl(ctypes.c_int(_PR_SET_DUMPABLE), ctypes.c_ulong(1), ctypes.c_ulong(0), ctypes.c_ulong(0),
                           ctypes.c_ulong(0))


def _high_fd(fd: int) -> int:
    # Our write ends must not sit on 0..3, where the spawn file actions put the child's stdio and channel.
    new = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return new


def _result_channel() -> tuple[int, int]:
    """(host end, child end) of the result channel: a socket pair, not a pipe, because a pipe can be reopened for
    reading through /proc/self/fd/3, which would let the code read its own violation reports back out before the
    host sees them; a socket cannot be reopened that way, and the child's end only sends."""
    host, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    host.shutdown(socket.SHUT_WR)
    child.shutdown(socket.SHUT_RD)
    _fix_buffers(child)
    return host.detach(), child.detach()


def _answer_channel(limits: SandboxLimits) -> tuple[int, int]:
    """(host end, child end) of the answer channel: a socket pair whose child end only receives, with room for one
    answer, so that a host write never blocks on a child that follows the protocol (ask, then read the answer)."""
    host, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    host.shutdown(socket.SHUT_RD)
    child.shutdown(socket.SHUT_WR)
    host.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, _answer_room(limits))
    host.setblocking(False)
    _fix_buffers(child)
    return host.detach(), child.detach()


# A socket starts with the buffer sizes of the network namespace it is made in (net.core.wmem_default and
# rmem_default), and the channels are made in the host's: SO_SNDBUF and SO_RCVBUF of fd 3 and fd 4, which the code
# may read (seccomp lets a socket say what it is; with the hook off, no audit event), answered the host's network
# tuning (212992 each here, the kernel's default; a tuned server's 16 MiB would show alike). The child's ends get
# fixed sizes instead, which the kernel doubles for its bookkeeping: 131072 on every host whose wmem_max and
# rmem_max allow 64 KiB (the kernel's default allows 208 KiB). The host's ends keep theirs: the code cannot ask them.
CHANNEL_BUFFER_BYTES = 65536


def _fix_buffers(sock: socket.socket) -> None:
    for option in (socket.SO_SNDBUF, socket.SO_RCVBUF):
        sock.setsockopt(socket.SOL_SOCKET, option, CHANNEL_BUFFER_BYTES)


def _answer_room(limits: SandboxLimits) -> int:
    """The bytes one answer line may take on the answer channel (whatever JSON's escapes make of the answer)."""
    return 2 * limits.max_answer_bytes + _FRAME_SLACK


def spawn_and_collect(run_dir: str, limits: SandboxLimits, required: tuple[str, ...] = (),
                      cgroup: RunCgroup | None = None, ask: AskHandler | None = None,
                      pid_namespace: bool = True, joins: tuple[str, ...] = ()) -> Outcome:
    """Run the child on the job in `run_dir` (which requires the layers `required`; it joins `cgroup` itself) and
    classify what it left on its channels; `ask` answers the code's requests (the job must say it may ask);
    `pid_namespace`: start it in a pid namespace of its own where the host may make one (`_pidns`); `joins`: the
    `cgroup.procs` files of the run's cgroups, which the host moves the child into ahead of it (`_join_early`)."""
    res_r, res_w = _result_channel()
    out_r, out_w = os.pipe()
    # Standard input: a pipe no one writes (reads give EOF at once, as /dev/null's do). It was the host's /dev/null,
    # opened before the child entered any namespace: os.fstat(0) gave that node's times (when the host's /dev was
    # made: the uptime the time namespace hides) and its device numbers, in every set (no audit event, no path).
    in_r, in_w = os.pipe()
    os.close(in_w)
    ans_w, ans_r = _answer_channel(limits) if ask is not None else (-1, -1)  # the host writes, the child reads
    try:
        res_w, out_w, in_r = _high_fd(res_w), _high_fd(out_w), _high_fd(in_r)
        extra = []
        if ask is not None:
            ans_r = _high_fd(ans_r)
            extra = [(os.POSIX_SPAWN_DUP2, ans_r, ANSWER_FD)]
        start = time.monotonic()
        inherited = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        interpreter = _interpreter()
        with RunPidNamespace(pid_namespace) as pidns:
            try:
                with _plain_personality():
                    pid = pidns.spawn(lambda: os.posix_spawn(
                        interpreter, [interpreter, "-I", "-S", "-B", os.path.join(run_dir, BOOTSTRAP_NAME), run_dir],
                        {}, file_actions=[(os.POSIX_SPAWN_DUP2, in_r, 0),
                                          (os.POSIX_SPAWN_DUP2, out_w, 1), (os.POSIX_SPAWN_DUP2, out_w, 2),
                                          (os.POSIX_SPAWN_DUP2, res_w, 3), *extra],
                        setsid=True, setsigmask=(), setsigdef=_DEFAULT_SIGNALS,
                    ))
            except OSError as exc:
                raise RuntimeError(f"cannot start the sandbox interpreter {interpreter!r}: {exc}") from exc
            finally:  # only the child may hold the write ends, so that EOF means the child is gone
                os.close(res_w)
                os.close(out_w)
                os.close(in_r)
                in_r = -1
                if ans_r >= 0:
                    os.close(ans_r)
                    ans_r = -1
            _join_early(pid, joins)
            asks = _Asks(ask, ans_w, limits, pid) if ask is not None else None
            collected = _collect(pid, res_r, out_r, start, limits, os.path.join(run_dir, "work"), asks)
        collected = replace(collected, inherited_maxrss_bytes=inherited,
                            oom_killed=cgroup is not None and oom_killed(cgroup))
    finally:
        for fd in (res_r, out_r, ans_r, ans_w, in_r):
            if fd >= 0:
                os.close(fd)
    return _classify(collected, limits, required)


def _join_early(pid: int, joins: tuple[str, ...]) -> None:
    """Move the child just spawned into the run's cgroups while its interpreter starts. The child still checks,
    before any other layer, that each group lists it, and joins itself where one does not (`_kernel.join_cgroup`),
    so this only speeds that up and never replaces it. Where the kernel has had no cgroup move for a while (cgroup
    v1 here), a move waits for an RCU grace period (`cgroup_threadgroup_rwsem`; 11-18 ms of wall a call measured
    here): the wait now overlaps the child's start-up, and the child, listed by then, writes nothing (a write that
    moves nothing took the lock, and waited, all the same). A failed write (a child gone already) changes nothing:
    the child's own join decides."""
    for procs in joins:
        with contextlib.suppress(OSError), open(procs, "w", encoding="ascii") as fh:
            fh.write(str(pid))


class _AskUnread(Exception):
    """The code asked again before reading the host's last answer (the answer channel is full)."""


class _Asks:
    """Answers the code's requests as their lines arrive on the result channel, taking those lines out of it."""

    def __init__(self, handler: AskHandler, answer_fd: int, limits: SandboxLimits, pid: int) -> None:
        self.handler, self.fd, self.limits, self.pid = handler, answer_fd, limits, pid
        self.count, self.spent_s, self.scanned = 0, 0.0, 0  # `scanned`: result bytes already looked at

    def take(self, result: bytearray, answer: bool = True) -> float:
        """Answer each whole request line in `result` (removed from it); the seconds the handler took to answer
        them, for which the wall clock stops (the host's own work on a request, parsing or refusing it, does not
        stop it: a code could ask for refusals for as long as it liked). Without
        `answer` (the child has exited: nobody would read them) the lines are only removed."""
        spent = 0.0
        while (end := self._next_request(result)) >= 0:
            line = bytes(result[self.scanned:end + 1])
            del result[self.scanned:end + 1]
            if not answer:
                continue
            before = self.spent_s
            reply = self._reply(line)
            spent += self.spent_s - before  # the handler's time only: refusing is the code's time
            data = self._frame(reply)
            try:
                sent = _send_quietly(self.fd, data)
            except (BrokenPipeError, ConnectionResetError):  # the code has exited or closed its end: no one reads it
                continue
            except BlockingIOError:
                sent = 0
            if sent != len(data):
                raise _AskUnread
        return spent

    def _next_request(self, result: bytearray) -> int:
        """Where the next whole request line in `result` ends (it starts at `scanned`, moved there), or -1 (`scanned`
        moved past the whole lines that are none). Found by searching for the request's prefix after a line break, not
        line by line: 324 KiB of bare newlines, one write of the code's, cost a Python step each, 0.15 s of the host's
        CPU (sandbox51)."""
        start = self.scanned
        if not result.startswith(_ASK_PREFIX, start):
            found = result.find(b"\n" + _ASK_PREFIX, start)
            if found < 0:
                self.scanned = result.rfind(b"\n", start) + 1 or start  # a line still being written waits
                return -1
            start = found + 1
        self.scanned = start
        return result.find(b"\n", start)

    def _reply(self, line: bytes) -> dict[str, str]:
        limits = self.limits
        self.count += 1
        if self.count > limits.max_asks:  # before any work on it: beyond the count, requests cost the host nothing
            return {"refused": f"more than {limits.max_asks} requests in one call"}
        if len(line) > limits.max_ask_bytes:
            return {"refused": f"a request larger than {limits.max_ask_bytes} bytes"}
        try:
            frame = json.loads(line, parse_constant=_reject_constant, object_pairs_hook=_unique_keys)
        except (ValueError, RecursionError):
            frame = None
        request = frame.get("ask") if type(frame) is dict and len(frame) == 1 else None
        if type(request) is not dict or not request or not all(
                type(k) is str and type(v) is str and _is_unicode(k + v) for k, v in request.items()):
            return {"refused": "a request is one object of texts, {name: text, ...}"}
        left = limits.ask_seconds - self.spent_s
        if left <= 0:
            return {"refused": f"the call's {limits.ask_seconds:g}s for requests are spent"}
        began = time.monotonic()
        # The clock stops, and so does the code: a code need not wait in read() for the answer, and it kept working
        # while the clock was stopped (CPU, and disk that the host's scratch watch, busy answering, did not see: 70 MB
        # into a 4 MiB scratch during a 1 s answer). It is stopped until the answer is written (`_pause`).
        paused = _pause(self.pid)
        try:
            done, answer, failure = _answer_within(self.handler, dict(request), left)
        finally:
            if paused:
                _resume(self.pid)
            self.spent_s += time.monotonic() - began
        if not done:  # the handler overran what was left: the call's budget is spent, whatever it answers later
            self.spent_s = max(self.spent_s, limits.ask_seconds)
            _log.warning("a sandbox request handler took longer than the %.3gs left for requests; the request is "
                         "refused and its answer dropped", left)
            return {"refused": f"the call's {limits.ask_seconds:g}s for requests are spent"}
        if isinstance(failure, AskRefused):
            return {"refused": str(failure)[:_MAX_ERROR_CHARS]}
        if failure is not None:  # the request is the code's: whatever it makes the handler do, the host goes on
            _log.warning("a sandbox request handler failed (%s); the request is refused", type(failure).__name__)
            return {"refused": f"the host could not answer ({type(failure).__name__})"}
        if type(answer) is not str:
            return {"refused": "the host's handler gave no text"}
        return {"answer": answer.encode("utf-8", "replace")[:limits.max_answer_bytes].decode("utf-8", "ignore")}

    def _frame(self, reply: dict[str, str]) -> bytes:
        """`reply` as one line for the answer channel, at most the channel's room (`_answer_channel`): an
        answer whose escapes make it longer (a control character takes six bytes, `\\u0001`) is cut further, so
        that what the host chose to send never fills the channel as a code that does not read would."""
        def encoded(text: str) -> bytes:
            return (json.dumps({**reply, "answer": text}, ensure_ascii=False) + "\n").encode("utf-8", "replace")

        data = (json.dumps(reply, ensure_ascii=False) + "\n").encode("utf-8", "replace")
        room = _answer_room(self.limits)
        answer = reply.get("answer")
        if len(data) <= room or answer is None:
            return data
        fits, over = 0, len(answer)  # the longest prefix that fits: encoded(answer[:fits]) <= room < ...[:over]
        while over - fits > 1:
            middle = (fits + over) // 2
            fits, over = (middle, over) if len(encoded(answer[:middle])) <= room else (fits, middle)
        return encoded(answer[:fits])


def _send_quietly(fd: int, data: bytes) -> int:
    """Write `data` on the answer channel's socket `fd` without SIGPIPE: a write to a socket whose reader is gone
    (the code closed fd 4, put another file over it, shut it down for reading, or exited) raised the signal in the
    host before failing with EPIPE, and a host whose SIGPIPE is at its default action (an embedding that keeps
    Python's signal set-up out, a command line restoring it for `| head`) died of it, with whatever else it was
    running: the code chose when. MSG_NOSIGNAL leaves the EPIPE alone (BrokenPipeError, as before)."""
    sock = socket.socket(fileno=fd)
    try:
        sock.settimeout(0.0)  # non-blocking as it was made, whatever default timeout the host process set
        return sock.send(data, socket.MSG_NOSIGNAL)
    finally:
        sock.detach()


def _answer_within(handler: AskHandler, request: dict[str, str], seconds: float) -> tuple[bool, Any, Exception | None]:
    """Run `handler(request, seconds)` for at most `seconds`: (whether it finished, its answer, what it raised).

    The host waited for a handler however long it took: one that ignored the seconds it was given (a judge whose
    client waits 2 x 120 s for a slow server, whatever the call has left) held the code's clock, and the host's
    caller, stopped past the call's `ask_seconds`. It runs in a daemon thread the host stops waiting for at the
    deadline (no thread can be stopped from outside): what it answers later is dropped, and a host exiting meanwhile
    does not wait for it.
    """
    box: list[Any] = []

    def run() -> None:
        try:
            box.append((handler(request, seconds), None))
        except BaseException as exc:  # handed over to the host's thread: it refuses the request, or re-raises
            box.append((None, exc))

    # In a copy of the caller's context: a handler may read the caller's context variables (a judge's scope).
    worker = threading.Thread(target=contextvars.copy_context().run, args=(run,), name="sandbox-ask", daemon=True)
    worker.start()
    worker.join(max(seconds, 0.0))
    if not box:
        return False, None, None
    answer, failure = box[0]
    if failure is not None and not isinstance(failure, Exception):
        raise failure  # KeyboardInterrupt, SystemExit: the host's to act on, as when the handler ran in its thread
    return True, answer, failure


# rt_sigqueueinfo per architecture: the host resumes a child it stopped with a SIGCONT whose sender fields it writes
# itself (si_code SI_QUEUE, si_pid and si_uid 0). A kill()'s SIGCONT carries the sender's pid and uid, which the code
# reads back with sigtimedwait (SIGCONT blocked before it asks; no audit event): the host's pid in every set.
_RT_SIGQUEUEINFO = {"x86_64": 129, "aarch64": 138}
_SI_QUEUE = -1
_SIGINFO_BYTES = 128


def _pause(pid: int) -> bool:
    """Stop the child (all its threads; SIGSTOP tells it nothing) where it can be resumed without naming the host;
    whether it was stopped. A process it forked (where `max_processes` allows) is not stopped."""
    if os.uname().machine not in _RT_SIGQUEUEINFO:
        return False
    try:
        os.kill(pid, signal.SIGSTOP)
    except OSError:  # it has exited (a zombie: the host has not reaped it yet)
        return False
    return True


def _resume(pid: int) -> None:
    """Continue the child `_pause` stopped, with a SIGCONT that names no sender."""
    info = ctypes.create_string_buffer(_SIGINFO_BYTES)
    struct.pack_into("iii", info, 0, signal.SIGCONT, 0, _SI_QUEUE)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(ctypes.c_long(_RT_SIGQUEUEINFO[os.uname().machine]), ctypes.c_long(pid),
                    ctypes.c_long(signal.SIGCONT), info) != 0 and ctypes.get_errno() != errno.ESRCH:
        with contextlib.suppress(OSError):  # never leave it stopped: a plain SIGCONT names the host, but resumes
            _log.warning("rt_sigqueueinfo failed (%s): the sandboxed child is resumed with kill()",
                         os.strerror(ctypes.get_errno()))
            os.kill(pid, signal.SIGCONT)


def _is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates, which `\ud800` in JSON decodes to
        return False
    return True


def _collect(pid: int, res_r: int, out_r: int, start: float, limits: SandboxLimits, scratch: str,
             asks: _Asks | None = None) -> _Collected:
    """Read both pipes until the child exits, the wall clock runs out or a cap is hit (output, result, or the
    `scratch` folder where no tmpfs caps it), answering the code's requests (`asks`); then kill and reap."""
    try:
        pidfd: int | None = os.pidfd_open(pid)
    except (AttributeError, OSError):  # kernels before 5.3: poll the child instead
        pidfd = None
    result, output = bytearray(), _Output(limits.max_output_bytes)
    result_cap = limits.max_output_bytes + _FRAME_SLACK + (limits.max_ask_bytes if asks is not None else 0)
    stopped: str | None = None
    try:
        stopped = _pump(pid, pidfd, res_r, out_r, result, output, start + limits.wall_seconds, result_cap,
                        _ScratchWatch(scratch, limits, start, pid), asks)
        if stopped is None:  # the child finished: what it wrote last is still in the pipe buffers
            result += _drain(res_r, result_cap - len(result) + 1)
            if asks is not None:
                asks.take(result, answer=False)  # requests it did not wait for: the same outcome as answered ones
            output.add(_drain(out_r, limits.max_output_bytes - output.size + 1))
            if len(result) > result_cap or output.exceeded:
                stopped = "output_limit"
        elif len(result) <= result_cap:
            result += _drain(res_r, result_cap - len(result))  # violations written before the stop still count
    finally:
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)  # the leader is not reaped yet, so its group id cannot be reused
        if pidfd is not None:
            os.close(pidfd)
        try:
            _, status, rusage = os.wait4(pid, 0)
            cpu_s, maxrss = rusage.ru_utime + rusage.ru_stime, rusage.ru_maxrss * 1024  # ru_maxrss is in KiB
        except ChildProcessError:  # a SIGCHLD handler elsewhere in the host reaped it: judge by the frames
            status, cpu_s, maxrss = 0, 0.0, 0
    return _Collected(status, cpu_s, maxrss, bytes(result), bytes(output.tail), stopped, time.monotonic() - start)


class _Output:
    """The child's stdout+stderr: counted against the cap, only the tail kept (for crash reports)."""

    def __init__(self, cap: int) -> None:
        self.cap, self.size, self.tail = cap, 0, b""

    def add(self, chunk: bytes) -> None:
        self.size += len(chunk)
        self.tail = (self.tail + chunk)[-2048:]

    @property
    def exceeded(self) -> bool:
        return self.size > self.cap


class _ScratchWatch:
    """Measures the scratch folder every `_SCRATCH_CHECK_S` once the child has said its layers, unless they
    include a tmpfs scratch (which the kernel caps, and which the host cannot see into anyway)."""

    def __init__(self, path: str, limits: SandboxLimits, start: float, pid: int) -> None:
        self.path, self.next_check, self.pid = path, start + _SCRATCH_CHECK_S, pid
        self.max_bytes, self.file_bytes = limits.scratch_bytes, limits.file_size_bytes
        self.active: bool | None = None  # None until the layers line arrived

    def wait_s(self, remaining: float) -> float:
        return remaining if self.active is False else max(0.0, min(remaining, self.next_check - time.monotonic()))

    def exceeded(self, result: bytearray) -> bool:
        if self.active is None and b"\n" in result:
            layers, _, _, _, _ = _parse_frames(bytes(result[:result.index(b"\n") + 1]))
            self.active = "scratch-tmpfs" not in layers
        now = time.monotonic()
        if self.active is False or now < self.next_check:
            return False
        self.next_check = now + _SCRATCH_CHECK_S  # also while the layers line is late: never a busy loop
        return bool(self.active) and scratch_exceeds(self.path, self.max_bytes, pid=self.pid,
                                                      file_bytes=self.file_bytes)


def _pump(
    pid: int, pidfd: int | None, res_r: int, out_r: int, result: bytearray, output: _Output, deadline: float,
    result_cap: int, scratch: _ScratchWatch, asks: _Asks | None = None,
) -> str | None:
    """Move pipe data into `result`/`output` until the child exits (None) or must be stopped (the reason);
    answer the code's requests meanwhile, the wall clock stopped while the host answers."""
    with selectors.DefaultSelector() as sel:
        for fd in (res_r, out_r) + ((pidfd,) if pidfd is not None else ()):
            sel.register(fd, selectors.EVENT_READ)
        while True:
            remaining = deadline - time.monotonic()
            # past the deadline: one look without waiting first, so a child that ended in time while this host got no
            # CPU (a busy machine) is read as ended, not as stopped by the wall clock
            late = remaining <= 0
            wait = 0.0 if late else scratch.wait_s(remaining)
            ready = sel.select(wait if pidfd is not None else min(wait, 0.005))
            exited = pidfd is None and os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
            for key, _ in ready:
                if key.fd == pidfd:
                    exited = True
                    continue
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    sel.unregister(key.fd)
                elif key.fd == res_r:
                    result += chunk
                    if asks is not None:
                        try:
                            deadline += asks.take(result)
                        except _AskUnread:
                            return "ask_unread"
                else:
                    output.add(chunk)
            if len(result) > result_cap or output.exceeded:
                return "output_limit"
            if exited:
                return None
            if late and deadline <= time.monotonic():  # (an answer given meanwhile moved the deadline on)
                return "timeout"
            if scratch.exceeded(result):
                return "scratch_limit"


def _drain(fd: int, limit: int) -> bytes:
    """Whatever is already buffered in the pipe, up to `limit` bytes (other holders may keep it open)."""
    os.set_blocking(fd, False)
    data = bytearray()
    with contextlib.suppress(BlockingIOError):
        while len(data) < limit:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            data += chunk
    return bytes(data)


# Every line the bootstrap and the hook write is a JSON object, written without a space before or after it, and none is
# shorter than `{"result":0}`. The code may write any line on fd 3, and each line the host parses costs it a decoder's call
# and, for what is no JSON, an exception: 68 KiB of bare newlines (one write, microseconds of the child's time) took
# 0.27 s of the host's CPU after the call, the 324 KiB a code that may ask gets 1.3 s (sandbox51).
_SHORTEST_FRAME = len(b'{"result":0}')


def _parse_frames(data: bytes) -> tuple[tuple[str, ...], dict[str, str], list[str], list[dict[str, Any]], bool]:
    """Split the result channel into (layers, missing layers and why, violations, final frames, whether anything
    was malformed)."""
    layers: tuple[str, ...] = ()
    missing: dict[str, str] = {}
    violations: list[str] = []
    finals: list[dict[str, Any]] = []
    lines = data.split(b"\n")
    malformed = lines[-1] != b""
    for i, line in enumerate(lines[:-1]):
        if len(line) < _SHORTEST_FRAME or line[:1] != b"{" or line[-1:] != b"}":
            malformed = True  # no frame the bootstrap or the hook writes: judged without a parse
            continue
        try:  # the code can write this channel itself: nesting deep enough to recurse out, numbers beyond a float
            obj = json.loads(line, parse_constant=_reject_constant, parse_float=_finite_float,
                             object_pairs_hook=_unique_keys)
        except (ValueError, RecursionError):
            malformed = True
            continue
        if type(obj) is not dict or len(obj) not in (1, 2):
            malformed = True
        elif i == 0 and isinstance(obj.get("layers"), list):
            layers = tuple(str(x) for x in obj["layers"])
            if isinstance(obj.get("missing"), dict):
                missing = {escape_hidden(str(k)): escape_hidden(str(v)) for k, v in obj["missing"].items()}
        elif isinstance(obj.get("violation"), str) and len(obj) == 1:
            if _hook_wrote(obj["violation"]):
                violations.append(obj["violation"])
            else:  # a line the hook never writes: the code's own (where the hook runs, it shares its process)
                malformed = True
        elif ("result" in obj and len(obj) == 1) or isinstance(obj.get("error_kind"), str):
            finals.append(obj)
        else:
            malformed = True
    return layers, missing, violations, finals, malformed


# The reasons the audit hook writes (`_hook.py`, kept in step): fixed texts, and a few forms around a name or path
# it shows. The code shares the hook's process and can write a violation line of its own where the hook runs (no
# token the hook holds is out of its reach); one the hook never writes (free text: "the check passed, approved by
# the operator") is the code's, a malformed frame. A name the code chose is shown plain only as a dotted ASCII
# identifier, anything else quoted as `repr` does (cut at 120 characters, which leaves the quote open).
_HOOK_NAME = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"
_HOOK_EVENT = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+"  # every refused event's name has a dot
_HOOK_SHOWN = r"(?P<shown>b?['\"].*)"
_HOOK_NAMED = rf"(?:(?P<name>{_HOOK_NAME})|{_HOOK_SHOWN})"
_HOOK_REASONS = tuple(re.compile(pattern, re.DOTALL) for pattern in (
    r"open with flags that are not an int",
    r"a call whose judgement a signal handler cut short twice in the audit hook",
    r"importing a module by a name that is not a plain str",
    r"sending a signal to another process",
    r"marshal\.loads outside the import of a standard-library module \(bytecode is never taken from the code\)",
    r"compiling something other than source text, such as an AST object \(bytecode is made from source text only\)",
    r"sqlite3\.connect to a URI with an authority or escapes",
    r"sqlite3\.connect to a non-str database",
    r"sqlite3\.connect while a thread of the code's own runs \(sqlite and threads do not mix here\)",
    r"reading a C object the bootstrap keeps for its own gates",
    r"setting TZ to a value that is not exactly str or bytes",
    r"(?:setting|unsetting) an environment variable whose name is not exactly str or bytes",
    rf"importing {_HOOK_NAMED}(?: from the file of a refused module| from the file of a module loaded already)?",
    rf"(?:setting|unsetting) {_HOOK_NAMED}, which makes C libraries load files or code",
    rf"(?:{_HOOK_EVENT}|{_HOOK_SHOWN.replace('shown', 'event_shown')})",  # a refused event
    rf"sqlite3\.connect to a URI with the parameter {_HOOK_SHOWN}",
    rf"sqlite3\.connect to a URI with the parameter {_HOOK_SHOWN} twice",
    rf"{_HOOK_NAME} (?:relative to a directory descriptor|with a path that is not exactly str or bytes|with a command "
    r"that reaches outside the sandbox \(signal owner, folder watch, lease, lock probe, socket\))",
    rf"{_HOOK_NAME} on a path with '\.\.': {_HOOK_SHOWN}",
    rf"{_HOOK_NAME} naming {_HOOK_SHOWN} outside the scratch directory",
    rf"writing {_HOOK_SHOWN} outside the scratch directory",
    rf"loading native code from {_HOOK_SHOWN} outside the standard library",
    rf"loading bytecode {_HOOK_SHOWN} that is not a standard-library \.pyc file",
    rf"(?:reading|listing) {_HOOK_SHOWN} outside the scratch directory and the standard library",
    rf"opening directory {_HOOK_SHOWN}",
    rf"reading {_HOOK_SHOWN}, the file of a refused module",
))
_HOOK_EVENT_START = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\.")
_HOOK_SHOWN_CHARS = 120  # kept in step with _hook.NAME_CHARS
# The longest report the hook writes: its reason cap (kept in step with _hook.REASON_CHARS) and the "..." of a cut.
# A longer line is the code's, judged by its length alone: what stands where a quoted name stands is parsed as Python
# (`ast.literal_eval`), and a 68 KiB name of the code's (`'a',0,0,...`, a tuple) made 32 MiB of syntax tree and took 50
# ms of the host's CPU after the call; 150 MiB and 0.27 s at the 324 KiB a code that may ask gets (sandbox51).
_HOOK_REASON_CHARS = 500 + len("...")
# One quoted text as `repr` writes a str or bytes: a quote, then escapes or characters other than that quote, a
# backslash or a line break, then the same quote.
_ONE_LITERAL = re.compile(r"""b?(?:'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")""", re.DOTALL)


def _shown_by_repr(text: str) -> bool:
    """Whether `text` is what `repr` gives for a str or bytes, or its first 120 characters."""
    if len(text) == _HOOK_SHOWN_CHARS and text.isprintable():
        return True  # cut: no closing quote to find (a name or path of any length)
    if _ONE_LITERAL.fullmatch(text) is None:  # never parse an expression of the code's (a tuple of 250 items)
        return False
    try:
        value = ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return type(value) in (str, bytes) and repr(value) == text


def _hook_wrote(reason: str) -> bool:
    """Whether the audit hook writes `reason` in a violation report (the code may write any line itself)."""
    if len(reason) > _HOOK_REASON_CHARS:
        return False
    for pattern in _HOOK_REASONS:
        found = pattern.fullmatch(reason)
        if found is None:
            continue
        shown, event_shown = found.groupdict().get("shown"), found.groupdict().get("event_shown")
        if shown is not None and not _shown_by_repr(shown):
            continue
        # A refused event's name quoted: a str whose refused prefix (`socket.`, `pty.`) is an identifier and a dot.
        if event_shown is not None and not (event_shown[0] != "b" and _shown_by_repr(event_shown)
                                            and _HOOK_EVENT_START.match(event_shown[1:])):
            continue
        return True
    return False


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


class _KeyTwice(dict):  # type: ignore[type-arg]
    """A decoded JSON object that held one key twice (`{1: "a", "1": "b"}` encodes so): parsers disagree on which
    wins, so what the code meant is not known. A frame that is one is malformed; a value that holds one is refused."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    return obj if len(obj) == len(pairs) else _KeyTwice(pairs)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e999 parses as infinity, which the caller could never serialise again
        raise ValueError(f"{text} is not a finite number")
    return value


def _classify(c: _Collected, limits: SandboxLimits, required: tuple[str, ...]) -> Outcome:
    layers, missing, violations, finals, malformed = _parse_frames(c.result_bytes)

    # Every text below may be the code's own (messages, type names, module names in violations, stderr, a frame it
    # wrote itself), and it ends up in logs, terminals and datasets.
    violations = [escape_hidden(v[:_MAX_ERROR_CHARS]) for v in violations]

    def fail(kind: str, error: str) -> Outcome:
        return Outcome(SandboxResult(False, None, kind, escape_hidden(error[:_MAX_ERROR_CHARS]), round(c.duration_s, 4)),
                       layers, missing, tuple(violations))

    cpu_cap = max(1, math.ceil(limits.cpu_seconds))
    sig = os.WTERMSIG(c.status) if os.WIFSIGNALED(c.status) else None
    code = os.WEXITSTATUS(c.status) if os.WIFEXITED(c.status) else None
    if violations and missing.get("audit-hook") == _SWITCHED_OFF:  # the code's own lines: none is a violation
        return fail("bad_result", "the result channel held a violation report where no audit hook ran (tampering?)")
    if violations:
        more = f" (and {len(violations) - 1} more)" if len(violations) > 1 else ""
        return fail("forbidden", f"blocked: {violations[0]}{more}")
    if code == _EXIT_TAMPERED:
        return fail("forbidden", "the code closed or replaced the sandbox result channel")
    if c.stopped == "timeout":
        return fail("timeout", f"wall-clock limit of {limits.wall_seconds:g}s exceeded")
    if c.stopped == "output_limit":
        return fail("output_limit", f"output or result larger than {limits.max_output_bytes} bytes")
    if c.stopped == "ask_unread":
        return fail("bad_result", "the code asked the host again without reading its answer")
    if c.stopped == "scratch_limit":
        return fail("output_limit", f"scratch directory larger than {limits.scratch_bytes} bytes "
                                    f"or {SCRATCH_ENTRIES} entries, or holding a folder the host cannot look into")
    # The kernel's SIGXCPU comes at the soft limit and its SIGKILL at the hard one: only the CPU the child spent tells
    # them from the same signals the code sends itself (signal.raise_signal, os.kill of its own pid), which main read
    # as this verdict after 0.05 s of CPU. A self-sent SIGXCPU is a crash like any other signal.
    if sig in (signal.SIGXCPU, signal.SIGKILL) and c.cpu_s >= cpu_cap * _CPU_LIMIT_SPENT_SHARE:
        return fail("cpu_limit", f"CPU time limit of {cpu_cap}s exceeded")
    if sig == signal.SIGXFSZ:
        return fail("output_limit", f"file size limit of {limits.file_size_bytes} bytes exceeded")
    if sig is not None:
        if c.oom_killed:
            return fail("memory_limit", f"memory limit of {limits.memory_bytes} bytes exceeded (the run's memory "
                                        "cgroup, which counts kernel memory and scratch too, was full)")
        if c.maxrss_bytes >= 0.9 * limits.memory_bytes and \
                c.maxrss_bytes > c.inherited_maxrss_bytes + _INHERITED_RSS_SLACK:
            return fail("memory_limit", f"memory limit of {limits.memory_bytes} bytes exceeded")
        return fail("crashed", f"killed by {_signal_name(sig)}{_last_line(c.output_tail)}")
    if code == _EXIT_SETUP and not layers:  # the bootstrap says its layers before the code runs: after, it is the code's
        return fail("crashed", f"sandbox setup failed{_last_line(c.output_tail)}")
    if code != 0:
        return fail("crashed", f"exited with status {code} without returning")
    if malformed or len(finals) > 1:
        return fail("bad_result", "the result channel held data besides one result (tampering?)")
    if not finals:
        return fail("crashed", "exited without returning a result")
    final = finals[0]
    if "result" in final:
        value, problem = _untrusted_value(final["result"])
        if problem is not None:
            return fail("bad_result", f"the value {problem}")
        return Outcome(SandboxResult(True, value, None, None, round(c.duration_s, 4), round(c.cpu_s, 4)), layers, missing,
                       tuple(violations))
    kind = final["error_kind"]
    if kind not in ERROR_KINDS or not isinstance(final.get("error"), str):
        return fail("bad_result", "the result channel held an unknown error report")
    if kind not in _BOOTSTRAP_KINDS:
        return fail("bad_result", f"the result channel held a verdict only the host gives ({kind}; tampering?)")
    if kind == "isolation_missing" and set(required) <= set(layers):
        # Only the bootstrap refuses, and only for a required layer it could not apply: this one is forged.
        return fail("bad_result", "the code reported an isolation refusal itself (tampering?)")
    return fail(kind, final["error"])


class _Refused(Exception):
    """What in a returned value no consumer may take (the message completes "the value ...")."""


def _untrusted_value(value: Any) -> tuple[Any, str | None]:
    """The JSON value `value` as the host may hand it on, or None and what in it no consumer could take.

    Everything the code returns ends up in explanations, logs and datasets, so every text in it (keys too) has its
    terminal and log controls escaped as in the reports (`coworkenv.escaping.escape_hidden`). Refused: text that is not Unicode (lone
    surrogates: no UTF-8 writer accepts them), an integer beyond 64 bits (no float or int64 holds it), a number that
    is not finite, nesting deeper than `_MAX_VALUE_DEPTH` (a consumer that recurses would run out of stack), two keys
    that read the same once escaped, and anything but the exact types JSON decodes to: types are compared with `is`,
    so no method of an object the decoding might ever produce (`__eq__`, `__hash__`, `__class__`, `__repr__`) runs.
    """
    try:
        return _clean(value, 0), None
    except _Refused as exc:
        return None, str(exc)


def _clean(item: Any, depth: int) -> Any:
    kind = type(item)
    if kind is str:
        return _clean_text(item)
    if item is None or kind is bool:
        return item
    if kind is int:
        if not -2**63 <= item < 2**63:
            raise _Refused("holds an integer beyond 64 bits, which neither a float nor an int64 holds")
        return item
    if kind is float:
        if not math.isfinite(item):
            raise _Refused("holds a number that is not finite, which JSON cannot carry")
        return item
    if kind is _KeyTwice:
        raise _Refused("holds one key twice (as `1` and `\"1\"` encode), which parsers read differently")
    if kind is not list and kind is not dict:
        raise _Refused("holds something JSON does not decode to (only objects, arrays, text, numbers, true, false, "
                       "null may cross)")
    if depth >= _MAX_VALUE_DEPTH:
        raise _Refused(f"nests deeper than {_MAX_VALUE_DEPTH} levels, which a consumer that recurses cannot take")
    if kind is list:
        return [_clean(sub, depth + 1) for sub in item]
    cleaned: dict[str, Any] = {}
    for key, sub in item.items():
        if type(key) is not str:
            raise _Refused("holds a key that is not text")
        name = _clean_text(key)
        if name in cleaned:
            raise _Refused(f"holds two keys that read {name!r} once their control characters are escaped")
        cleaned[name] = _clean(sub, depth + 1)
    return cleaned


def _clean_text(text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise _Refused("holds text that is not valid Unicode (lone surrogates), which no UTF-8 writer accepts") from None
    return escape_hidden(text)


def _signal_name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:  # real-time signals have no name
        return f"signal {sig}"


def _last_line(output: bytes) -> str:
    lines = [ln for ln in output.decode("utf-8", "replace").splitlines() if ln.strip()]
    return f": {lines[-1].strip()[:200]}" if lines else ""
