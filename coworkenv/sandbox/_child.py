"""Bootstrap of the sandbox child: isolate this process, then run one untrusted function and report its value.

Started by `coworkenv.sandbox` as `python -I -S -B RUN_DIR/boot.py RUN_DIR` (this file compiled by the host, as byte code, run by the base
interpreter: no path the code reads of its own process names the host's checkout or venv) with an empty environment.
It reads `RUN_DIR/job.json` (code, entrypoint, payload, limits, required layers, the run's cgroups), applies the kernel layers of
`_kernel.py` and `_confine.py`, installs the audit hook of `_hook.py`, then calls the function. Everything it
reports goes to fd 3 as JSON lines: one `layers` line (with why each missing layer is missing) before the
untrusted code runs, a `violation` line per blocked operation (written the moment it happens, so later code
cannot take it back), and one final `result` or `error` line. If a required layer is missing it reports
`isolation_missing` and never runs the code. Where the job lets the code ask the host, the code's namespace holds
`ask_host(request)`: it writes `{"ask": request}` (an object of texts) on fd 3 and reads the host's answer from fd 4.
Standard library only.
"""

from __future__ import annotations

import _json
import _operator as operator  # the C half: `operator`'s own file cost 0.35 ms of CPU a call (index is the same)
import _signal
import _thread
import builtins
import gc
import marshal
import os
import posix
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing and collections.abc are too slow to import on every sandboxed call
    from collections.abc import Callable
    from typing import Any

RESULT_FD = 3
ANSWER_FD = 4  # the host's answers to `ask_host`, where the job allows asking (kept in step with the host)
MAX_ANSWER_BYTES = 8 * 2**20  # an answer line longer than any the host sends is not the host's
LOCAL_ZONE = "UTC"
EXIT_TAMPERED = 86  # the hook found fd 3 closed or replaced
EXIT_SETUP = 87  # isolation or the job file failed before any untrusted code ran
EXIT_INTERRUPTED = 85  # an exception escaped the bootstrap after the code ran (a signal handler's, a finalizer's)
CODE_FILENAME = "<sandboxed>"
CODE_MODULE = "__sandboxed__"  # the code's module name (in sys.modules while it runs)
PRELUDE_FILENAME = "<setup>"  # a caller's setup code (validate's probes patch random and the clock with it)
PRELUDE_NAME = "setup.bin"  # its byte code, compiled and written by the host (kept in step with the host)
SETUP_FAILED = "the setup failed before the code ran: "  # kept in step with coworkenv.validate.python_probes
SWITCHED_OFF = "switched off by the caller"  # kept in step with the host, which does not warn about these
# The audit hook's policy. These globals stay reachable through sys.modules["__main__"]; the hook keeps frozen
# copies, so changing them afterwards changes nothing.
# Modules whose mere import hands out raw memory, process or interpreter-internals access. The pure-Python
# `multiprocessing` package is not one: `import multiprocessing` (for `cpu_count()`, the answer os.cpu_count gives)
# was forbidden in every set with the hook and answered with the kernel layers alone; what it starts processes or
# shares memory with stays refused where it lies (`_multiprocessing`'s semaphores, `_posixshmem`, `_posixsubprocess`,
# `ctypes`, the `os.fork` event, seccomp's fork and exec). Nor is `subprocess`, which asyncio (and so `unittest.mock`)
# imports for its constants: `import asyncio` was forbidden in every set with the hook; its `Popen` is refused before
# it makes a pipe (`NATIVE_STAND_INS`, `popen_refused_first`).
BLOCKED_MODULES = frozenset({
    "ctypes", "_ctypes", "_posixsubprocess", "_multiprocessing", "pty",
    "_xxsubinterpreters", "_testcapi", "_testinternalcapi", "_testbuffer", "_testmultiphase", "_ctypes_test",
    "_xxtestfuzz", "cffi", "_cffi_backend", "_tkinter", "_posixshmem", "_curses", "_curses_panel",
})
# Any module (or part of a dotted name) starting so: the interpreter's test and example modules (_testcapi,
# _testinternalcapi, _xxsubinterpreters, _xxinterpchannels...), which make subinterpreters without this audit
# hook, read raw memory or crash on purpose. No check needs one.
BLOCKED_MODULE_PREFIXES = ("_test", "_xx")
# Modules that read or write files natively, out of the hook's sight (sqlite's ATTACH and VACUUM INTO, NSS reading
# /etc/passwd, OpenSSL loading certificate files, syslog's LOG_CONS writing the host's /dev/console, nis reading
# /etc/netconfig and /var/yp/binding/<the code's domain>.2, `..` included): refused too where Landlock does not
# confine what they touch.
NATIVE_FILE_MODULES = frozenset({"_sqlite3", "sqlite3", "spwd", "syslog", "nis"})
# Of those, the ones the standard library imports optionally (catching ImportError): absent instead, as on a Python
# built without them, so that the module importing them still works; a code that removes the mark and imports one
# meets the hook at its file (pwd is built in: the C library's name services, pointed at no service, are its
# boundary, as they were for `_imp.create_builtin`, which makes it with no audit event). libuuid's time UUIDs
# (uuid.uuid1) opened /var/lib/libuuid/clock.txt read-write natively: the host's clock sequence and last time read,
# the file rewritten (a host file changed, a channel between runs); `import uuid` and uuid4 stay as they were (uuid1
# asks ifconfig instead, which the hook refuses). Refused by name, pwd and grp made `import tarfile`,
# `os.path.expanduser` and `http.server` fail, ssl `http.client`, `urllib.request`, `xmlrpc.client`, `smtplib` and
# `ftplib`: harmless calls refused on such a host only (its lookups find nothing, and TLS is out of reach, either way).
ABSENT_WITHOUT_LANDLOCK = frozenset({"_uuid", "pwd", "grp", "ssl", "_ssl"})
# Refused in every set, and imported optionally by the standard library: absent, their files refused. dbm.open falls
# back to dbm.dumb (Python files in the scratch) where neither gdbm nor ndbm is built; pdb, cmd and code go without
# line editing (readline reads the host's inputrc natively). The C unpickler reads a bytes opcode's payload by handing
# the file's `readinto` a memoryview of the new object's storage with no owner: a `readinto` of the code's own kept it,
# and once the object was dropped the view read and wrote whatever took the freed block next (a bytearray's header: all
# memory, no audit event; forty-third round); `pickle` falls back to its pure-Python unpickler, which reads into
# buffers it owns. The C futures and tasks (`_asyncio`, CPython 3.11) call the code's own loop, `__eq__` and
# `__getattribute__` while they hold their callbacks by borrowed references (gh-125984, gh-125966, gh-126080,
# gh-126138, fixed in 3.12 and later only): a loop whose `call_soon` is a property removed the first done callback
# before it was passed on, and was handed the freed block, refilled as a bytearray header of the code's own (all memory,
# no audit event; forty-sixth round); asyncio falls back to its pure-Python futures and tasks, which copy what they call.
# The C ElementTree (`_elementtree`) compares an element's children by borrowed references in `remove` (gh-126033, fixed
# in 3.12 and later only): a value whose type subclasses the child's asked first, cleared the parent and answered
# NotImplemented, and the child's own `__eq__` was asked with the freed child as `self`, refilled as a forged bytearray
# header (all memory; forty-sixth round; with `clear()` the next read of the children's table was a NULL read, the
# forty-fourth round's crash); `xml.etree.ElementTree` falls back to its pure-Python elements and tree builder.
# The C zoneinfo (`_zoneinfo`) checks a transition's index into the zone's table of offsets with `>` where `>=` is
# meant, and trusts whatever `zoneinfo._common.load_data` (a module attribute the code may replace) hands it: a TZif
# file of the code's own whose transitions named the record one past the table kept a pointer to the 32 bytes after
# its block, a bytearray buffer of the code's own, and `utcoffset` handed out a forged bytearray header (all memory;
# fifty-second round); `zoneinfo` falls back to its pure-Python zones, which index lists that check.
# The C decimal (`_decimal`) takes the current context from its context variable by a borrowed reference and reads and
# writes it as a C context without looking at its type: the variable, listed by `contextvars.copy_context()`, set to a
# bytes object of the code's own had C write a division's flags into it (a bytearray's start pointer: SIGSEGV), and a
# new context set from a key's `__eq__` inside `Decimal.__format__` freed the one C went on reading (rounded by a
# bytes object of the code's own that took its block; seventy-eighth round); `decimal` falls back to `_pydecimal`,
# whose contexts are Python objects it looks up anew.
ABSENT_MODULES = frozenset({"_dbm", "_gdbm", "readline", "_pickle", "_asyncio", "_elementtree", "_zoneinfo",
                            "_decimal"})
# Attributes set on standard-library modules when they are imported (a tuple becomes a fresh list), so that a harmless
# call takes the way the sandbox allows in every set, instead of a refusal on one host and an answer on another:
# - mimetypes picks host configuration files by their existence (`os.path.isfile`, no audit event) and reads them:
#   /etc/mime.types was refused where there is no minimal root (`guess_type` forbidden), while the minimal root holds
#   none; it reads none now, the standard library's own tables in every set;
# - uuid finds the machine's MAC address by running `ip` and `ifconfig` where libuuid is absent (the sets without
#   Landlock): `uuid1` and `getnode` were forbidden there (importing subprocess); a random node, as libuuid gives
#   without a socket, in every set;
# - shutil.rmtree removes entries relative to a directory descriptor, which the hook refuses (it cannot tell where a
#   descriptor points): removing a scratch folder with files in it was forbidden in every set with the hook; by path.
# - socket.gethostname (audited, refused by the hook; ENOSYS where seccomp refuses uname) and socket.getfqdn, which
#   email.utils.make_msgid, smtplib and http.server ask: `make_msgid()` was forbidden in every set with the hook. The
#   sandbox's neutral node name, as os.uname() and platform.node() answer, and getfqdn looks nothing up (the sandbox
#   has no network: the name it is given, as a failed lookup answers);
# - platform runs `file` (architecture) and `uname -p` (processor, which platform.platform() and uname() unpack) and
#   reads /etc/os-release (freedesktop_os_release): forbidden (importing subprocess, reading a host file) or a
#   PermissionError, depending on the set; the answers of a machine without those commands or that file.
def sandbox_hostname() -> str:
    """socket.gethostname in the sandbox: its neutral node name (the host's is refused)."""
    return SANDBOX_NODENAME


def sandbox_fqdn(name: str = "") -> str:
    """socket.getfqdn in the sandbox, which has no name service: `name`, or the node name for none or any address."""
    name = name.strip()
    return SANDBOX_NODENAME if not name or name in ("0.0.0.0", "::") else name


def no_command_output(target: str, default: str = "") -> str:
    """platform._syscmd_file where no command may run: `default`, as where `file` is missing."""
    return default


class NoProcessorCommand:
    """platform._Processor where `uname -p` may not run: no processor name, as where the command is missing."""

    @classmethod
    def get(cls) -> str:
        return ""


class Derived:
    """A module setting made from the attribute the module defined itself (`make(original)`: a subclass of its class)."""

    def __init__(self, make: Callable[[Any], Any]) -> None:
        self.make = make


# asyncio's selector event loop makes a self-pipe, a socket pair (refused: seccomp refuses socketpair, the hook every
# socket object), which only another thread's `call_soon_threadsafe` and a signal's wake-up write to: `asyncio.run` of
# any coroutine raised PermissionError with the kernel layers alone (after the refused `import subprocess` in the
# other sets). A pipe or an eventfd would do, and both are refused too (the machine's inode counter, the boot time).
# The loop here has none: such a wake-up is a no-op, and the loop waits at most WAKE_SECONDS in its selector, so a
# callback another thread or a signal handler schedules still runs; `add_signal_handler` raises RuntimeError, as
# where the wake-up descriptor cannot be set.
WAKE_SECONDS = 0.1


class NoWakeup:
    """The write end of asyncio's self-pipe where none can be made: writes go nowhere, it has no descriptor."""

    def send(self, data: bytes) -> int:
        return len(data)

    def fileno(self) -> int:
        raise OSError(38, "the sandbox gives asyncio's event loop no self-pipe (sockets and pipes are refused)")

    def close(self) -> None:
        pass


class BoundedWait:
    """A selector whose `select` waits at most WAKE_SECONDS (nothing can wake it earlier); the rest is `selector`'s."""

    def __init__(self, selector: Any) -> None:
        self.selector = selector

    def select(self, timeout: float | None = None) -> Any:
        return self.selector.select(WAKE_SECONDS if timeout is None or timeout > WAKE_SECONDS else timeout)

    def __getattr__(self, name: str) -> Any:  # register, modify, unregister, get_key, get_map, close
        return getattr(object.__getattribute__(self, "selector"), name)


def loop_without_self_pipe(base: type) -> type:
    """asyncio's BaseSelectorEventLoop without its self-pipe (`base`: the real class; the Unix loop derives from this)."""

    class BaseSelectorEventLoop(base):  # type: ignore[valid-type,misc]
        __doc__ = base.__doc__

        def _make_self_pipe(self) -> None:
            self._ssock: Any = None
            self._csock: Any = NoWakeup()
            self._selector: Any = BoundedWait(getattr(self, "_selector"))  # noqa: B009  # the real loop's, set before

        def _close_self_pipe(self) -> None:
            self._csock = None

        async def shutdown_default_executor(self) -> None:
            # asyncio.run's last step joins the default executor from a thread of its own; where the executor ran its
            # work in this thread (`executor_run_inline`), it is shut down here, as no thread can start.
            executor = getattr(self, "_default_executor", None)
            if executor is not None and not executor._threads:
                self._executor_shutdown_called = True
                executor.shutdown(wait=True)
                return
            await super().shutdown_default_executor()

    BaseSelectorEventLoop.__module__ = base.__module__
    return BaseSelectorEventLoop


def executor_run_inline(base: type) -> type:
    """concurrent.futures' ThreadPoolExecutor that runs a submitted call in the submitting thread, its future done on
    return, where no worker thread could start (`max_threads` 0, or a child that keeps root without a pids cgroup,
    where nothing counts the run's tasks), so `submit`, `map` and asyncio's `to_thread`/`run_in_executor` raised RuntimeError ("can't start
    new thread") in every set. Calls that wait on one another (a consumer submitted before its producer) wait for the
    run's wall clock instead. A pool that asks for more workers than the run's `max_threads` lets start works with
    the workers it got (the queued call waits for one of them)."""

    class ThreadPoolExecutor(base):  # type: ignore[valid-type,misc]
        __doc__ = base.__doc__

        def _adjust_thread_count(self) -> None:
            try:
                super()._adjust_thread_count()
            except RuntimeError:
                if not self._threads:  # no worker at all: submit runs the call itself
                    raise

        def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
            try:
                return super().submit(fn, *args, **kwargs)
            except RuntimeError:
                if self._threads:  # a worker started before: this is another failure
                    raise
                try:
                    item = self._work_queue.get_nowait()  # the one submit queued before the thread failed to start
                except Exception:
                    item = None
                if item is None:  # nothing was queued (shut down): submit's own refusal
                    raise
            item.run()
            return item.future

    ThreadPoolExecutor.__module__ = base.__module__
    return ThreadPoolExecutor


def popen_refused_first(base: type) -> type:
    """subprocess.Popen refused (the hook's `subprocess.Popen` event, reported) before it makes the pipes it was asked
    for: seccomp refuses a pipe unreported, a PermissionError that told nothing of a process start."""

    class Popen(base):  # type: ignore[valid-type,misc]
        __doc__ = base.__doc__

        def __init__(self, args: Any, *rest: Any, **kwargs: Any) -> None:
            sys.audit("subprocess.Popen", kwargs.get("executable"), args, kwargs.get("cwd"), kwargs.get("env"))
            super().__init__(args, *rest, **kwargs)

    Popen.__module__ = base.__module__
    return Popen


def refused_native_curses(name: str) -> Any:
    """curses' attributes that come from `_curses` (initscr's helpers, constants): importing it, which the hook refuses."""
    if name.startswith("__"):
        raise AttributeError(name)
    import _curses  # noqa: F401  # refused and reported
    raise AttributeError(name)  # unreachable where the hook refuses it


MODULE_SETTINGS: dict[str, dict[str, Any]] = {
    "mimetypes": {"knownfiles": ()}, "uuid": {"_GETTERS": ()}, "shutil": {"_use_fd_functions": False},
    "socket": {"gethostname": sandbox_hostname, "getfqdn": sandbox_fqdn},
    "platform": {"_syscmd_file": no_command_output, "_Processor": NoProcessorCommand, "_os_release_candidates": ()},
    "asyncio.selector_events": {"BaseSelectorEventLoop": Derived(loop_without_self_pipe)},
    "subprocess": {"Popen": Derived(popen_refused_first)},
    "concurrent.futures.thread": {"ThreadPoolExecutor": Derived(executor_run_inline)},
}
# Pure-Python modules that import a native module the hook refuses by name, at their top, for functions they call
# later: `import subprocess` needs `_posixsubprocess.fork_exec`, `import curses` (and so `curses.ascii`, character
# classes only) `_curses`. Where the hook runs, a stand-in of the native module is in `sys.modules` only while the
# module imports, and each of its functions imports the real one when called (refused and reported, as the import
# was); with the hook off the real one loads, as before. curses' other attributes (`newwin`, `KEY_UP`...) import
# `_curses` too where the hook runs.
NATIVE_STAND_INS: dict[str, tuple[str, tuple[str, ...]]] = {
    "subprocess": ("_posixsubprocess", ("fork_exec",)), "curses": ("_curses", ("has_key",)),
}
HOOKED_MODULE_SETTINGS: dict[str, dict[str, Any]] = {"curses": {"__getattr__": refused_native_curses}}
# Where the hook runs, `_io`'s buffered types take no subclass (a subclass's own `__new__` went around the gate that
# keeps their buffer from raw streams of the code's own: `_confine.seal_buffered_io`, forty-third round), and tarfile
# defines one at import (`ExFileObject`, over a raw stream of its own): `import tarfile` raised TypeError. The modules
# that do see an `io` whose buffered types are `_pyio`'s, pure Python, while they run (everything else is `io`'s own).
PURE_BUFFERED_IMPORTERS = ("tarfile",)


def pure_buffered_io(buffered: tuple[str, ...] = ("BufferedReader", "BufferedWriter", "BufferedRandom",
                                                  "BufferedRWPair")) -> Any:
    """`io`, but for its buffered types, which are `_pyio`'s (imported when first asked for)."""
    module, io = type(sys)("io"), sys.modules["io"]

    def __getattr__(name: str) -> Any:
        return getattr(__import__("_pyio") if name in buffered else io, name)

    module.__getattr__ = __getattr__  # type: ignore[method-assign]
    return module


def native_file_access_confined(layers: list[str]) -> bool:
    """Whether the files C code opens natively (NATIVE_FILE_MODULES', ABSENT_WITHOUT_LANDLOCK's) are confined by the
    kernel: by Landlock, or by the minimal root mounted read-only, where no host file but the standard library's,
    its libraries' and a few system files' exists and only the scratch is writable. A host that is root on a kernel
    without Landlock has the latter: sqlite3 was refused there, and `pwd`, `grp`, `ssl` and `_uuid` absent, while
    the full set answered."""
    return "landlock" in layers or {"min-root", "ro-root"} <= set(layers)


def source_over_scratch_bytecode(get_data: Callable[[Any, str], bytes], scratch_prefix: str) -> Callable[[Any, str], bytes]:
    """SourceFileLoader.get_data that finds no `.pyc` in the scratch (FileNotFoundError, as where none was written),
    so that the import system compiles the code's own module from its source, as it does with `-B` and no cache:
    `py_compile.compile` (a syntax check) then `import` of the module was forbidden in every set with the hook (the
    hook loads bytecode only from the standard library's `.pyc` files). A `.pyc` without source stays refused."""
    join, absolute = os.path.join, os.path.abspath

    def source_first(self: Any, path: str) -> bytes:
        if type(path) is str and path.endswith(".pyc") and absolute(join(scratch_prefix, path)).startswith(scratch_prefix):
            raise FileNotFoundError(2, "the sandbox imports the code's own modules from their source", path)
        return get_data(self, path)

    return source_first


def refused_native_module(name: str, functions: tuple[str, ...]) -> Any:
    """A stand-in for the refused native module `name`: each of `functions` imports the real one (refused)."""
    module = type(sys)(name)

    def refused(*args: Any, **kwargs: Any) -> Any:
        __import__(name)  # refused and reported by the hook
        raise PermissionError(f"sandbox: importing {name} is not allowed")  # unreachable where the hook refuses it

    for function in functions:
        setattr(module, function, refused)
    return module
# zoneinfo's search path: the zoneinfo read roots only (the interpreter's own adds /etc/zoneinfo, which
# `available_timezones` lists where the host has it: a refused read there, nothing in the minimal root).
ZONEINFO_ROOTS = ("/usr/share/zoneinfo", "/usr/lib/zoneinfo", "/usr/share/lib/zoneinfo")
BLOCKED_EVENTS = frozenset({
    "os.system", "os.fork", "os.forkpty", "os.posix_spawn", "os.startfile", "os.killpg",
    "os.chdir", "os.chroot", "os.mkfifo", "os.mknod", "os.setxattr", "os.removexattr",
    "signal.pthread_kill", "subprocess.Popen", "sys._current_frames",
    "sys._current_exceptions", "gc.get_objects", "gc.get_referrers", "gc.get_referents", "code.__new__",
    "function.__new__", "resource.setrlimit", "resource.prlimit", "sqlite3.enable_load_extension",
    "sqlite3.load_extension", "urllib.Request", "http.client.connect", "smtplib.connect", "ftplib.connect",
    "imaplib.open", "poplib.connect", "nntplib.connect", "telnetlib.Telnet.open", "webbrowser.open",
    "sys.addaudithook", "marshal.load",
})
# Environment variables that steer what C libraries in this process load (OPENSSL_CONF activates a "provider" .so
# from anywhere, GCONV_PATH loads iconv modules...): glibc's own list of variables unsafe for setuid programs, and
# OpenSSL's. The code may set other variables (TZ for time.tzset, its own flags), never these.
NATIVE_ENV_PREFIXES = ("LD_", "GCONV_", "GETCONF_", "GLIBC_", "HOSTALIASES", "LOCALDOMAIN", "LOCPATH", "MALLOC_",
                       "NIS_", "NLSPATH", "RESOLV_", "RES_", "TZDIR", "OPENSSL", "SSL_CERT_", "LANGUAGE")
# gettext's language list, which the C library reads before any locale's name: "C" stops every catalog lookup. Its
# catalogs are `<folder>/<language>/<category>/<domain>.mo` for a folder and domain the code binds
# (`locale.bindtextdomain`, `dcgettext`: no audit event), looked up wherever a category's locale is not "C" (LC_CTYPE
# is C.UTF-8 from the interpreter's start): where Landlock was missing, any host `*.mo` file was read and answered.
GETTEXT_LANGUAGES = "C"
BLOCKED_PREFIXES = ("socket.", "ctypes.", "os.exec", "os.spawn", "os.posix_spawn", "_winapi.", "winreg.",
                    "msvcrt.", "pty.")
# Events that modify the file system: (indices of path arguments, indices of dir_fd arguments).
WRITE_EVENTS: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {
    "os.remove": ((0,), (1,)), "os.rmdir": ((0,), (1,)), "os.mkdir": ((0,), (2,)), "os.chmod": ((0,), (2,)),
    "os.chown": ((0,), (3,)), "os.utime": ((0,), (3,)), "os.truncate": ((0,), ()), "os.rename": ((0, 1), (2, 3)),
    "os.chflags": ((0,), ()), "os.lchflags": ((0,), ()), "sqlite3.connect": ((0,), ()),
}
# Events that read a path's contents (0) or list it (2); extended attributes are file data that no open() reads.
READ_EVENTS = {"os.listdir": 2, "os.scandir": 2, "os.getxattr": 0, "os.listxattr": 0}
# fcntl commands that make another process the owner of a descriptor's SIGIO (F_SETOWN, F_SETSIG, F_SETOWN_EX:
# the kernel would then signal it on the code's behalf), that watch a folder (F_NOTIFY) or lease a file
# (F_SETLEASE: its other writers wait), that read or set write-lifetime hints kept on host inodes (F_*_RW_HINT: a
# channel between runs), socket ioctls (0x8900-0x8BFF: SIOCGIFCONF... answer on the result channel's socket,
# which lives in the host's network namespace) and the file-system identity ioctls (FS_IOC_GETFSUUID,
# FS_IOC_GETFSSYSFSPATH: the host disk's UUID, its block device's name; seccomp refuses their whole type byte), and
# the lock probes (F_GETLK, F_OFD_GETLK: a lock a host process holds on a file the code can read answered with the
# holder's pid; no run holds a lock for another to probe, setting one returns without running, so they can tell
# nothing else; seccomp lets them run, as C code such as sqlite needs their answer).
BLOCKED_COMMANDS = {"fcntl.fcntl": (5, 36, 8, 10, 15, 1024, 1026, 1035, 1036, 1037, 1038),
                    "fcntl.ioctl": (*range(0x8900, 0x8C00), 0x80111500, 0x80811501)}
# Never /etc/localtime: the host's time zone is its configuration (where it stands), and a check's local time must not
# depend on the machine it runs on. The code's local time is UTC (LOCAL_ZONE).
# glibc's C.UTF-8 locale (the locale the interpreter itself starts in, LC_CTYPE): `locale.setlocale(LC_ALL,
# "C.UTF-8")` read its files natively where Landlock is missing and failed in every other set ("unsupported locale
# setting"); readable now wherever the host has it (the folder's name in glibc 2.35+ and the distributions before).
LOCALE_ROOTS = ("/usr/lib/locale/C.utf8", "/usr/lib/locale/C.UTF-8")
SYSTEM_READ_ROOTS = ("/dev/null", "/dev/zero", "/dev/urandom", *ZONEINFO_ROOTS, *LOCALE_ROOTS)
# Shared libraries that extension modules link against (libz, libffi, libssl...): readable, never listable, and
# only by the dynamic loader in practice (the audit hook refuses Python-level reads there). The multiarch and
# lib64 folders only, never /usr/lib itself, whose other files (os-release, ...) are host data.
_ARCH = getattr(sys.implementation, "_multiarch", "")
LIBRARY_ROOTS = ("/etc/ld.so.cache", f"/lib/{_ARCH}", f"/usr/lib/{_ARCH}", "/lib64", "/usr/lib64")

def write_all(data: bytes, write: Callable[[int, Any], int] = posix.write, view_t: type = memoryview) -> None:
    """Write one frame to the result channel (a pipe may take it in pieces)."""
    view = view_t(data)
    while view:
        view = view[write(RESULT_FD, view):]


def make_asker(
    read: Callable[[int, int], bytes] = posix.read, write: Callable[[bytes], None] = write_all,
    type_: Any = type, str_: type = str, dict_: type = dict, runtime_error: type = RuntimeError,
    type_error: type = TypeError, decode: Callable[[bytes, str, str], str] = bytes.decode,
) -> Callable[[dict[str, str]], str]:
    """`ask_host(request)`: the host's answer to `request` (an object of texts), or RuntimeError saying why the host
    refused. Builtins are bound as defaults, as in `describe`: the code may rewrite them before it asks."""
    # Text as UTF-8, not \uXXXX escapes: Chinese would take six bytes a character on the channel, not three.
    encode = _json.make_encoder(  # type: ignore[attr-defined]
        {}, _refuse, _json.encode_basestring, None, ":", ",", False, False, False)
    scan, join = _scan, "".join

    def ask_host(request: dict[str, str]) -> str:
        if type_(request) is not dict_ or not all(
                type_(k) is str_ and type_(v) is str_ for k, v in dict_.items(request)):
            raise type_error("ask_host takes one dict of texts ({name: text, ...})")
        write(('{"ask":' + join(encode(request, 0)) + "}\n").encode())
        data = b""
        while not data.endswith(b"\n"):
            chunk = read(ANSWER_FD, 65536)
            if not chunk or len(data) + len(chunk) > MAX_ANSWER_BYTES:
                raise runtime_error("the host's answer channel closed or overflowed")
            data += chunk
        reply, _ = scan(decode(data, "utf-8", "replace"), 0)
        if type_(reply) is dict_ and type_(reply.get("answer")) is str_:
            return reply["answer"]
        raise runtime_error("the host refused: " + str_(reply.get("refused") if type_(reply) is dict_ else reply))

    return ask_host


def _refuse(obj: Any) -> None:
    raise TypeError(f"{type(obj).__name__} is not JSON-serialisable")


# The C halves of the json package: importing json itself would pull in re and enum, doubling startup time.
_encode = _json.make_encoder(  # type: ignore[attr-defined]
    {}, _refuse, _json.encode_basestring_ascii, None, ":", ",", False, False, False)


class _DecodeContext:
    strict, object_hook, object_pairs_hook, memo = True, None, None, None
    parse_float, parse_int = float, int

    @staticmethod
    def parse_constant(name: str) -> None:
        raise ValueError(f"{name} is not JSON")


_scan = _json.make_scanner(_DecodeContext())  # type: ignore[attr-defined,arg-type]


def frame(obj: dict[str, Any], encode: Any = _encode) -> bytes:
    """One JSON line of the result channel (for the bootstrap's own reports)."""
    return ("".join(encode(obj, 0)) + "\n").encode()


def load_job(path: str) -> dict[str, Any]:
    """The job file written by the host: code, entrypoint, payload, limits, disabled layers."""
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    job, end = _scan(text, 0)
    if end != len(text) or not isinstance(job, dict):
        raise ValueError(f"{path} is not one JSON object")
    return job


def make_value_encoder() -> Callable[[Any], bytes]:
    """A result-frame encoder built from the C JSON encoder, immune to later patches of the json module."""
    encode = _json.make_encoder(  # type: ignore[attr-defined]
        {}, _refuse, _json.encode_basestring_ascii, None, ":", ",", False, False, False)
    join, to_bytes = "".join, str.encode

    def result_frame(value: Any) -> bytes:
        return to_bytes('{"result":' + join(encode(value, 0)) + "}\n")

    return result_frame


def describe(exc: BaseException, type_: Any = type, base: Any = BaseException, filename: str = CODE_FILENAME) -> str:
    """`Type: message (line N)` for an exception raised by the untrusted code, never failing itself. Builtins
    and globals are bound as defaults: the code may have rewritten them by the time it is called."""
    try:
        text = f"{type_(exc).__name__}: {exc}"
    except base:  # a hostile __str__
        text = type_(exc).__name__
    line, tb = None, exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return (text[:480] + (f" (line {line})" if line else "")).strip()


def close_host_descriptors(first: int) -> None:
    """Close every descriptor from `first` up, whatever its number: nothing else of the host's may stay open here,
    and a host may hold inheritable ones far above any fixed bound (container runtimes allow 2**20 of them)."""
    try:  # the host's /proc still: the mount namespace comes later
        last = max(int(name) for name in os.listdir("/proc/self/fd"))
    except (OSError, ValueError):
        last = os.sysconf("SC_OPEN_MAX")
    os.closerange(first, last + 1)


def load_siblings(run_dir: str) -> dict[str, dict[str, Any]]:
    """Execute the sibling modules the host compiled into `RUN_DIR/boot.bin` (the child must not import the
    `coworkenv` package, and compiling them here on every call would double its start-up time)."""
    with open(os.path.join(run_dir, "boot.bin"), "rb") as fh:
        codes = marshal.loads(fh.read())
    modules = {}
    for name, code in codes.items():
        modules[name] = {"__name__": name}
        exec(code, modules[name])
    return modules


def load_prelude(run_dir: str) -> Any:
    """The caller's setup code the host compiled into `RUN_DIR/setup.bin` (the hook, not made yet, refuses
    `marshal.loads` of anything but a standard-library `.pyc`): a code object, or ValueError."""
    with open(os.path.join(run_dir, PRELUDE_NAME), "rb") as fh:
        code = marshal.loads(fh.read())
    if type(code) is not type(load_prelude.__code__):
        raise ValueError(f"{PRELUDE_NAME} holds no code object")
    return code


def isolate(
    run_dir: str, scratch: str, lib_dirs: list[str], limits: dict[str, Any], disabled: set[str],
    kernel: dict[str, Any], confine: dict[str, Any], cgroup: dict[str, Any], host_pid: int, last_channel: int,
    libc_paths: dict[str, Any] | None = None, sqlite_hooks: dict[str, Any] | None = None,
    early: dict[str, Any] | None = None, object_dicts: dict[str, Any] | None = None,
) -> tuple[list[str], dict[str, str]]:
    """Apply every kernel layer that this machine allows, joining the run's cgroups first (`cgroup["join"]`: each
    cgroup layer and the `cgroup.procs` file to join for it; `cgroup["missing"]`: why the host made none for the
    others; `host_pid`: the process this one dies with; `last_channel`: the host's descriptors are 0 to it); returns
    (layers applied, why each other layer is missing). `libc_paths`: where the host found the C library's own
    /proc and /sys texts in its copy of the library (taken where this one is the same build); `sqlite_hooks`: where
    it found the entries `seal_sqlite_hooks` rewrites in its mapping of `_sqlite3` (taken where the file is the same
    build and each entry checks out); `early`: where it holds the code's `source`, its code object compiled once the
    kernel layers are in place is stored there (`compile_early`), else nothing is; `object_dicts`: where it found the
    `__dict__` setters' definitions `seal_object_dicts` clears (taken where the library is the same build and each
    checks out)."""
    libc = kernel["load_libc"]()
    host_is_root = os.geteuid() == 0  # the host's uid, before any drop
    # Before anything is made: the host's mask made the minimal root's folders 0o710 under umask 0o027, which the
    # per-run uid could not cross (every call failed).
    kernel["reset_inherited_settings"](libc)
    layers: list[str] = []
    missing: dict[str, str] = dict(cgroup["missing"])
    # First: whatever the layers below allocate in the kernel counts against the run's memory cap too.
    for layer, procs in cgroup["join"].items():
        note(layers, missing, layer, kernel["join_cgroup"](procs))
    note(layers, missing, "oom-first", kernel["prefer_for_oom_kill"]())
    if "netns" in disabled:
        missing["netns"] = SWITCHED_OFF
    else:
        net, why = kernel["isolate_network"](libc)
        layers += net
        missing.update({"netns": why} if why else {})
    if "timens" in disabled:
        missing["timens"] = SWITCHED_OFF
    else:  # after the network layer, whose user namespace (on a host without root) gives the privilege
        note(layers, missing, "timens", kernel["isolate_clocks"](libc))
    # The host made it at the spawn (`_pidns`): pid 2 of a namespace whose parent (the host) lies outside it.
    own_pid_namespace = os.getpid() == PID_IN_OWN_NAMESPACE and os.getppid() == 0
    if "pidns" in disabled:
        missing["pidns"] = SWITCHED_OFF
    elif own_pid_namespace:
        layers.append("pidns")
    else:
        missing["pidns"] = ("the sandbox runs without root, which a pid namespace of the run's own needs"
                            if os.geteuid() != 0 else "the host made no pid namespace (its log says why)")
    uid, gid = kernel["pick_sandbox_ids"]()
    if "mountns" in disabled:
        missing.update(dict.fromkeys(("mountns", "min-root", "ro-root", "proc-hidden", "scratch-tmpfs"), SWITCHED_OFF))
    else:
        fs_layers, fs_missing = kernel["isolate_filesystem"](
            libc, run_dir, scratch, (*lib_dirs, *SYSTEM_READ_ROOTS, *library_roots()), limits["scratch_bytes"],
            uid, gid, hidden_package_folders(lib_dirs), user_namespace="userns" in layers)
        layers += fs_layers
        missing.update(fs_missing)
    os.chdir(scratch)  # for good: seccomp and the hook refuse any later chdir
    kernel["empty_bounding_set"](libc)  # the host's, which the uid drop would leave in place
    kernel["drop_supplementary_groups"]()  # the uid drop leaves them too; without it they were the code's
    if "uid" in disabled:
        missing["uid-drop"] = SWITCHED_OFF
    elif os.geteuid() != 0:
        missing["uid-drop"] = "the sandbox runs without root, which switching to a per-run uid needs"
    else:
        # A uid that cannot reach the stdlib (e.g. under a 0700 /root) or the scratch would break the run.
        why = kernel["unreachable_for_others"](lib_dirs, [run_dir])
        if why is None:
            if "scratch-tmpfs" not in layers:
                os.chown(scratch, uid, gid)
            kernel["drop_privileges"](uid, gid)
            layers.append("uid-drop")
        else:
            missing["uid-drop"] = why
    note(layers, missing, "caps-drop", kernel["drop_capabilities"](libc))
    note(layers, missing, "dies-with-host", confine["die_with_host"](libc, 0 if own_pid_namespace else host_pid))
    # The code's own threads (`max_threads`) start where the kernel counts the run's tasks alone: its pids cgroup, or
    # RLIMIT_NPROC for the per-run uid or in the run's own user namespace (the kernel counts a uid's tasks per
    # namespace). A host's own uid kept outside one (a host without root, no user namespace) counts the host user's
    # tasks and every concurrent run's with the run's: how many threads started told how many the others held (5 alone,
    # 2 beside a run holding 3: a channel, and the host user's task count). A child that kept root without a pids
    # cgroup has no count at all. There no thread starts (seccomp refuses the clone; thread pools run their calls
    # in the submitting thread); Python 3.11 audits no thread start, so the hook cannot count them either.
    tasks = limits["max_processes"] + limits.get("max_threads", 0)
    threads = limits["max_processes"] > 1 or (tasks > 1 and bool({"pids-cgroup", "uid-drop", "userns"} & set(layers)))
    kernel["apply_rlimits"](limits["cpu_seconds"], limits["memory_bytes"], limits["file_size_bytes"],
                            tasks, own_uid="uid-drop" in layers)
    layers.append("rlimits")
    note(layers, missing, "no-new-privs", confine["set_no_new_privs"](libc))
    confine["disable_name_services"](libc)  # defence in depth: Landlock keeps those files unreadable anyway
    if "landlock" in disabled:
        missing["landlock"] = SWITCHED_OFF
    else:
        note(layers, missing, "landlock", confine["restrict_paths"](
            libc, (*lib_dirs, *SYSTEM_READ_ROOTS), library_roots(), scratch, tcp="netns" in layers))
    # RLIMIT_CORE binds core files only: a core_pattern helper gets every crash. And where runs keep the host's uid
    # (no per-run uid; its drop made this process undumpable already), a concurrent run read this one's /proc/<pid>
    # links without Landlock (`os.readlink` of its cwd and descriptors, `os.stat` through them: no audit event),
    # which an undumpable process keeps to holders of CAP_SYS_PTRACE. A host without root keeps its children
    # dumpable (its scratch watch reads their /proc/<pid>/fd) only where another layer keeps other runs out of their
    # /proc/<pid>: Landlock's ptrace rule or the run's own empty /proc. Where neither is, the watch misses files
    # removed but held open (at most `file_size_bytes` each, on 64 descriptors), the smaller harm.
    if limits.get("core_helper") or host_is_root or not {"landlock", "proc-hidden"} & set(layers):
        kernel["make_undumpable"](libc)
    if "seccomp" in disabled:
        missing["seccomp"] = missing["libc-paths"] = SWITCHED_OFF
    else:
        # The C library's own /proc and /sys paths, by address (ENOENT to their opens): a rule of the seccomp filter,
        # reported as a layer of its own so that a library where they cannot be found says so.
        host_paths, why_paths = confine["c_library_host_paths"](libc, libc_paths)
        # Without a uid of its own the code owns the host's files: their modes and times stay out of reach too.
        why = confine["install_seccomp"](libc, "uid-drop" not in layers, threads=threads,
                                         last_channel=last_channel, host_paths=host_paths,
                                         memory_bytes=limits["memory_bytes"], devices=kernel["FRESH_DEVICES"],
                                         kept_devices=(os.stat(scratch).st_dev,))
        note(layers, missing, "seccomp", why)
        note(layers, missing, "libc-paths", why_paths if why is None else f"it is a seccomp rule: {why}")
    if early is not None and type(early.get("source")) is str and "ctypes" in sys.modules:
        compile_early(early, sys.modules["ctypes"])  # before seal_ctypes, which leaves no C call to make
    # Raw memory would let the code rewrite the hook; without the hook, native code is the kernel layers' business.
    # The buffered streams first: their seal calls the C library (seal_ctypes leaves no foreign function callable).
    # Each seal closes a way C code of CPython 3.11 hands the code raw memory (see each one in _confine).
    # What the host found once for every call (None: scan).
    seal_args = {"seal_sqlite_hooks": (sqlite_hooks,), "seal_object_dicts": (object_dicts,),
                 "seal_sqlite_factories": (native_file_access_confined(layers),),
                 "seal_sqlite_statement_cache": (native_file_access_confined(layers),)}
    for seal, what in (
            # First: the seals below hold `iter` among their tools, which must not be C's (its two-argument form).
            ("seal_iter", "iter(callable, sentinel) compares a sentinel the code's own code freed"),
            ("seal_buffered_io", "buffered streams hand raw memory to the code"),
            # array.array's stores convert a value before they write it (its `__index__` could move the buffer).
            ("seal_array", "array.array writes where the code's values moved its buffer"),
            # mmap.mmap's item store converts the value while the map is held (its `__index__` could shrink the map).
            ("seal_mmap", "mmap.mmap writes where the code's values shrank the map"),
            # A list's slice store converts the value before it works the slice out (its `__iter__` could shrink the list).
            ("seal_list", "a list's extended-slice store writes past the table the code's value shrank"),
            # A bytearray's stores convert key, bounds and value before C takes its pointer (an `__index__` could free it).
            ("seal_bytearray", "a bytearray's store writes, or its search reads, where the code's values freed its buffer"),
            # A memoryview's comparisons run on copies with the real struct.Struct (C lent the struct module's, the
            # code's own, a view of a block it freed after).
            ("seal_memoryview", "a memoryview comparison, hash, hex or store reaches memory the code's own code freed"),
            # A list's ordering comparisons hold the items they compare again (an item's reflected method freed one).
            ("seal_list_order", "a list's comparison hands the code an item it freed"),
            # A struct.Struct is initialised once (a second `__init__` freed the codes a pack still walked).
            ("seal_struct", "struct.Struct writes where a second initialisation moved its codes"),
            # itertools.tee's iterators take no state (an index set past what was read handed out unwritten slots).
            ("seal_tee", "itertools.tee hands out slots it never wrote"),
            # itertools.cycle neither hands out nor takes the list it indexes (one cut under its index handed out
            # a slot of the table past the list's items).
            ("seal_cycle", "itertools.cycle hands out a slot past its saved list"),
            # itertools.chain takes no state (`__setstate__` from inside the step of the iterator it was on freed that
            # iterator under its C step).
            ("seal_chain", "itertools.chain steps an iterator the code's own code freed"),
            # itertools.groupby answers iterators whose frames hold the keys they compare (a key's `__eq__` that
            # advanced the groupby freed the other key C compared).
            ("seal_groupby", "itertools.groupby hands the code a key it freed"),
            # itertools.accumulate answers iterators whose frames hold the total they add to (a value's reflected
            # `__radd__` that advanced the accumulate freed the total C went on adding to).
            ("seal_accumulate", "itertools.accumulate adds to a total the code's own code freed"),
            # itertools.islice and zip_longest answer generators whose frames hold the iterators they step (a source
            # whose `__next__` ended the same islice or zip_longest again was freed while C stepped or dropped it).
            ("seal_reentered_iterators", "itertools.islice or zip_longest steps a source the code's own code freed"),
            # itertools.count counts plain numbers only (a step's reflected `__radd__` that advanced the count freed
            # the count C went on adding to and returned).
            ("seal_count", "itertools.count adds to a count the code's own code freed"),
            # contextvars.Context compares copies of its mapping (a value's `__eq__` that set a variable freed the
            # nodes C walked).
            ("seal_context", "a context comparison walks nodes the code's own code freed"),
            # Cells and weak proxies compare contents and referents they hold (a reflected method that set the cell
            # anew or dropped the referent freed what C compared).
            ("seal_cell", "a cell comparison hands the code contents it freed"),
            ("seal_weak_proxy", "a weak proxy's comparison hands the code a referent it freed"),
            # A mapping proxy's comparisons and `|` hand the other operand a copy (C handed it a class's own dict,
            # whose changes skip the type's lookup cache: a method deleted there ran from its freed block).
            ("seal_mapping_proxy", "a mapping proxy hands the code a class's own dict"),
            # defaultdict's factory and a staticmethod's function are held while they run (set anew from inside their
            # own call, a C callable was freed under its C code).
            ("seal_held_callables", "a defaultdict factory or staticmethod runs on after its own code freed it"),
            # property's getter, setter and deleter are held while they run (`property.__init__` run again from
            # inside one set them anew: a C accessor was freed under its C code).
            ("seal_property", "a property's getter, setter or deleter runs on after its own code freed it"),
            # `__isabstractmethod__` of a property, classmethod or staticmethod holds what it looks the flag up on
            # (`__init__` run again from inside the lookup freed the object C went on handing to `__getattr__`).
            ("seal_abstract_flags", "an abstract-method flag is looked up on an object the code's own code freed"),
            # The codec registry calls the code's search functions from a list whose copy a frame holds (one that
            # unregistered itself from inside its own call was freed under its C code).
            ("seal_codec_registry", "a codec search function runs on after its own code unregistered it"),
            # C's table of signal handlers holds Python functions only, and C's setter stays out of the code's reach
            # (a C handler that set its signal's handler anew from inside its own call was freed under its C code).
            ("seal_signal_handlers", "a signal handler runs on after its own code replaced it"),
            # pyexpat's parsers call Python functions only, C's descriptors out of the code's reach (a C handler
            # that set itself anew from inside its own call was freed under its C code).
            ("seal_expat_handlers", "an expat handler runs on after its own code replaced it"),
            # cProfile's C profiler calls Python functions only as its timer, C's `__init__` out of the code's reach (a
            # C timer that ran `__init__` again on its profiler from inside its own call was freed under its C code).
            ("seal_profiler_timer", "a profiler's timer runs on after its own code replaced it"),
            # No code calls `sys.displayhook` from C: compile() makes no PRINT_EXPR, C's compile out of the code's
            # reach (a C hook that set the display hook anew from inside its own call was freed under its C code).
            ("seal_display_hook", "a display hook runs on after its own code replaced it"),
            # print, input, sys.displayhook and faulthandler hold the standard streams they use (an argument's
            # `__str__` or a stream's own `write` set the stream anew and freed it while C went on writing to it).
            ("seal_standard_streams", "print, input or the display hook writes to a stream the code's own code freed"),
            # A relative dotted `__import__` without a fromlist runs importlib's own (C's freed the parent's name before
            # it formatted it, with a key of the code's in `sys.modules` running code in between).
            ("seal_import", "__import__ formats a name it freed"),
            # The C OrderedDict's comparisons, repr, copy and pops keep no node across the code's own Python code,
            # and none is made: collections.OrderedDict is the pure-Python class (a dict-level store made C index
            # past its table of nodes).
            ("seal_ordered_dict", "OrderedDict walks nodes the code's own code freed or writes past its node table"),
            # deque.index compares items it holds itself (a value's reflected `__eq__` freed the item C compared).
            ("seal_deque", "deque.index hands the code an item it freed"),
            # Counter counts in Python, holding each count it adds to (a count's own `__add__` freed the count C added one to).
            ("seal_count_elements", "collections.Counter adds one to a count the code's own code freed"),
            # A partial holds what it calls and prints (a callee's `__setstate__` freed the arguments C still passed).
            ("seal_partial", "functools.partial calls with arguments the code's own code freed"),
            # A comparison key's object is read-only (a reflected method set it anew while C compared it).
            ("seal_key_wrapper", "a comparison key hands the code an object it freed"),
            # A text wrapper's newline decoder is held while the codec's decoder (the code's own) runs.
            ("seal_newline_decoder", "a text wrapper's newline decoder is freed while it decodes"),
            # The CJK codecs' C objects and errors names are never freed while their C methods run the code's code.
            ("seal_multibytecodec", "a CJK codec's C object is freed while it decodes or encodes"),
            # sqlite's connections make no authorizer, progress or trace record a hook of the code's could free, and
            # a backup calls no progress callback that could free its destination.
            ("seal_sqlite_hooks", "a sqlite hook or backup progress callback frees what sqlite runs"),
            # sqlite's factories are Python functions only, C's members out of the code's reach (a C factory that set
            # itself anew from inside its own call was freed under its C code); after seal_sqlite_hooks, which must
            # change `_sqlite3`'s method table before this loads it.
            ("seal_sqlite_factories", "a sqlite factory runs on after its own code replaced it"),
            # sqlite's statement caches are Python functions holding C's cache while it runs, made by a function of
            # the bootstrap's, not `functools.lru_cache` (a `close()` or `__init__` from the cache's own key hash freed
            # it under its C code); after seal_sqlite_factories, which loads `_sqlite3`.
            ("seal_sqlite_statement_cache", "a sqlite statement cache runs on after its own code freed it"),
            # csv.reader steps its input through a generator of the bootstrap's (a row asked from inside the input's
            # own `__next__` had C append to the fields list the inner row took: a NULL).
            ("seal_csv_reader", "csv.reader appends to a list its own input's code took"),
            # No object's `__dict__` is replaced or deleted (an attribute store went on inserting into the dict the
            # code's own `__hash__` or `__eq__` freed that way).
            ("seal_object_dicts", "an attribute store inserts into a dict the code's own code freed"),
            ("seal_ctypes", "ctypes stays usable, which rewrites the hook's memory")):
        failed = None if "hook" in disabled else confine[seal](*seal_args.get(seal, ()))
        if failed is not None:
            missing["audit-hook"] = f"{what} ({failed})"
    for name in [m for m in sys.modules if m == "ctypes" or m.startswith(("ctypes.", "_ctypes"))]:
        del sys.modules[name]  # so a later `import ctypes` goes through the import hook again
    SETUP_COMPILE[:] = [builtins.compile]  # the seal's gate where the hook is in place (C's own is in its box)
    return layers, missing


# The code's compile, made without `compile()`'s one-off cost. CPython 3.11's `compile()` asks whether its argument is an
# AST object, and answering that builds the `_ast` module's ~120 node types the first time in a process: 1.0-1.5 ms of
# CPU of every run, for a check whose code needs none of them (the parse and the code object take ~0.05 ms for a
# small check). The C function behind `compile()` (`Py_CompileStringObject`, with the flags `compile(source,
# filename, "exec", dont_inherit=True)` passes it: the source is UTF-8 text, its coding cookie ignored, this
# Python's grammar) asks nothing of the kind; ctypes calls it here, once the kernel layers are in place and before
# seal_ctypes. The code object is the same one `compile()` makes (tests/test_sandbox_startup.py), and it is used
# only where `compile()` at the code's turn would have made it too (`early_compiled`): this call runs deeper in
# the stack and with the layers' modules still in memory, so a code that compiles here compiles there (the
# compiler's depth limit counts from the caller's depth); it raises with every warning an error, so a code that
# compiles here warns of nothing there either; and anything that fails here (a syntax error, a NUL, a lone
# surrogate, the memory or depth limit) leaves the code to `compile()` at its turn, as before.
EARLY_COMPILE_FLAGS = 0x0100 | 0x0800  # PyCF_SOURCE_IS_UTF8 | PyCF_IGNORE_COOKIE, what compile() sets for a str
FILE_INPUT = 257  # Py_file_input: "exec"


def compile_early(early: dict[str, Any], ctypes: Any) -> None:
    """Compile `early["source"]` with the C function `compile()` calls (see above) and store the code object as
    `early["code"]`, with the recursion limit it was made under; where anything fails, store nothing."""
    source = early.pop("source")
    if "\x00" in source:  # the C function takes a NUL-terminated text: compile() refuses it instead
        return
    import _warnings  # built in, loaded at start-up

    # The filters every warning consults: the `warnings` module's where it is loaded, else the interpreter's own.
    filters = getattr(sys.modules["warnings"], "filters", None) if "warnings" in sys.modules else _warnings.filters
    if type(filters) is not list:
        return
    saved = list(filters)
    filters.insert(0, ("error", None, Warning, None, 0))
    try:
        text = source.encode("utf-8")
        function = ctypes.pythonapi.Py_CompileStringObject
        function.restype = ctypes.py_object
        function.argtypes = (ctypes.c_char_p, ctypes.py_object, ctypes.c_int, ctypes.c_void_p, ctypes.c_int)
        flags = ctypes.c_int64(EARLY_COMPILE_FLAGS | sys.version_info.minor << 32 if sys.byteorder == "little"
                               else EARLY_COMPILE_FLAGS << 32 | sys.version_info.minor)  # PyCompilerFlags, two ints
        code = function(text, CODE_FILENAME, FILE_INPUT, ctypes.addressof(flags), -1)
    except Exception:  # compile() at the code's turn raises it again, as before
        return
    finally:
        filters[:] = saved
    if type(code) is type(compile_early.__code__):
        early["code"], early["limit"] = code, sys.getrecursionlimit()


# `builtins.compile` as the setup of the layers left it (`seal_display_hook` makes it a gate): what a later one is
# compared with. Nothing here holds C's own compile, which the seal keeps out of the code's reach.
SETUP_COMPILE: list[Any] = []


def early_compiled(job: dict[str, Any]) -> Any:
    """The code object `compile_early` made of the job's code, where nothing the setup did since could make
    `compile()` answer otherwise (it left the recursion limit and `compile` as they were); else None. It leaves the
    job as the code would have seen it without the early compile."""
    early = job.pop("early", None)
    current = builtins.compile
    if SETUP_COMPILE:
        unchanged = current is SETUP_COMPILE[0]
    else:  # outside a setup (the tests): C's own
        unchanged = type(current) is type(len) and getattr(current, "__self__", None) is builtins
    if early is None or "code" not in early or sys.getrecursionlimit() != early["limit"] or not unchanged:
        return None
    return early["code"]


# What os.uname() answers in the child: the host kernel's release and build string are a fingerprint of the host (no
# namespace covers them, and seccomp refuses the syscall), its name too where no UTS namespace is made. The system and
# the machine stay the real ones (the interpreter's platform, sysconfig's and platform's answers rely on them).
PID_IN_OWN_NAMESPACE = 2  # kept in step with _pidns: pid 1 is the namespace's idle init
SANDBOX_NODENAME, NEUTRAL_RELEASE, NEUTRAL_VERSION = "sandbox", "0.0.0-sandbox", "#1 sandbox"


# The seccomp layer's SIGSYS handler answers trapped calls, the stat family among them (every import, every open()
# asks fstat), and the kernel kills a process whose trapped call finds SIGSYS blocked: a check that blocks every
# signal around a critical section (signal.pthread_sigmask(SIG_BLOCK, signal.valid_signals())) died at its next
# open(). Python's one way to block signals leaves SIGSYS out, as the C library leaves out the signals it keeps for
# itself; native code that blocks it still dies, and only itself.
def keep_sigsys_deliverable(original: Callable[[int, Any], Any], sigsys: int = _signal.SIGSYS,
                            changes: tuple[int, ...] = (_signal.SIG_BLOCK, _signal.SIG_SETMASK)) -> Callable[..., Any]:
    def pthread_sigmask(how: int, mask: Any) -> Any:
        if how in changes:
            mask = [number for number in map(operator.index, mask) if number != sigsys]
        return original(how, mask)
    return pthread_sigmask


# Raw thread handles: `time.pthread_getcpuclockid` takes any integer as a `pthread_t` and the C library answers the
# word at `handle + offsetof(struct pthread, tid)` as a clock id (no audit event): 29 bits of any mapped address, a
# fault at any other. From the main thread's own descriptor (`threading.get_ident()`) its list link leads into
# ld.so's data, ld.so's ELF header to the vDSO below it, and the vDSO's real data page, which the kernel maps beside
# a time namespace's, to CLOCK_MONOTONIC's seconds: the machine's uptime, which the full set's time namespace hides
# (`clock_uptime_through_raw_thread_handles` read 10817 s where the run's clock read 1 s). The answer is computed
# instead, for a live thread of the code's own only (the kernel keeps every thread clock to those), as glibc does:
# (~tid << 3) | CPUCLOCK_SCHED | CPUCLOCK_PERTHREAD in a C int. `signal.pthread_kill`, the other such call, is refused.
def thread_clock_id(get_ident: Callable[[], int] = _thread.get_ident,
                    get_native_id: Callable[[], int] = _thread.get_native_id, modules: dict[str, Any] = sys.modules,
                    index: Callable[[Any], int] = operator.index) -> Callable[[Any], int]:
    def pthread_getcpuclockid(thread_id: Any, /) -> int:
        ident = index(thread_id)
        if ident == get_ident():
            tid: Any = get_native_id()
        else:  # another thread the code started (where `max_processes` lets it): threading's own record of it
            threading = modules.get("threading")
            thread = getattr(threading, "_active", {}).get(ident) if threading is not None else None
            tid = getattr(thread, "native_id", None)
        if type(tid) is not int or not 0 < tid < 2**31:
            raise OSError(3, "No such process")  # ESRCH, as glibc answers a handle whose thread is gone
        clock = (~tid << 3) | 6
        return (clock + 2**31) % 2**32 - 2**31
    return pthread_getcpuclockid


def served_builtin_modules(table: dict[str, Any]) -> Callable[[Any], Any]:
    """An `_imp.create_builtin` that hands out the one instance of each built-in module in `table` (None for a name
    that is none, as the original answers). The original made a fresh module on every call, with no audit event,
    its functions as the C code defines them: whatever the bootstrap changed or removed on a module (`time`'s raw
    thread handles, `sys`'s tracing gates) came back whole, and a single-phase module's copy held the originals of
    `_imp` itself. Nothing here holds the original function."""
    def create_builtin(spec: Any, /) -> Any:
        name = spec.name
        if type(name) is not str:
            raise TypeError("the module's name must be a str")
        return table.get(name)
    return create_builtin


def serve_builtins_once(imp: Any, spec_type: Any, importer: Any, modules: dict[str, Any]) -> dict[str, Any]:
    """Make every built-in module now (the loaded ones as they are, the others unexecuted, which their first import
    executes) and replace `imp.create_builtin` by `served_builtin_modules` of them; returns them by name."""
    table = {}
    for name in sys.builtin_module_names:
        listed, module = name in modules, modules.get(name)
        if type(module) is not type(sys):  # not imported yet, or marked absent (None)
            module = imp.create_builtin(spec_type(name, importer, origin="built-in"))
            # A single-phase module's first making lists it in sys.modules: imported as before, absent as before.
            if listed:
                modules[name] = None
            else:
                modules.pop(name, None)
        table[name] = module
    imp.create_builtin = served_builtin_modules(table)
    return table


def neutral_uname(sysname: str, machine: str) -> Callable[[], Any]:
    """An `os.uname` that names no host: `sysname` and `machine` as they are, a neutral node, release and version."""
    answer = posix.uname_result((sysname, SANDBOX_NODENAME, NEUTRAL_RELEASE, NEUTRAL_VERSION, machine))

    def uname() -> Any:
        """The sandbox's neutral uname (the kernel's is refused: it names the host's kernel and the host)."""
        return answer

    return uname


def neutral_affinity(original: Callable[[int], Any]) -> Callable[[int], Any]:
    """An `os.sched_getaffinity` that names no host CPU set: for the run itself (0 or its pid) the CPUs `os.cpu_count()`
    answers in the sandbox (glibc's guess, 2, where /sys, /proc/stat and the call itself are out of reach), for any
    other pid the refused call. seccomp refuses the call (ENOSYS: the host's CPU set, where it is pinned), so
    `len(os.sched_getaffinity(0))`, the usual way to size a pool by the CPUs a process may use, raised OSError in every
    set while `os.cpu_count()` answered."""
    def sched_getaffinity(pid: int) -> set[int]:
        if pid in (0, os.getpid()):
            return set(range(os.cpu_count() or 1))
        return original(pid)  # type: ignore[no-any-return]

    sched_getaffinity.__doc__ = original.__doc__
    return sched_getaffinity


def neutral_priority(getpriority: Callable[..., int], setpriority: Callable[..., None]) -> tuple[Callable[..., Any], ...]:
    """`os.nice`, `os.getpriority` and `os.setpriority` that name no host setting: seccomp refuses the calls (ENOSYS:
    the nice value is the host's, which fork and exec pass on), so `os.nice(0)` (a grader reading its priority) and
    `os.nice(10)` (one lowering it) raised OSError in every set. For the run itself (PRIO_PROCESS of 0 or its pid) they
    answer a nice value of the run's own: 0 at the start, raised by nice and setpriority up to 19, never lowered
    (EPERM / EACCES, as an unprivileged process is told: RLIMIT_NICE is 0); the host's scheduling is kept, the value
    shown only. Any other process, user or group: the refused calls."""
    shown = [0]

    def own(which: int, who: int) -> bool:
        return operator.index(which) == os.PRIO_PROCESS and operator.index(who) in (0, os.getpid())

    def nice(increment: int, /) -> int:
        increment = operator.index(increment)
        if increment < 0:
            raise PermissionError(1, "Operation not permitted")
        shown[0] = min(19, shown[0] + increment)
        return shown[0]

    def getpriority_(which: int, who: int, /) -> int:
        return shown[0] if own(which, who) else getpriority(which, who)

    def setpriority_(which: int, who: int, priority: int, /) -> None:
        if not own(which, who):
            return setpriority(which, who, priority)
        priority = operator.index(priority)
        if priority < shown[0]:
            raise PermissionError(13, "Permission denied")
        shown[0] = min(19, priority)
        return None

    for made, original in ((nice, os.nice), (getpriority_, getpriority), (setpriority_, setpriority)):
        made.__name__, made.__doc__ = original.__name__, original.__doc__
    return nice, getpriority_, setpriority_


def own_rusage(resource: Any, cpu_clock: Callable[[int], float] = time.clock_gettime) -> Callable[[int], Any]:
    """`resource.getrusage` that names nothing of the host's: seccomp refuses the call (ENOSYS: its `ru_maxrss` is the
    peak that exec carried over from the host, its context switches a gauge of the machine's load), so a grader
    timing or sizing its own work raised OSError in every set. It answers the run's own CPU time as user time (the
    process's clock, or the calling thread's for RUSAGE_THREAD; none for RUSAGE_CHILDREN: the run starts no process)
    and 0 for every count the run cannot read of itself (its peak memory among them)."""
    clocks = {resource.RUSAGE_SELF: time.CLOCK_PROCESS_CPUTIME_ID, resource.RUSAGE_CHILDREN: None}
    if hasattr(resource, "RUSAGE_THREAD"):
        clocks[resource.RUSAGE_THREAD] = time.CLOCK_THREAD_CPUTIME_ID
    struct = resource.struct_rusage

    def getrusage(who: int, /) -> Any:
        clock = clocks.get(operator.index(who), -1)
        if clock == -1:
            raise ValueError("invalid who parameter")
        return struct((0.0 if clock is None else cpu_clock(clock), 0.0, *(0,) * 14))

    getrusage.__doc__ = resource.getrusage.__doc__
    return getrusage


def path_checked_first(call: Callable[..., Any]) -> Callable[..., Any]:
    """`call` (os.chmod, os.utime), then whether its path exists. Where the run keeps the host's uid, seccomp answers
    the mode and time changes 0 without running (the code owns the standard library's files then), a missing path
    included: `Path.touch()` of a new file took its `os.utime` for a bump of an existing one and made nothing,
    `os.chmod`, `os.utime` and `shutil.copymode` of a missing file raised nothing, in every set but the full one. The
    call comes first, so the hook judges every path as before; a descriptor is left to the call (it names an open
    file)."""
    def checked(path: Any, *args: Any, dir_fd: int | None = None, follow_symlinks: bool = True, **kwargs: Any) -> Any:
        answer = call(path, *args, dir_fd=dir_fd, follow_symlinks=follow_symlinks, **kwargs)
        if not isinstance(path, int):  # FileNotFoundError, NotADirectoryError...: what the call itself would raise
            os.stat(path, dir_fd=dir_fd, follow_symlinks=follow_symlinks)
        return answer

    checked.__name__, checked.__qualname__, checked.__doc__ = call.__name__, call.__qualname__, call.__doc__
    return checked


def tracing_stopper(original: Callable[[Any], None]) -> Callable[[Any], None]:
    """`sys.settrace` or `sys.setprofile` (`original`) for `None` only: the hook lets the call through from this
    function's frame when its `function` is None, and refuses any other. A Python trace or profile function is handed
    every frame, the bootstrap's too (the frame running the code, and the result's encoder after it), and may set
    `f_lineno` of one it is not called for: a jump of a running caller crashed the interpreter (3.11, SIGSEGV), a way
    around the hook; 3.11 also writes a traced frame's `f_locals` back into it. Clearing, as doctest's runner does
    around its examples (`sys.settrace(sys.gettrace())`, None where nothing traces), was refused with it in every set
    with the hook, and worked with the kernel layers alone."""
    def stop(function: Any) -> None:
        original(function)

    stop.__name__, stop.__qualname__, stop.__doc__ = original.__name__, original.__name__, original.__doc__
    return stop


def collect_at_safe_points_only(collector: Any) -> None:
    """Switch the collector's automatic runs off for good: `collector` (the `gc` module) keeps `collect`, and its
    `enable`, `disable`, `isenabled`, `set_threshold` and `get_threshold` become stand-ins that keep what the code
    asked for and answer it back, holding none of the C functions (a default or a cell is readable, and the module is
    served once, so no new copy brings them back). An automatic collection runs in whatever C call allocates, and
    runs the code's finalizers and weakref callbacks there, inside C code that holds what they may free (a C buffered
    reader's `read` whose finalizer detaches its text wrapper: the reader freed mid-call, CPython gh-157363; the
    forty-seventh round). Collections now run only where Python code calls `gc.collect()`, which is no more than that
    code could do itself; cyclic garbage stays until then (the measured cost is in docs/sandbox.md)."""
    state = {"enabled": collector.isenabled(), "threshold": collector.get_threshold()}
    collector.disable()

    def enable() -> None:
        state["enabled"] = True

    def disable() -> None:
        state["enabled"] = False

    def isenabled() -> bool:
        return bool(state["enabled"])

    def set_threshold(threshold0: int, threshold1: int = -1, threshold2: int = -1) -> None:
        old = state["threshold"]
        state["threshold"] = (int(threshold0), old[1] if threshold1 < 0 else int(threshold1),
                              old[2] if threshold2 < 0 else int(threshold2))

    def get_threshold() -> tuple[int, int, int]:
        return state["threshold"]  # type: ignore[return-value]

    for stand_in in (enable, disable, isenabled, set_threshold, get_threshold):
        original = getattr(collector, stand_in.__name__)
        stand_in.__qualname__, stand_in.__doc__, stand_in.__module__ = stand_in.__name__, original.__doc__, "gc"
        setattr(collector, stand_in.__name__, stand_in)


def gated_profiler(base: Any) -> Any:
    """`_lsprof.Profiler` (cProfile's base) whose `enable` and `disable` call the C methods from frames the hook knows:
    the profiler's callback is C, hands no frame to Python (a timer it calls runs in a profile event, where `f_lineno`
    cannot be set: measured, 'can only jump from a line trace event') and writes no frame's locals. The hook lets
    `sys.setprofile` through from these two frames only when their `enable_`/`disable_` are the C methods themselves;
    called from anywhere else (the code calling the base's methods itself, or sys.setprofile) it refuses as before."""
    def enable(self: Any, subcalls: bool = True, builtins: bool = True, enable_: Any = base.enable) -> None:
        enable_(self, subcalls, builtins)

    def disable(self: Any, disable_: Any = base.disable) -> None:
        disable_(self)

    enable.__doc__, disable.__doc__ = base.enable.__doc__, base.disable.__doc__
    profiler = type(base.__name__, (base,), {"enable": enable, "disable": disable, "__module__": base.__module__,
                                              "__doc__": base.__doc__})
    return profiler


def tracing_gates(profiler: Any, stopper: Callable[[Any], None], originals: tuple[Any, ...]) -> tuple[Any, ...]:
    """The hook's `tracing_gates`: (code, ((local name, allowed objects), ...)) for each frame that may call
    `sys.settrace` or `sys.setprofile` (`originals`) itself, and what each of its locals must be then (the closure's
    `original` and the defaults can be rewritten by the code: the hook looks at what the frame holds)."""
    base = profiler.__mro__[1]
    return ((stopper.__code__, (("function", (None,)), ("original", originals))),
            (profiler.enable.__code__, (("enable_", (base.enable,)),)),
            (profiler.disable.__code__, (("disable_", (base.disable,)),)))


class struct_passwd(tuple):  # the name pwd gives it
    """pwd.struct_passwd of the stand-in module (no entry is ever made)."""


class struct_group(tuple):
    """grp.struct_group of the stand-in module (no entry is ever made)."""


def _no_entry(kind: str, what: str, key: Any, typed: Callable[[Any], Any]) -> Any:
    """The KeyError the C modules raise where the name services know no entry: `getpwuid(): uid not found: 0`."""
    raise KeyError(f"{kind}(): {what} not found: {typed(key)!r}" if typed is str else
                   f"{kind}(): {what} not found: {typed(key)}")


def _name(value: Any, kind: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{kind}() argument must be str, not {type(value).__name__}")
    return value


def _number(value: Any, kind: str) -> int:
    if isinstance(value, float) or not hasattr(type(value), "__index__"):
        raise TypeError(f"{kind} should be integer, not {type(value).__name__}")
    return operator.index(value)


def loaded_extension_stems(modules: dict[str, Any]) -> frozenset[str]:
    """The file stems (as the hook takes them) of every extension module loaded from a file now, before the code
    runs. The bootstrap loaded these, and changed or sealed some (`array`'s stores, `resource.getrusage`,
    `_lsprof.Profiler`): a second load of such a file makes a module the bootstrap never saw (a multi-phase module's
    new types and functions, a single-phase one's functions as its first run left them), so the hook refuses and
    reports any, one rule for every such module (forty-fifth round). The import system never loads a module's file
    again while it is in `sys.modules`, and `importlib.reload` of one loads nothing."""
    stems = set()
    for module in list(modules.values()):
        if type(module) is type(sys):  # vars(): a module's `__getattr__` (curses' stand-in) is not called
            spec = vars(module).get("__spec__")
            origin = getattr(spec, "origin", None) if type(getattr(spec, "loader", None)).__name__ == \
                "ExtensionFileLoader" else None
            if type(origin) is str:
                stems.add(origin.rpartition("/")[2].partition(".")[0])
    return frozenset(stems)


def account_stand_ins() -> dict[str, Any]:
    """`pwd` and `grp` where the real ones are marked absent (no Landlock: the C library's name services read host
    files natively there): modules whose lookups find nothing, as the real ones answer where Landlock confines them
    (the name services pointed at no service). Marked absent, `getpass.getuser()` raised ModuleNotFoundError there and
    KeyError in every other set, `pwd.getpwuid` and `grp.getgrall` the same, `Path.owner()` NotImplementedError
    against KeyError: answers that told the sets apart."""
    pwd, grp = type(sys)("pwd"), type(sys)("grp")
    pwd.__doc__, grp.__doc__ = "The password database: no entries in the sandbox.", "The group database: none."
    pwd.struct_passwd, grp.struct_group = struct_passwd, struct_group  # type: ignore[attr-defined]
    pwd.getpwuid = lambda uid, /: _no_entry("getpwuid", "uid", _number(uid, "uid"), int)  # type: ignore[attr-defined]
    pwd.getpwnam = lambda name, /: _no_entry("getpwnam", "name", _name(name, "getpwnam"), str)  # type: ignore[attr-defined]
    pwd.getpwall = lambda: []  # type: ignore[attr-defined]
    grp.getgrgid = lambda gid, /: _no_entry("getgrgid", "gid", _number(gid, "gid"), int)  # type: ignore[attr-defined]
    grp.getgrnam = lambda name, /: _no_entry("getgrnam", "name", _name(name, "getgrnam"), str)  # type: ignore[attr-defined]
    grp.getgrall = lambda: []  # type: ignore[attr-defined]
    return {"pwd": pwd, "grp": grp}


def code_gates() -> tuple[Any, ...]:
    """The code objects whose frames may make a code object (`code.__new__`): `types.coroutine`, which marks a
    generator function's code as an awaitable coroutine's (a flag, `CO_ITERABLE_COROUTINE`), as asyncio's tasks do at
    import: `import asyncio` was forbidden in every set with the hook."""
    import types

    return (types.coroutine.__code__,)


def frame_locals_write_through() -> bool:
    """Whether writing `frame.f_locals` changes the running function's variables (PEP 667). A signal handler or a
    finalizer that runs inside the audit hook gets the hook's frame, so the hook could then be steered."""
    def probe() -> bool:
        decided = True
        sys._getframe().f_locals["decided"] = False
        return not decided

    return probe()


def usable_ctypes_types(bases: tuple[type, ...], reaches_memory: Callable[[type], bool]) -> list[str]:
    """The C data types under `bases` (the `_ctypes` base types, reachable by anyone through
    `object.__subclasses__()`) that reach memory by an address and can still be instantiated."""
    found: list[str] = []
    pending: list[type] = []
    for base in bases:
        pending.extend(base.__subclasses__())
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if reaches_memory(cls):
            try:
                cls()
            except TypeError:  # sealed: no tp_new
                continue
            found.append(cls.__qualname__)
    return found


# Third-party packages the host installed into its base interpreter lie in its standard library's folder
# (site-packages; a Debian interpreter's dist-packages), a read root, though the child (-I -S) never imports from
# there: listing it named them (224 on the test machine) and their files were read, in every set. The minimal root
# covers each with an empty folder; the hook refuses reading and listing there (Landlock, which grants whole
# hierarchies, cannot leave a folder out of the stdlib's: with the hook off they stay readable where there is no
# minimal root).
PACKAGE_FOLDERS = ("site-packages", "dist-packages")


def hidden_package_folders(lib_dirs: list[str]) -> tuple[str, ...]:
    """The package folders inside the library folders `lib_dirs`, which the code may neither read nor list."""
    return tuple(os.path.join(folder, name) for folder in lib_dirs for name in PACKAGE_FOLDERS
                 if os.path.isdir(os.path.join(folder, name)) and not os.path.islink(os.path.join(folder, name)))


def library_roots() -> tuple[str, ...]:
    """LIBRARY_ROOTS plus the interpreter's own lib folder (conda and similar builds keep libz, libffi... there),
    unless that is the system's /usr/lib or /lib, which hold host data besides libraries."""
    own = os.path.realpath(os.path.join(sys.base_prefix, "lib"))
    return LIBRARY_ROOTS if own in ("/usr/lib", "/lib") else (*LIBRARY_ROOTS, own)


def note(layers: list[str], missing: dict[str, str], layer: str, why: str | None) -> None:
    """Record `layer` as applied, or as missing and why."""
    if why is None:
        layers.append(layer)
    else:
        missing[layer] = why


def run_untrusted(job: dict[str, Any]) -> bytes:
    """Execute the code, call its entrypoint with the payload and return the final result frame."""
    # Bound before the untrusted code runs, so that patching builtins, json or this module's globals cannot
    # change what is reported (even `except` clauses look their exception types up when they run).
    dumps, result_frame, callable_, failure = frame, make_value_encoder(), callable, describe_failure
    memory_error, base_exception = MemoryError, BaseException
    memory_frame = frame({"error_kind": "memory_limit", "error": "MemoryError: memory limit exceeded"})
    unprintable = frame({"error_kind": "exception", "error": "unprintable exception"})
    # The code runs as a module of its own, listed in sys.modules and compiled with its own future flags alone (not
    # this file's `annotations`): dataclasses, typing.get_type_hints and pickle look a class's module up there, and
    # every `@dataclass` raised AttributeError where its annotations were text.
    module = type(sys)(CODE_MODULE)
    namespace: dict[str, Any] = module.__dict__
    namespace["__builtins__"] = builtins
    namespace["__file__"] = CODE_FILENAME  # its source is linecache's (the bootstrap put it there)
    sys.modules[CODE_MODULE] = module
    if job.get("ask"):
        namespace["ask_host"] = make_asker()
    returned = False
    # A caller's setup runs first, as a unit of its own in a namespace of its own, and leaves the job before the code
    # runs: the code reaches this frame (`sys._getframe(1)`), so it sees here, its globals, its source and its line
    # numbers just what a run without setup shows it (a probe it could tell from a real run would be no probe).
    prelude = job.pop("prelude", None)
    try:
        if prelude:
            try:
                if type(prelude) is str:  # else the host's byte code of it, loaded before the hook (`load_prelude`)
                    prelude = compile(prelude, PRELUDE_FILENAME, "exec", dont_inherit=True)
                exec(prelude, {"__name__": "__setup__", "__builtins__": builtins})
            except base_exception as exc:
                return dumps({"error_kind": "exception", "error": SETUP_FAILED + failure(exc, False)["error"]})
        del prelude
        exec(early_compiled(job) or compile(job["code"], CODE_FILENAME, "exec", dont_inherit=True), namespace)
        function = namespace.get(job["entrypoint"])
        if not callable_(function):
            return dumps({"error_kind": "exception", "error": f"the code defines no function {job['entrypoint']!r}"})
        value = function(**job["payload"])
        returned = True
        return result_frame(value)
    except memory_error:
        namespace.clear()
        return memory_frame
    except base_exception as exc:
        try:
            return dumps(failure(exc, returned))
        except base_exception:  # the code left the interpreter in no state to describe it
            return unprintable


def describe_failure(
    exc: BaseException, returned: bool, isinstance_: Any = isinstance, str_: Any = str, describe_: Any = describe,
    system_exit: Any = SystemExit, os_error: Any = OSError, unencodable: Any = (TypeError, ValueError, RecursionError),
    getattr_: Any = getattr,
) -> dict[str, str]:
    """The error frame for an exception raised by the code or, when `returned`, by encoding its value (builtins
    bound as defaults, like `describe`)."""
    if isinstance_(exc, system_exit):
        return {"error_kind": "crashed", "error": f"the code called sys.exit({str_(getattr_(exc, 'code', None))[:80]})"}
    if isinstance_(exc, os_error) and getattr_(exc, "errno", None) == 27:  # EFBIG: SIGXFSZ was ignored, the file size limit hit
        return {"error_kind": "output_limit", "error": "file size limit exceeded"}
    if returned and isinstance_(exc, unencodable):
        return {"error_kind": "bad_result", "error": f"the value is not JSON-serialisable: {describe_(exc)}"}
    return {"error_kind": "exception", "error": describe_(exc)}


class ModuleSettings:
    """A finder first on `sys.meta_path` for the modules of `settings` (module name -> {attribute: value}): the next
    finder's spec, its loader wrapped to set each attribute once the module has run (a tuple as a fresh list of its
    items). Everything else is left to the finders after it. The code may remove it: its modules then do what the
    hook or the kernel let them."""

    def __init__(self, settings: dict[str, dict[str, Any]], provided: dict[str, dict[str, Any]] | None = None) -> None:
        self.settings, self.provided = settings, provided or {}

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        values, provided = self.settings.get(name), self.provided.get(name)
        if values is None and provided is None:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None) if finder is not self else None
            spec = find(name, path, target) if find is not None else None
            if spec is not None:
                if hasattr(spec.loader, "exec_module"):
                    spec.loader = _SettingLoader(spec.loader, values or {}, provided or {})
                return spec
        return None


class _SettingLoader:
    """`loader`, with `provided` in `sys.modules` while its `exec_module` runs (what was there before put back after),
    setting `values` on the module after it (a `Derived` made from the module's own attribute, a tuple as a fresh
    list); everything else is the loader's own."""

    def __init__(self, loader: Any, values: dict[str, Any], provided: dict[str, Any]) -> None:
        self._loader, self._values, self._provided = loader, values, provided

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        before = {name: sys.modules.get(name) for name in self._provided}
        sys.modules.update(self._provided)
        try:
            self._loader.exec_module(module)
        finally:
            for name, held in before.items():
                if held is None:
                    sys.modules.pop(name, None)
                else:
                    sys.modules[name] = held
        for name, value in self._values.items():
            if type(value) is Derived:
                value = value.make(getattr(module, name))
            setattr(module, name, list(value) if type(value) is tuple else value)

    def __getattr__(self, name: str) -> Any:  # get_source, get_filename, get_resource_reader...
        return getattr(object.__getattribute__(self, "_loader"), name)


def prepare(run_dir: str) -> tuple[Any, dict[str, Any]]:
    """Isolate this process and make the audit hook; returns the hook (None where it is switched off) and what the
    call needs of the job: its code, entrypoint and payload. The rest (the run's cgroup paths, the host's pid, why a
    layer is missing) stays in this frame, gone before the code runs: the code reaches every frame above its own
    (`sys._getframe().f_back`, a traceback's), and the host's cgroup path names its container or service."""
    scratch = os.path.join(run_dir, "work")
    try:
        job = load_job(os.path.join(run_dir, "job.json"))
        last_channel = ANSWER_FD if job.get("ask") else RESULT_FD
        close_host_descriptors(last_channel + 1)
        st = os.fstat(RESULT_FD)
        real = posix.uname()  # before seccomp refuses it
        lib_dirs = [p for p in sys.path if os.path.isdir(p)]  # before isolation makes them unreachable
        disabled = set(job["disable"])
        # What the interpreter and this bootstrap made so far is never garbage: kept out of the collection below
        # (`gc.collect()`, which frees the layers' modules and what they made of ctypes), it took 0.7 ms of CPU, 0.35 ms
        # now; every object the layers make from here on is collected as before.
        gc.freeze()
        modules = load_siblings(run_dir)  # imports ctypes for the kernel layers
        if job.pop("prelude_code", False):
            job["prelude"] = load_prelude(run_dir)
        early = {"source": job["code"]} if type(job.get("code")) is str else None
        ctypes_bases = tuple(getattr(sys.modules["_ctypes"], name) for name in modules["_confine"]["CTYPES_BASES"])
        reaches_memory = modules["_confine"]["reaches_memory"]
        layers, missing = isolate(
            run_dir, scratch, lib_dirs, job["limits"], disabled, modules["_kernel"], modules["_confine"], job["cgroup"],
            job["host_pid"], last_channel, job.get("libc_paths"), job.get("sqlite_hooks"), early, job.get("object_dicts"))
        os.uname = posix.uname = neutral_uname(real.sysname, real.machine)
        for name in ("chmod", "utime"):  # in the capability sets the originals are in (shutil.copystat looks there)
            original, checked = getattr(os, name), path_checked_first(getattr(os, name))
            for capable in (os.supports_fd, os.supports_dir_fd, os.supports_follow_symlinks):
                if original in capable:
                    capable.add(checked)
            setattr(os, name, checked)
        os.sched_getaffinity = posix.sched_getaffinity = neutral_affinity(posix.sched_getaffinity)
        os.nice, os.getpriority, os.setpriority = neutral_priority(posix.getpriority, posix.setpriority)
        posix.nice, posix.getpriority, posix.setpriority = os.nice, os.getpriority, os.setpriority
        resource: Any = sys.modules["resource"]  # loaded for the rlimits
        resource.getrusage = own_rusage(resource)
        os.environ.clear()
        os.environ["TMPDIR"] = scratch  # tempfile would otherwise probe /tmp and trip the hook
        # The code's home is its scratch: `Path.home()` raised RuntimeError and `os.path.expanduser("~")` answered "~"
        # in every set (no HOME, and the name services know no account), so a grader keeping a cache or a config
        # under `~` failed or wrote into a folder named "~".
        os.environ["HOME"] = scratch
        # No command search path: without one, shutil.which and os.get_exec_path fall back to /bin:/usr/bin, which
        # named the host's programs (`os.access`: no audit event) where there is no minimal root, and none in it.
        os.environ["PATH"] = ""
        os.environ["TZ"] = LOCAL_ZONE  # the C library read the host's /etc/localtime at start-up: read again
        os.environ["LANGUAGE"] = GETTEXT_LANGUAGES
        os.environ["PYTHONTZPATH"] = os.pathsep.join(ZONEINFO_ROOTS)
        # The builtins `site` adds (the child starts with -S): `help(obj)` (pydoc, to stdout where no terminal is),
        # `exit(code)` and `quit()` (SystemExit, as sys.exit): a check that called them raised NameError.
        import _sitebuiltins

        builtins.help = _sitebuiltins._Helper()  # type: ignore[attr-defined]
        builtins.exit = _sitebuiltins.Quitter("exit", "Ctrl-D (i.e. EOF)")  # type: ignore[attr-defined]
        builtins.quit = _sitebuiltins.Quitter("quit", "Ctrl-D (i.e. EOF)")  # type: ignore[attr-defined]
        time.tzset()
        _signal.signal(_signal.SIGXFSZ, _signal.SIG_DFL)  # CPython ignores it; a kill cannot be swallowed
        _signal.pthread_sigmask = keep_sigsys_deliverable(_signal.pthread_sigmask)  # signal.py calls it through
        channel: Any = (st.st_dev, st.st_ino)
        if "seccomp" in layers and "hook" not in disabled:
            # seccomp keeps the channels' identity from this process: fd 3 is the result channel as long as it is a
            # socket (the code can neither make one nor copy the answer channel onto it). The hook keeps the object
            # for good: freeing it would close fd 3.
            import _socket  # the code may import it too: its calls are the hook's and seccomp's to refuse
            channel = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM, 0, RESULT_FD).getsockopt
        natives_confined = native_file_access_confined(layers)
        # The code's own modules are imported from their source: a `.pyc` of them in the scratch (py_compile's,
        # compileall's) is bytecode the hook refuses to load, which failed the import in every set with the hook.
        importer = sys.modules["_frozen_importlib_external"].SourceFileLoader
        importer.get_data = source_over_scratch_bytecode(importer.get_data, scratch + "/")
        import _lsprof  # cProfile's C profiler: its enable and disable go through gates the hook knows
        _lsprof.Profiler = gated_profiler(_lsprof.Profiler)  # type: ignore[misc]
        tracers = (sys.settrace, sys.setprofile)
        sys.settrace, sys.setprofile = tracing_stopper(sys.settrace), tracing_stopper(sys.setprofile)
        if "hook" not in disabled:
            collect_at_safe_points_only(gc)
        # Made only where it runs: one made and dropped was garbage the code could ask the collector for.
        hook = None if "hook" in disabled else modules["_hook"]["make_audit_hook"](
            scratch, (*lib_dirs, *SYSTEM_READ_ROOTS), channel, RESULT_FD, EXIT_TAMPERED,
            {"blocked_modules": BLOCKED_MODULES | (frozenset() if natives_confined else NATIVE_FILE_MODULES),
             "absent_modules": ABSENT_MODULES | (frozenset() if natives_confined else ABSENT_WITHOUT_LANDLOCK)
             | modules["_confine"]["SEALED_MODULES"] | loaded_extension_stems(sys.modules),  # a second load: new copies
             "blocked_module_prefixes": BLOCKED_MODULE_PREFIXES,
             "blocked_events": BLOCKED_EVENTS, "blocked_prefixes": BLOCKED_PREFIXES,
             "write_events": WRITE_EVENTS, "read_events": READ_EVENTS, "blocked_commands": BLOCKED_COMMANDS,
             "hidden_roots": hidden_package_folders(lib_dirs),
             "native_env_prefixes": NATIVE_ENV_PREFIXES, "tracing_gates": tracing_gates(_lsprof.Profiler, sys.settrace, tracers),
             "code_gates": code_gates(), "sealed_codes": modules["_confine"]["sealed_codes"](),
             "sealed_boxes": modules["_confine"]["sealed_boxes"](),
             "bytecode_loader": sys.modules["_frozen_importlib_external"]._compile_bytecode.__code__})
        # A code that removes the mark and imports one meets the hook at its file.
        stand_ins = {} if natives_confined else account_stand_ins()
        for name in ABSENT_MODULES | (frozenset() if natives_confined else ABSENT_WITHOUT_LANDLOCK):
            sys.modules[name] = stand_ins.get(name)  # type: ignore[assignment]  # None: absent, to the import system
        # linecache holds this file's source as empty (a `None` time: never checked again): every stack the code
        # formats (traceback.format_stack, inspect.stack, warnings with a stacklevel above the code, logging's
        # stack_info) shows the bootstrap's frames without lines, instead of reading this file, outside every read root
        # (forbidden with the hook, in every set). The code's own frames have no file either (`<sandboxed>`).
        bootstrap_lines: dict[str, tuple[int, None, list[str], str]] = {__file__: (0, None, [], __file__)}
        # The code's own source, under its file name (`<sandboxed>`, which linecache never reads from disk):
        # `inspect.getsource` of the code's functions and classes raised OSError and TypeError in every set (its
        # module, which now names that file, had no `__file__`), and its frames showed no lines in a traceback.
        bootstrap_lines[CODE_FILENAME] = (len(job["code"]), None, job["code"].splitlines(True), CODE_FILENAME)
        settings = {**MODULE_SETTINGS, "linecache": {"cache": bootstrap_lines}}
        provided: dict[str, dict[str, Any]] = {}
        if "hook" not in disabled:
            settings.update(HOOKED_MODULE_SETTINGS)
            provided = {importer: {name: refused_native_module(name, functions)}
                        for importer, (name, functions) in NATIVE_STAND_INS.items()}
            provided.update({importer: {"io": pure_buffered_io()} for importer in PURE_BUFFERED_IMPORTERS})
            if hasattr(time, "pthread_getcpuclockid"):
                time.pthread_getcpuclockid = thread_clock_id()
            bootstrap = sys.modules["_frozen_importlib"]
            served = serve_builtins_once(sys.modules["_imp"], bootstrap.ModuleSpec, bootstrap.BuiltinImporter,
                                         sys.modules)
            # atexit.unregister compares in Python, on functions it holds (a function freed while C compared it): the
            # one atexit module there is, made just now with the other built-in modules (an import cost 0.02 ms).
            failed = modules["_confine"]["seal_atexit"](served.get("atexit"))
            if failed is not None:
                missing["audit-hook"] = f"atexit.unregister hands the code a function it freed ({failed})"
        sys.meta_path.insert(0, ModuleSettings(settings, provided))
        # Entries of the import path that are no folder (python3XX.zip, absent in most installations): whatever lists
        # the path (importlib.metadata's distributions, version, entry_points; pkgutil) tried to list and read them,
        # outside every read root: forbidden with the hook, in every set.
        sys.path[:] = [entry for entry in sys.path if entry in lib_dirs]
        sys.path_importer_cache.clear()
        leftover = [] if "hook" in disabled else usable_ctypes_types(ctypes_bases, reaches_memory)
        del modules, ctypes_bases, reaches_memory
        if leftover and "audit-hook" not in missing:
            missing["audit-hook"] = f"C data types the code could use to rewrite the hook's memory remain: {leftover}"
        if "audit-hook" not in missing and frame_locals_write_through():
            missing["audit-hook"] = ("frame.f_locals writes through to a running function (Python 3.13+, PEP 667): code "
                                     "that runs inside the hook, a signal handler or a finalizer, could rewrite its "
                                     "decision")
        # Last, once nothing of the layers is held: their modules, ctypes and the C library's function objects are
        # cyclic garbage, and garbage the collector has not freed yet is the code's for the asking (`gc.set_debug(
        # gc.DEBUG_SAVEALL)` then `gc.collect()` lists it in `gc.garbage`; neither is audited). Collected before the
        # last of them was dropped, they were there when the code started: `ctypes.memmove` among them, whose calls
        # raise no audit event (forty-first round).
        gc.collect()
        if "hook" in disabled:
            missing["audit-hook"] = SWITCHED_OFF
        elif "audit-hook" not in missing:
            layers.append("audit-hook")
        write_all(frame({"layers": layers, "missing": missing}))
        absent = [layer for layer in job["require"] if layer not in layers]
        if absent:  # refuse before any untrusted code runs
            why = "; ".join(f"{layer}: {missing.get(layer, 'not applied')}" for layer in absent)
            write_all(frame({"error_kind": "isolation_missing", "error": f"required isolation missing ({why})"}))
            posix._exit(0)
    except BaseException:
        sys.__excepthook__(*sys.exc_info())  # C-level printer: no import needed after privileges are gone
        posix._exit(EXIT_SETUP)
    call = {key: job.get(key) for key in ("code", "entrypoint", "payload", "ask", "prelude")}
    if early is not None and "code" in early:
        call["early"] = early
    return hook, call


def main() -> None:
    """Entry point of the child process."""
    hook, job = prepare(sys.argv[1])
    if hook is not None:
        sys.addaudithook(hook)
    del hook
    exit_, write_frame = posix._exit, write_all
    result = run_untrusted(job)
    try:
        write_frame(result)
    except OSError:
        exit_(EXIT_TAMPERED)
    exit_(0)


def run(main: Callable[[], None] = main, exit_: Callable[[int], None] = posix._exit,
        base: type[BaseException] = BaseException) -> None:
    """`main()`, and an exit with EXIT_INTERRUPTED for any exception that escapes it: the code's signal handlers and
    finalizers can raise anywhere in the bootstrap, even after the call, and the interpreter's own traceback
    printer would read source files (which the hook reports as violations). Bound before the code runs."""
    try:
        main()
    except base:
        exit_(EXIT_INTERRUPTED)


if __name__ == "__main__":
    run()
