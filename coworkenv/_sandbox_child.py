"""Bootstrap of the sandbox child: isolate this process, then run one untrusted function and report its value.

Started by `coworkenv.sandbox` as `python -I -S -B _sandbox_child.py RUN_DIR` with an empty environment. It reads
`RUN_DIR/job.json` (code, entrypoint, payload, limits), applies the kernel layers of `_sandbox_kernel.py`,
installs an audit hook, then calls the function. Everything it reports goes to fd 3 as JSON lines: one
`layers` line before the untrusted code runs, a `violation` line per blocked operation (written the moment
it happens, so later code cannot take it back), and one final `result` or `error` line. Standard library
only, and nothing the hook needs is looked up in a place the untrusted code can patch.
"""

from __future__ import annotations

import _json
import _signal
import builtins
import os
import posix
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing and collections.abc are too slow to import on every sandboxed call
    from collections.abc import Callable
    from typing import Any

RESULT_FD = 3
EXIT_TAMPERED = 86  # the hook found fd 3 closed or replaced
EXIT_SETUP = 87  # isolation or the job file failed before any untrusted code ran
MAX_VIOLATION_LINES = 8
CODE_FILENAME = "<sandboxed>"

# Modules whose mere import hands out raw memory, process or interpreter-internals access.
BLOCKED_MODULES = frozenset({
    "ctypes", "_ctypes", "_posixsubprocess", "subprocess", "multiprocessing", "_multiprocessing", "pty",
    "_xxsubinterpreters", "_testcapi", "_testinternalcapi", "_testbuffer", "_testmultiphase", "_ctypes_test",
    "_xxtestfuzz", "_dbm", "_gdbm",
})
BLOCKED_EVENTS = frozenset({
    "os.system", "os.fork", "os.forkpty", "os.posix_spawn", "os.startfile", "os.symlink", "os.link", "os.killpg",
    "signal.pthread_kill", "subprocess.Popen", "sys.settrace", "sys.setprofile", "gc.get_objects",
    "gc.get_referrers", "gc.get_referents", "code.__new__", "resource.setrlimit", "resource.prlimit",
    "sqlite3.enable_load_extension", "sqlite3.load_extension", "urllib.Request", "http.client.connect",
    "smtplib.connect", "ftplib.connect", "imaplib.open", "poplib.connect", "nntplib.connect",
    "telnetlib.Telnet.open", "webbrowser.open",
})
BLOCKED_PREFIXES = ("socket.", "ctypes.", "os.exec", "os.spawn", "_winapi.", "winreg.", "msvcrt.")
# Events that modify the file system: (indices of path arguments, indices of dir_fd arguments).
WRITE_EVENTS: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {
    "os.remove": ((0,), (1,)), "os.rmdir": ((0,), (1,)), "os.mkdir": ((0,), (2,)), "os.chmod": ((0,), (2,)),
    "os.chown": ((0,), (3,)), "os.utime": ((0,), (3,)), "os.truncate": ((0,), ()), "os.rename": ((0, 1), (2, 3)),
    "os.setxattr": ((0,), ()), "os.removexattr": ((0,), ()), "os.chflags": ((0,), ()), "os.lchflags": ((0,), ()),
    "sqlite3.connect": ((0,), ()),
}
READ_EVENTS = {"os.listdir": 0, "os.scandir": 0}
SYSTEM_READ_ROOTS = ("/dev/null", "/dev/zero", "/dev/urandom", "/etc/localtime", "/usr/share/zoneinfo",
                     "/usr/lib/zoneinfo", "/usr/share/lib/zoneinfo")
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC


def make_audit_hook(
    scratch: str, read_roots: tuple[str, ...], channel: tuple[int, int]
) -> Callable[[str, tuple[Any, ...]], None]:
    """An audit hook that blocks process, network and out-of-scratch file operations and reports each one.

    Everything it calls is bound here, as C functions or methods of built-in types, so monkeypatching
    builtins or stdlib modules from the untrusted code cannot change its decisions.
    """
    write, fstat, getcwd, stat, exit_ = posix.write, posix.fstat, posix.getcwd, posix.stat, posix._exit
    quote, own_pid, perm_error = _json.encode_basestring_ascii, posix.getpid(), PermissionError
    str_t, bytes_t, int_t, type_, issubclass_, any_, repr_, len_ = str, bytes, int, type, issubclass, any, repr, len
    # Private copies: the module globals are reachable (and mutable) through sys.modules["__main__"].
    blocked_modules, blocked_events, blocked_prefixes = BLOCKED_MODULES, BLOCKED_EVENTS, BLOCKED_PREFIXES
    write_events, read_events = dict(WRITE_EVENTS), dict(READ_EVENTS)
    write_flags, result_fd, tampered, max_lines = WRITE_FLAGS, RESULT_FD, EXIT_TAMPERED, MAX_VIOLATION_LINES
    scratch_roots = (scratch,)
    reported = [0]

    def absolute(path: Any) -> str | None:
        # Lexical only, and ".." is refused: symlink creation is blocked, so no path can be redirected.
        if type_(path) is str_t:
            text = path
        elif issubclass_(type_(path), bytes_t):  # not isinstance(): it would consult a user-defined __class__
            text = bytes_t.decode(bytes_t.__bytes__(path), "utf-8", "surrogateescape")
        elif issubclass_(type_(path), str_t):
            text = str_t.__str__(path)
        else:
            return None  # a PathLike's __fspath__ is user code and could answer differently each call
        if not text.startswith("/"):
            text = getcwd() + "/" + text
        parts = [p for p in text.split("/") if p not in ("", ".")]
        return None if ".." in parts else "/" + "/".join(parts)

    def inside(path: str | None, roots: tuple[str, ...]) -> bool:
        return path is not None and any_(path == r or path.startswith(r + "/") for r in roots)

    def shown(path: object) -> str:
        return repr_(path)[:120] if type_(path) in (str_t, bytes_t) else f"a {type_(path).__name__} path"

    def report(reason: str) -> None:
        reported[0] += 1
        if reported[0] > max_lines:
            return
        try:
            st = fstat(result_fd)
            if (st.st_dev, st.st_ino) != channel:
                exit_(tampered)
            write(result_fd, ('{"violation":' + quote(reason) + "}\n").encode())
        except OSError:
            exit_(tampered)

    def check_write(event: str, args: tuple[Any, ...]) -> str | None:
        paths, dir_fds = write_events[event]
        if any_(i < len_(args) and args[i] not in (None, -1) for i in dir_fds):  # -1: no dir_fd given
            return f"{event} relative to a directory descriptor"
        for i in paths:
            target = args[i]
            if type_(target) is int_t or (event == "sqlite3.connect" and target in (":memory:", "")):
                continue
            if not inside(absolute(target), scratch_roots):
                return f"{event} on {shown(target)} outside the scratch directory"
        return None

    def decide(event: str, args: tuple[Any, ...]) -> str | None:
        if event == "open":
            path, mode, flags = args
            if type_(path) is int_t:
                return None
            where = absolute(path)
            if flags & write_flags:
                if not inside(where, scratch_roots):
                    return f"writing {shown(path)} outside the scratch directory"
            elif not inside(where, read_roots):
                return f"reading {shown(path)} outside the scratch directory and the standard library"
            elif mode is None and where is not None and not inside(where, scratch_roots):
                try:  # os.open of a directory would allow *at(dir_fd, ...) calls that the hook cannot see
                    if stat(where).st_mode & 0o170000 == 0o040000:
                        return f"opening directory {shown(path)}"
                except OSError:
                    return None
            return None
        if event == "import":
            name = str_t.__str__(args[0])
            if name in blocked_modules or str_t.partition(name, ".")[0] in blocked_modules:
                return f"importing {name}"
            return None
        if event == "os.kill":
            return None if args[0] == own_pid else "sending a signal to another process"
        if event in blocked_events or str_t.startswith(event, blocked_prefixes):
            return event
        if event in write_events:
            return check_write(event, args)
        if event in read_events:
            target = args[read_events[event]]
            if target is None or type_(target) is int_t:
                return None
            if not inside(absolute(target), read_roots):
                return f"listing {shown(target)} outside the scratch directory"
        return None

    def hook(event: str, args: tuple[Any, ...]) -> None:
        reason = decide(event, args)
        if reason is not None:
            report(reason)
            raise perm_error(f"sandbox: {reason} is not allowed")

    return hook


def write_all(data: bytes, write: Callable[[int, Any], int] = posix.write, view_t: type = memoryview) -> None:
    """Write one frame to the result channel (a pipe may take it in pieces)."""
    view = view_t(data)
    while view:
        view = view[write(RESULT_FD, view):]


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


def frame(obj: dict[str, Any]) -> bytes:
    """One JSON line of the result channel (for the bootstrap's own reports)."""
    return ("".join(_encode(obj, 0)) + "\n").encode()


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


def describe(exc: BaseException) -> str:
    """`Type: message (line N)` for an exception raised by the untrusted code, never failing itself."""
    try:
        text = f"{type(exc).__name__}: {exc}"
    except BaseException:  # a hostile __str__
        text = type(exc).__name__
    line, tb = None, exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == CODE_FILENAME:
            line = tb.tb_lineno
        tb = tb.tb_next
    return (text[:480] + (f" (line {line})" if line else "")).strip()


def isolate(
    run_dir: str, scratch: str, lib_dirs: list[str], limits: dict[str, Any], disabled: set[str]
) -> tuple[list[str], list[str]]:
    """Apply every kernel layer that this machine allows; returns (layers applied, sys.path to use)."""
    here = os.path.dirname(os.path.abspath(__file__))
    kernel: dict[str, Any] = {"__name__": "_sandbox_kernel"}
    kernel_path = os.path.join(here, "_sandbox_kernel.py")
    with open(kernel_path, encoding="utf-8") as fh:
        exec(compile(fh.read(), kernel_path, "exec"), kernel)
    libc = kernel["load_libc"]()
    layers: list[str] = []
    if "netns" not in disabled:
        net = kernel["isolate_network"](libc)
        layers += [net] if net else []
    uid, gid = kernel["pick_sandbox_ids"]()
    new_path = lib_dirs
    if "mountns" not in disabled:
        fs_layers, new_path = kernel["isolate_filesystem"](
            libc, run_dir, scratch, lib_dirs, limits["scratch_bytes"], uid, gid)
        layers += fs_layers
    os.chdir(scratch)
    # Dropping to a uid that cannot read the stdlib (e.g. under a 0700 /root) would break every import.
    if "uid" not in disabled and os.geteuid() == 0 and kernel["readable_by_anyone"](new_path):
        if "scratch-tmpfs" not in layers:
            os.chown(scratch, uid, gid)
        layers += ["uid-drop"] if kernel["drop_privileges"](uid, gid) else []
    kernel["apply_rlimits"](
        limits["cpu_seconds"], limits["memory_bytes"], limits["file_size_bytes"], limits["max_processes"])
    layers.append("rlimits")
    layers += ["no-new-privs"] if kernel["set_no_new_privs"](libc) else []
    if "seccomp" not in disabled and kernel["install_seccomp"](libc):
        layers.append("seccomp")
    for name in [m for m in sys.modules if m == "ctypes" or m.startswith(("ctypes.", "_ctypes"))]:
        del sys.modules[name]  # so a later `import ctypes` goes through the import hook again
    return layers, new_path


def rebase_packages(old_dirs: list[str], new_dirs: list[str]) -> None:
    """Point already imported stdlib packages at the re-bound stdlib so their submodules stay importable."""
    for module in list(sys.modules.values()):
        search = getattr(module, "__path__", None)
        if not isinstance(search, list):
            continue
        for i, entry in enumerate(search):
            for old, new in zip(old_dirs, new_dirs, strict=True):
                if entry == old or entry.startswith(old + "/"):
                    search[i] = new + entry[len(old):]


def run_untrusted(job: dict[str, Any]) -> bytes:
    """Execute the code, call its entrypoint with the payload and return the final result frame."""
    # Bound before the untrusted code runs, so that patching builtins or json cannot change what is reported.
    dumps, result_frame, callable_ = frame, make_value_encoder(), callable
    memory_frame = frame({"error_kind": "memory_limit", "error": "MemoryError: memory limit exceeded"})
    namespace: dict[str, Any] = {"__name__": "__sandboxed__", "__builtins__": builtins}
    returned = False
    try:
        exec(compile(job["code"], CODE_FILENAME, "exec"), namespace)
        function = namespace.get(job["entrypoint"])
        if not callable_(function):
            return dumps({"error_kind": "exception", "error": f"the code defines no function {job['entrypoint']!r}"})
        value = function(**job["payload"])
        returned = True
        return result_frame(value)
    except MemoryError:
        namespace.clear()
        return memory_frame
    except BaseException as exc:
        try:
            return dumps(describe_failure(exc, returned))
        except BaseException:  # the code left the interpreter in no state to describe it
            return dumps({"error_kind": "exception", "error": "unprintable exception"})


def describe_failure(exc: BaseException, returned: bool) -> dict[str, str]:
    """The error frame for an exception raised by the code or, when `returned`, by encoding its value."""
    if isinstance(exc, SystemExit):
        return {"error_kind": "crashed", "error": f"the code called sys.exit({str(exc.code)[:80]})"}
    if isinstance(exc, OSError) and exc.errno == 27:  # EFBIG: SIGXFSZ was ignored, the file size limit hit
        return {"error_kind": "output_limit", "error": "file size limit exceeded"}
    if returned and isinstance(exc, (TypeError, ValueError, RecursionError)):
        return {"error_kind": "bad_result", "error": f"the value is not JSON-serialisable: {describe(exc)}"}
    return {"error_kind": "exception", "error": describe(exc)}


def main() -> None:
    """Entry point of the child process."""
    run_dir = sys.argv[1]
    scratch = os.path.join(run_dir, "work")
    try:
        job = load_job(os.path.join(run_dir, "job.json"))
        os.closerange(RESULT_FD + 1, 65536)  # nothing else of the host's may stay open here
        st = os.fstat(RESULT_FD)
        lib_dirs = [p for p in sys.path if os.path.isdir(p)]  # before isolation makes them unreachable
        layers, new_path = isolate(run_dir, scratch, lib_dirs, job["limits"], set(job["disable"]))
        if new_path != lib_dirs:
            sys.path[:] = new_path
            rebase_packages(lib_dirs, new_path)
        os.environ.clear()
        os.environ["TMPDIR"] = scratch  # tempfile would otherwise probe /tmp and trip the hook
        _signal.signal(_signal.SIGXFSZ, _signal.SIG_DFL)  # CPython ignores it; a kill cannot be swallowed
        hook = make_audit_hook(scratch, (scratch, *new_path, *SYSTEM_READ_ROOTS), (st.st_dev, st.st_ino))
        write_all(frame({"layers": layers}))
    except BaseException:
        sys.__excepthook__(*sys.exc_info())  # C-level printer: no import needed after privileges are gone
        posix._exit(EXIT_SETUP)
    if "hook" not in job["disable"]:
        sys.addaudithook(hook)
    del hook
    exit_, write_frame = posix._exit, write_all
    result = run_untrusted(job)
    try:
        write_frame(result)
    except OSError:
        exit_(EXIT_TAMPERED)
    exit_(0)


if __name__ == "__main__":
    main()
