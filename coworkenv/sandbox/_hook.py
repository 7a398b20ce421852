"""The sandbox child's audit hook: defence in depth and a reporter, never the boundary.

Landlock and seccomp (`_confine.py`) decide what the code can reach; this hook turns the attempts it sees into
`violation` reports (written to the result channel at once, so the code cannot take them back) and refuses them
before the kernel has to. It is written so that the code it watches cannot steer it:
- it never runs code the sandboxed program could have defined: paths count only when they are exactly `str` or
  `bytes` (subclasses and PathLike objects are refused unread: their `__fspath__`, `__str__`, `__eq__`,
  `__hash__`, metaclass `__name__` would all be user code), no `str()`/format/attribute lookup touches a user
  object, and numbers are compared only when they are exactly `int`;
- it is one function that calls only C functions, and everything it uses is bound in its default arguments,
  all immutable (tuples, frozensets, str, int, builtins): a frame reachable from a traceback shows those values
  but offers no cell, dict or list to rewrite, and it keeps no counter to exhaust;
- a signal handler can run inside it (after any call) and raise any exception: no `except` in it lets an
  operation through, so such an exception only ever refuses (checks that could fail ask without raising), and a
  judgement it cut short is judged again (by a second function of the same code) and a refusal reported before the
  exception goes on;
- relative paths resolve against the scratch directory, which is the cwd for good: `os.chdir` is refused here
  and chdir/fchdir by seccomp, so the path the hook judges is the path the kernel opens.
Compiled by the host into the run's boot.bin and executed by `_child.py`; standard library only.
"""

from __future__ import annotations

import _codecs
import _json
import _thread
import posix
import resource
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing and collections.abc are too slow to import on every sandboxed call
    from collections.abc import Callable
    from typing import Any

WRITE_FLAGS = posix.O_WRONLY | posix.O_RDWR | posix.O_APPEND | posix.O_CREAT | posix.O_TRUNC
# glibc opens the file TZ names in the C library, unseen by this hook: an absolute path (after an optional ':') as
# is, anything else under its zoneinfo folder, '..' included (a host FIFO, a device whose open acts: a watchdog).
ZONEINFO = "/usr/share/zoneinfo/"
# Without TZ the C library reads the host's own zone from this file at the next tzset(): unsetting TZ is a read of it.
TZ_DEFAULT = "/etc/localtime"
CODE_TYPE = type((lambda: None).__code__)
FUNCTION_TYPE = type(lambda: None)
# The longest reason a violation report carries (the host shows 500 characters of it at most).
REASON_CHARS = 500
# Marks of the extension files loaded while the hook runs: error handler names no codec asks for. A code that
# registers one itself only refuses itself that file.
LOADED_PREFIX = "coworkenv sandbox: extension file loaded: "
HELD_PREFIX = "coworkenv sandbox: a hook held while it runs: "
# The longest name or path a reason shows (a quoted one cut there has no closing quote).
NAME_CHARS = 120
# The report of a call whose judgement signal handlers cut short twice (kept in step with _host._HOOK_REASONS).
CUT_TWICE = b'\n{"violation":"a call whose judgement a signal handler cut short twice in the audit hook"}\n'


def make_audit_hook(
    scratch: str, read_roots: tuple[str, ...], channel: tuple[int, int] | Callable[[int, int], int], result_fd: int,
    tampered_exit: int, policy: dict[str, Any],
) -> Callable[[str, tuple[Any, ...]], None]:
    """The audit hook for one run: block and report process, network, interpreter-internals and file operations
    outside `scratch` (writes) or `read_roots` (reads); exit with `tampered_exit` if the result channel
    (`result_fd`, identified by `channel` = (st_dev, st_ino), or where seccomp keeps its identity from the process by
    `channel` = the channel socket's bound `getsockopt`, which answers SOCK_STREAM while fd 3 is still a socket) was
    closed or replaced.

    `policy` holds the bootstrap's tables (`blocked_modules`, `blocked_module_prefixes`: module names refused
    wherever they appear in a dotted name, `blocked_events`, `blocked_prefixes`, `write_events`: event -> (path
    argument indices, dir_fd argument indices), `read_events`: event -> 0 for a read or 2 for a listing of the
    path in argument 0, `blocked_commands`: event -> the command numbers in argument 1 it refuses,
    `native_env_prefixes`: environment variable names the code may not set, because C libraries load files or code
    by them, `bytecode_loader`, `absent_modules`: extension modules refused only when their file is loaded, which the
    bootstrap marks absent in `sys.modules` so that an optional import of one fails as on a Python built without
    it, `tracing_gates`: (code, ((local name, allowed objects), ...)) for the bootstrap's frames that may raise
    `sys.settrace`/`sys.setprofile`, each passing when every named local of the calling frame is one of its allowed
    objects, `code_gates`: the code objects of the standard library's functions whose frames may raise
    `code.__new__`, each changing nothing but a flag, `sealed_codes`: the code objects of the bootstrap's gates, whose
    functions' code and defaults stay as made, `sealed_boxes`: (box, gate code, gate tools) for each gate that may read
    a box's defaults, which hold C objects the code must never reach); the hook keeps frozen copies, so changing the tables afterwards changes nothing.
    An `import` that names a file (an extension module: native code) is allowed only from `read_roots`, never
    from scratch, where the code could have written it. Bytecode never comes from the code: `marshal.loads` is
    allowed only when `policy["bytecode_loader"]` (the import system's `_compile_bytecode` code object) is its
    caller and the bytes are exactly those of the `.pyc` file it names under `read_roots`; `compile()` takes only
    source text (an AST could be built to no source at all), and making code objects is refused.
    """
    write_events = tuple((str(name), tuple(paths), tuple(dir_fds))
                         for name, (paths, dir_fds) in policy["write_events"].items())
    read_events = tuple((str(name), int(access)) for name, access in policy["read_events"].items())
    commands = tuple((str(name), frozenset(int(c) for c in codes)) for name, codes in policy["blocked_commands"].items())
    return _bind(
        scratch, scratch + "/", tuple(read_roots), tuple(r + "/" for r in read_roots), channel, result_fd,
        tampered_exit, posix.getpid(), frozenset(policy["blocked_modules"]), frozenset(policy["blocked_events"]),
        tuple(policy["blocked_prefixes"]), write_events, read_events, commands,
        tuple(str(prefix) for prefix in policy["native_env_prefixes"]), policy["bytecode_loader"],
        tuple(str(prefix) for prefix in policy["blocked_module_prefixes"]),
        tuple(str(root) for root in policy.get("hidden_roots", ())),
        frozenset(str(name) for name in policy.get("absent_modules", ())),
        tuple((code, tuple((str(name), tuple(allowed)) for name, allowed in conditions))
              for code, conditions in policy.get("tracing_gates", ())),
        tuple(policy.get("code_gates", ())), tuple(policy.get("sealed_codes", ())),
        tuple((box, code, tools) for box, code, tools in policy.get("sealed_boxes", ())),
    )


def _bind(
    scratch: str, scratch_prefix: str, read_roots: tuple[str, ...], read_prefixes: tuple[str, ...],
    channel: Any, result_fd: int, tampered_exit: int, own_pid: int, blocked_modules: frozenset[str],
    blocked_events: frozenset[str], blocked_prefixes: tuple[str, ...], write_events: tuple[Any, ...],
    read_events: tuple[tuple[str, int], ...], commands: tuple[tuple[str, frozenset[int]], ...],
    env_prefixes: tuple[str, ...], bytecode_loader: Any, module_prefixes: tuple[str, ...],
    hidden_roots: tuple[str, ...] = (), absent_modules: frozenset[str] = frozenset(),
    tracing_gates: tuple[tuple[Any, tuple[tuple[str, tuple[Any, ...]], ...]], ...] = (),
    code_gates: tuple[Any, ...] = (), sealed_codes: tuple[Any, ...] = (), sealed_boxes: tuple[Any, ...] = (),
) -> Callable[[str, tuple[Any, ...]], None]:
    hidden_prefixes = tuple(root + "/" for root in hidden_roots)
    write_names = frozenset(name for name, _, _ in write_events)
    read_names = frozenset(name for name, _ in read_events)
    command_names = frozenset(name for name, _ in commands)
    resources = frozenset(int(getattr(resource, name)) for name in dir(resource) if name.startswith("RLIMIT_"))

    # Every name the hook uses is a default of its own: a global it looked up when it ran (`OSError`, in this module's
    # dict, which a refusal's traceback hands the code as the hook frame's `f_globals`) was the code's to replace, and
    # an `except OSError` that no longer matched let a report's failure, or a missing .pyc's, leave the hook unreported
    # (forty-first round).
    def hook(  # one flat function on purpose: no helper frames, no closure cells
        event: str, args: tuple[Any, ...],
        scratch: str = scratch, scratch_prefix: str = scratch_prefix, read_roots: tuple[str, ...] = read_roots,
        read_prefixes: tuple[str, ...] = read_prefixes, channel: Any = channel,
        result_fd: int = result_fd, tampered_exit: int = tampered_exit, own_pid: int = own_pid,
        blocked_modules: frozenset[str] = blocked_modules, blocked_events: frozenset[str] = blocked_events,
        blocked_prefixes: tuple[str, ...] = blocked_prefixes, write_events: tuple[Any, ...] = write_events,
        write_names: frozenset[str] = write_names, read_events: tuple[tuple[str, int], ...] = read_events,
        read_names: frozenset[str] = read_names, commands: tuple[tuple[str, frozenset[int]], ...] = commands,
        command_names: frozenset[str] = command_names, env_prefixes: tuple[str, ...] = env_prefixes,
        write_flags: int = WRITE_FLAGS, reachable: Any = posix.access, f_ok: int = posix.F_OK,
        str_t: type = str, bytes_t: type = bytes, int_t: type = int, tuple_t: type = tuple, type_: Any = type,
        len_: Any = len, repr_: Any = repr, decode: Any = bytes.decode, encode: Any = str.encode,
        startswith: Any = str.startswith, split: Any = str.split, join: Any = str.join,
        partition: Any = str.partition, rpartition: Any = str.rpartition, fstat: Any = posix.fstat,
        write: Any = posix.write, exit_: Any = posix._exit, quote: Any = _json.encode_basestring_ascii,
        perm_error: Any = PermissionError, os_error: Any = OSError, bytecode_loader: Any = bytecode_loader, getframe: Any = sys._getframe,
        open_: Any = posix.open, read: Any = posix.read, close: Any = posix.close, o_rdonly: int = posix.O_RDONLY,
        module_prefixes: tuple[str, ...] = module_prefixes, zoneinfo: str = ZONEINFO, tz_default: str = TZ_DEFAULT,
        hidden_roots: tuple[str, ...] = hidden_roots, hidden_prefixes: tuple[str, ...] = hidden_prefixes,
        reason_chars: int = REASON_CHARS,
        sol_socket: int = 1, so_type: int = 3, sock_stream: int = 1, absent_modules: frozenset[str] = absent_modules,
        tracing_gates: tuple[tuple[Any, tuple[tuple[str, tuple[Any, ...]], ...]], ...] = tracing_gates,
        code_gates: tuple[Any, ...] = code_gates, code_t: type = CODE_TYPE, coroutine_flag: int = 0x100,
        mark_loaded: Any = _codecs.register_error, loaded_mark: Any = _codecs.lookup_error,
        lookup_error: Any = LookupError, loaded_prefix: str = LOADED_PREFIX,
        getrlimit: Any = resource.getrlimit, rlim_infinity: int = resource.RLIM_INFINITY, lower: Any = str.lower,
        isidentifier: Any = str.isidentifier, isascii: Any = str.isascii, name_chars: int = NAME_CHARS,
        resources: frozenset[int] = resources, again: Any = None, frame_depth: int = 2,
        base_exception: Any = BaseException, cut_twice: bytes = CUT_TWICE, own_code: Any = None,
        function_t: type = FUNCTION_TYPE, sealed_codes: tuple[Any, ...] = sealed_codes,
        sealed_boxes: tuple[Any, ...] = sealed_boxes, box_readers: tuple[str, ...] = ("__kwdefaults__", "__defaults__"),
        threads_running: Any = _thread._count, held_prefix: str = HELD_PREFIX, urandom: Any = posix.urandom,
        hex_: Any = bytes.hex, callable_: Any = callable, own_hooks: tuple[Any, ...] = (
            sys.__unraisablehook__, sys.__excepthook__),
    ) -> None:
        settled = False
        silent: Any = None
        try:
            if type_(event) is not str_t or type_(args) is not tuple_t:
                settled = True
                return
            reason = None
            # A name the code chose (a module's, an event's it raises itself, an environment variable's) goes into the
            # reason after `reason` and before `after`: plain where it is a short dotted ASCII identifier, quoted (repr)
            # otherwise, so that the host can tell the hook's reports from lines the code writes itself.
            named: Any = None
            after = ""
            quiet = False  # refused as the kernel refuses it, unreported (a link within the scratch)
            # (path, 0 read / 1 write / 2 list / 3 native / 4 .pyc / 5 link, refuse directories)
            targets: tuple[Any, ...] = ()
            if event == "open":
                if len_(args) == 3 and type_(args[0]) is not int_t:
                    if type_(args[2]) is not int_t:
                        reason = "open with flags that are not an int"
                    else:
                        targets = ((args[0], 1 if args[2] & write_flags else 0, args[1] is None),)
            elif event == "import":
                name: Any = args[0] if len_(args) else None
                if type_(name) is not str_t:
                    reason = "importing a module by a name that is not a plain str"
                else:
                    # Any part: an extension module's init function is found by the last one ("pkg._ctypes").
                    for part in split(name, "."):
                        if part in blocked_modules or startswith(part, module_prefixes):
                            reason, named = "importing ", name
                    if reason is None and len_(args) > 1 and args[1] is not None:  # an extension module's file
                        stem = partition(rpartition(args[1], "/")[2], ".")[0] if type_(args[1]) is str_t else ""
                        if stem in blocked_modules or stem in absent_modules or startswith(stem, module_prefixes):
                            reason, named, after = "importing ", name, " from the file of a refused module"
                        elif type_(args[1]) is str_t:
                            # Each extension file loads once a run: a second load makes a copy of the module that
                            # nothing changed since (a multi-phase module's new types, a single-phase one's names as
                            # its first run left them), past what a setup or a seal changed in the first
                            # (`find_spec(...).origin`, `module_from_spec`; forty-ninth round). The mark is an error
                            # handler's name: the registry has no listing and no removal, so the code may only add.
                            try:
                                loaded_mark(loaded_prefix + stem)
                                reason, named, after = "importing ", name, " from the file of a module loaded already"
                            except lookup_error:
                                mark_loaded(loaded_prefix + stem, len_)
                        targets = ((args[1], 3, False),)
            elif event == "object.__setattr__":
                # The function that judges a call again (`again`, a default, so in the hook frame's locals, which a
                # signal handler gets) keeps its code and defaults: any function of the hook's code is left alone; so
                # are the bootstrap's gates (`sealed_codes`: the buffered streams' `__new__` and their raw streams'
                # method descriptors), which their classes hold for good.
                if len_(args) and type_(args[0]) is function_t:
                    held_code = args[0].__code__
                    if held_code is own_code:
                        reason = event
                    for sealed in sealed_codes:
                        if held_code is sealed:
                            reason = event
            elif event == "sys.unraisablehook" or event == "sys.excepthook":
                # C reads the hook from the `sys` module's dict without holding it, raises this event, then calls it:
                # a C callable that alone held what it walks (`lst.count`) and set the hook anew from inside its own
                # call ran on over its freed object (a use after free; seventieth round). A Python function's frame
                # holds it; any other hook is held here for good, as an error handler of a name no one can know (one
                # expression: the name is in no local a signal handler's frame could read), in a registry that has
                # no listing and no removal. The interpreter's own hooks are the `sys` module's for good.
                # A hook that is not callable is left: C's call raises TypeError and runs nothing of the code's.
                if len_(args) and type_(args[0]) is not function_t and args[0] is not own_hooks[0] \
                        and args[0] is not own_hooks[1] and callable_(args[0]):
                    mark_loaded(held_prefix + hex_(urandom(16)), args[0])
            elif event == "os.kill":
                if len_(args) < 1 or type_(args[0]) is not int_t or args[0] != own_pid:
                    reason = "sending a signal to another process"
            elif event == "marshal.loads":
                # The import system reading a stdlib .pyc, or crafted bytecode: only the file's own bytes tell.
                caller: Any = getframe(frame_depth)
                path: Any = caller.f_locals.get("bytecode_path") if caller.f_code is bytecode_loader else None
                if type_(path) is not str_t or not len_(args) or type_(args[0]) is not bytes_t:
                    reason = "marshal.loads outside the import of a standard-library module (bytecode is never taken " \
                             "from the code)"
                else:
                    targets = ((path, 4, False),)
            elif event == "compile":
                if len_(args) and type_(args[0]) is not str_t and type_(args[0]) is not bytes_t:
                    reason = "compiling something other than source text, such as an AST object (bytecode is " \
                             "made from source text only)"
            elif event == "sys.settrace" or event == "sys.setprofile":
                # A Python trace or profile function gets every frame, the bootstrap's too, and may jump one it is not
                # called for (a crash: a way around this hook). Allowed only from the bootstrap's gates, each calling the
                # C function it holds in a local: clearing (None), and cProfile's C profiler, which hands out no frame.
                caller = getframe(frame_depth)
                reason = event
                for code, conditions in tracing_gates:
                    if caller.f_code is not code:
                        continue
                    seen = caller.f_locals
                    passed = 0
                    for local, allowed in conditions:  # each local must be one of its allowed objects (identity only)
                        value = seen.get(local, caller)
                        for one in allowed:
                            if one is value:
                                passed += 1
                                break
                    if passed == len_(conditions):
                        reason = None
            elif event == "code.__new__":
                # A code object made or changed from parts can hold any bytecode or flags (CO_VARARGS on a function
                # without *args writes past its frame): refused, but from `types.coroutine`, which asyncio's tasks use
                # at import: `co.replace(co_flags=co.co_flags | 0x100)`, marking a generator's code as an awaitable
                # coroutine's. Its frame passes only where its `co` is exactly a code object (then `replace` is that
                # object's own) and the new flags (argument 8) are its flags with that one bit added: nothing else changes.
                caller = getframe(frame_depth)
                reason = event
                for code in code_gates:
                    if caller.f_code is code and len_(args) > 8 and type_(args[8]) is int_t:
                        original: Any = caller.f_locals.get("co")
                        if type_(original) is code_t and args[8] == original.co_flags | coroutine_flag:
                            reason = None
            elif event == "resource.setrlimit":
                # Lowering its own limits is harmless (a check bounding what it runs next); raising one (a soft limit up
                # to its hard one: the CPU limit's second of grace, the stack) is refused. Exact ints only: an infinite
                # limit is RLIM_INFINITY, and a current one so is no bound to keep.
                reason = event
                new: Any = args[1] if len_(args) == 2 and type_(args[0]) is int_t else None
                if type_(new) is tuple_t and len_(new) == 2 and type_(new[0]) is int_t and type_(new[1]) is int_t:
                    current = getrlimit(args[0]) if args[0] in resources else (0, 0)  # unknown: refused
                    lowered = 0
                    for i in (0, 1):
                        if current[i] == rlim_infinity or (new[i] != rlim_infinity and 0 <= new[i] <= current[i]):
                            lowered += 1
                    if lowered == 2:
                        reason = None
            elif event == "urllib.Request":
                # urlopen of a `data:` URL reads nothing, a `file:` URL opens its file through `open` (judged here) and
                # names its host through a refused lookup; every other scheme reaches the network, which is refused.
                url: Any = args[0] if len_(args) else None
                if type_(url) is not str_t or not startswith(lower(url[:5]), ("data:", "file:")):
                    reason = event
            elif event == "sqlite3.connect" and threads_running():
                # No sqlite connection is made, or made again (`__init__` of a live one, which checks no thread), while
                # a thread of the code's own runs (fifty-seventh round): C keeps a connection's raw handle across the
                # GIL's release (`backup` between its steps), and another thread's `__init__` freed it under the first.
                reason = "sqlite3.connect while a thread of the code's own runs (sqlite and threads do not mix here)"
            elif event == "object.__getattr__":
                # A box of the bootstrap's (`sealed_boxes`: a function holding C objects the code must never call
                # itself, C's `signal.signal` and `pyexpat`'s handler descriptors, in defaults no parameter of its code
                # takes; seventy-first round) is read only by the frames of the gates that call what it holds, each
                # with its own tools (any other function of the same code and tools is the same gate); a box's other
                # attributes and every other function's stay readable. The audited getters are the only way to it.
                if len_(args) == 2 and type_(args[0]) is function_t and args[1] in box_readers:
                    for entry in sealed_boxes:
                        if args[0] is entry[0]:
                            reason = "reading a C object the bootstrap keeps for its own gates"
                            break
                    if reason is not None:
                        caller = getframe(frame_depth)
                        caller_code = caller.f_code
                        for box, gate_code, gate_tools in sealed_boxes:
                            if args[0] is box and caller_code is gate_code and \
                                    caller.f_locals.get("_sealed_tools", caller) is gate_tools:
                                reason = None
                                break
            elif event in blocked_events or startswith(event, blocked_prefixes):
                reason, named = "", event  # an event the code raises itself may carry any text after a refused prefix
            elif event == "os.link" or event == "os.symlink":
                # seccomp refuses every link (EPERM), and the standard library falls back on that PermissionError
                # (mailbox's Maildir.add and dot-locking rename instead): within the scratch, refused as the kernel
                # refuses it, unreported; a link naming a host path (a symlink's target too) or a directory descriptor is
                # reported.
                if len_(args) < 2 or len_([fd for fd in args[2:] if fd is not None and not (
                        type_(fd) is int_t and fd == -1)]):
                    reason = event + " relative to a directory descriptor"
                else:
                    targets, quiet = ((args[0], 5, False), (args[1], 5, False)), True
            elif event in write_names:
                for name, paths, dir_fds in write_events:
                    if name != event:
                        continue
                    for i in dir_fds:
                        if i < len_(args) and args[i] is not None and not (type_(args[i]) is int_t and args[i] == -1):
                            reason = event + " relative to a directory descriptor"
                    for i in paths:
                        if i >= len_(args) or type_(args[i]) is int_t:
                            continue
                        if event == "sqlite3.connect" and type_(args[i]) is str_t and (
                                args[i] == ":memory:" or args[i] == ""):
                            continue
                        if event == "sqlite3.connect" and type_(args[i]) is str_t and startswith(args[i], "file:"):
                            # A URI (`uri=True`; the event does not say, and without it the text is a file name in the
                            # scratch, one folder below what is judged here): its path is judged as the database, its
                            # query may only set the open mode, the cache, locking and immutability. Refused: an
                            # authority, percent escapes (decoded by sqlite alone), `vfs`, `modeof` and anything else.
                            uri_path, _, query = partition(partition(args[i][5:], "#")[0], "?")
                            if startswith(uri_path, "///"):
                                uri_path = uri_path[2:]
                            elif startswith(uri_path, "//localhost/"):
                                uri_path = uri_path[11:]
                            in_memory = False
                            if "%" in args[i] or startswith(uri_path, "//"):
                                reason = "sqlite3.connect to a URI with an authority or escapes"
                            uri_names: tuple[str, ...] = ()
                            for parameter in split(query, "&") if query else ():
                                name, _, value = partition(parameter, "=")
                                if name in uri_names:  # sqlite takes the last of each: `mode=memory` then `mode=rwc` opened
                                    # the path the hook had let pass as the name of a memory database
                                    reason = "sqlite3.connect to a URI with the parameter " + repr_(name[:40]) + " twice"
                                elif name == "mode" and value in ("ro", "rw", "rwc", "memory"):
                                    in_memory = in_memory or value == "memory"
                                elif not ((name == "cache" and value in ("shared", "private")) or (
                                        name in ("immutable", "nolock", "psow") and value in ("0", "1"))):
                                    reason = "sqlite3.connect to a URI with the parameter " + repr_(name[:40])
                                uri_names += (name,)
                            if not in_memory and uri_path != ":memory:" and uri_path != "":
                                targets += ((uri_path, 1, False),)
                            continue
                        if event == "sqlite3.connect" and type_(args[i]) is not str_t:
                            reason = "sqlite3.connect to a non-str database"
                        targets += ((args[i], 1, False),)
            elif event in read_names and len_(args) and args[0] is not None and type_(args[0]) is not int_t:
                for name, access in read_events:
                    if name == event:
                        targets = ((args[0], access, False),)
            elif event == "os.putenv" or event == "os.unsetenv":
                # The bootstrap sets TZ and LANGUAGE: unsetting one is judged as setting it (without TZ the C library
                # reads the host's own zone file).
                verb = "setting " if event == "os.putenv" else "unsetting "
                key: Any = args[0] if len_(args) else None
                if type_(key) is bytes_t:
                    key = decode(key, "utf-8", "surrogateescape")
                if type_(key) is not str_t:
                    reason = verb + "an environment variable whose name is not exactly str or bytes"
                elif startswith(key, env_prefixes):
                    reason, named, after = verb, key, ", which makes C libraries load files or code"
                elif key == "TZ" and event == "os.unsetenv":
                    targets = ((tz_default, 0, False),)
                elif key == "TZ" and len_(args) > 1:  # a file the C library opens: judged as a read of it
                    zone: Any = args[1]
                    if type_(zone) is bytes_t:
                        zone = decode(zone, "utf-8", "surrogateescape")
                    if type_(zone) is not str_t:
                        reason = "setting TZ to a value that is not exactly str or bytes"
                    else:
                        zone = zone[1:] if startswith(zone, ":") else zone
                        targets = ((zone if startswith(zone, "/") else zoneinfo + zone, 0, False),)
            elif event in command_names and len_(args) > 1:
                for name, refused in commands:
                    if name == event and (type_(args[1]) is not int_t or args[1] in refused):
                        reason = (event + " with a command that reaches outside the sandbox (signal owner, folder watch, "
                                  "lease, lock probe, socket)")
            for target, access, refuse_dirs in targets:
                if reason is not None:
                    break
                if type_(target) is str_t:
                    text, shown = target, repr_(target)[:120]
                elif type_(target) is bytes_t:
                    text, shown = decode(target, "utf-8", "surrogateescape"), repr_(target)[:120]
                else:
                    reason = event + " with a path that is not exactly str or bytes"
                    break
                if not startswith(text, "/"):
                    text = scratch_prefix + text
                kept = []
                for part in split(text, "/"):
                    if part == "..":
                        reason = event + " on a path with '..': " + shown
                        break
                    if part and part != ".":
                        kept.append(part)
                if reason is not None:
                    break
                where = "/" + join("/", kept)
                in_scratch = where == scratch or startswith(where, scratch_prefix)
                # Under a read root, but not the stdlib's: the host's installed packages (site-packages)
                readable = not (where in hidden_roots or startswith(where, hidden_prefixes)) and (
                    where in read_roots or startswith(where, read_prefixes))
                # A refused module's own file (pty.py, ctypes/util.py, their cached bytecode), refused by name at `import`,
                # was loaded by path (importlib's spec_from_file_location, a loader of the code's own, runpy.run_path, exec
                # of its text), which raises no import event: every such way reads the file first.
                refused_file = False
                if access == 0 and not in_scratch:
                    folder, _, leaf = rpartition(where, "/")
                    folder, _, package = rpartition(folder, "/")
                    if package == "__pycache__":
                        package = rpartition(folder, "/")[2]
                    # The prefixes too (`unittest/test/_test_warnings.py`, refused as `import
                    # unittest.test._test_warnings`, was loaded by path: eighty-fifth round).
                    stem = partition(leaf, ".")[0]
                    refused_file = (stem in blocked_modules or package in blocked_modules
                                    or startswith(stem, module_prefixes) or startswith(package, module_prefixes))
                if access == 5 and not in_scratch:
                    reason = event + " naming " + shown + " outside the scratch directory"
                elif access == 1 and not in_scratch:
                    reason = "writing " + shown + " outside the scratch directory"
                elif access == 3 and (in_scratch or not readable):
                    reason = "loading native code from " + shown + " outside the standard library"
                elif access == 0 and not in_scratch and refused_file:
                    reason = "reading " + shown + ", the file of a refused module"
                elif access == 4:
                    reason = "loading bytecode " + shown + " that is not a standard-library .pyc file"
                    if not in_scratch and readable:
                        try:
                            fd = open_(where, o_rdonly)
                            try:
                                content = read(fd, fstat(fd).st_size + 1)
                            finally:
                                close(fd)
                            if content[16:] == args[0]:
                                reason = None
                        except os_error:
                            pass
                elif access == 2 and where in hidden_roots:
                    # The standard library's own walkers (pkgutil.iter_modules, pydoc's module list, os.walk of its
                    # folder) list every folder of it, the host's installed packages among them: refused as an
                    # unreadable folder is (they skip it), unreported, as the minimal root shows it empty.
                    silent = perm_error(13, "Permission denied", target)
                    break
                elif not in_scratch and not readable:
                    verb = "listing " if access == 2 else "reading "
                    reason = verb + shown + " outside the scratch directory and the standard library"
                elif refuse_dirs and not in_scratch and reachable(where + "/", f_ok):  # only a directory takes the "/"
                    # os.open of a directory would allow *at(dir_fd, ...) calls judged by the kernel alone (the event
                    # has no dir_fd). Asked without try/except: a signal handler's exception must never land in one.
                    reason = "opening directory " + shown
            if reason is None and quiet:  # the kernel's own message: "[Errno 1] Operation not permitted: 'a' -> 'b'"
                silent = perm_error(1, "Operation not permitted", args[0], None, args[1])
            if reason is None:
                settled = True
                if silent is not None and again is not None:
                    raise silent
                return
            if named is not None:
                shown_name = named
                if len_(named) > name_chars or not isascii(named):
                    shown_name = repr_(named)[:name_chars]
                else:
                    for part in split(named, "."):
                        if not isidentifier(part):
                            shown_name = repr_(named)[:name_chars]
                            break
                reason = reason + shown_name + after
            try:
                if type_(channel) is tuple_t:
                    st = fstat(result_fd)
                    if (st.st_dev, st.st_ino) != channel:
                        exit_(tampered_exit)
                elif channel(sol_socket, so_type) != sock_stream:  # ENOTSOCK, EBADF: closed or replaced
                    exit_(tampered_exit)
                # The leading newline ends any half line the code left on the channel, so the report stays whole;
                # a short write (the code made the channel non-blocking and filled it) would cut it: tampering. A reason
                # carries the code's own text (a module name, an event name given to sys.audit) at any length: cut, so
                # that a report never outgrows the host's result cap (read there as output_limit, the report lost) nor
                # goes out in pieces another thread's writes could land between.
                if len_(reason) > reason_chars:
                    reason = reason[:reason_chars] + "..."
                report = encode('\n{"violation":' + quote(reason) + "}\n")
                if write(result_fd, report) != len_(report):
                    exit_(tampered_exit)
            except os_error:
                exit_(tampered_exit)
            refusal = perm_error("sandbox: " + reason + " is not allowed")
            settled = True  # from here to the raise the interpreter runs no signal handler (no call, no jump back)
            if again is not None:
                raise refusal
        finally:
            # A Python signal handler runs wherever the interpreter checks for signals (after a call), so inside the
            # judgement above too, and what it raises leaves from there: the call is refused, but a refusal still
            # being judged went unreported, the run `ok` (forty-second round). Judged again then, by the same code
            # (`again`, which raises nothing of its own and reports what it refuses), before the handler's exception
            # goes on; where a handler cuts that judgement short too, the hook reports the call as cut off twice.
            # Writing that line is the first call here: no handler can run before it. Nothing of this runs, and
            # nothing is paid, where the judgement finishes.
            if not settled and again is not None:
                try:
                    again(event, args)
                except base_exception:
                    try:
                        if write(result_fd, cut_twice) != len_(cut_twice):
                            exit_(tampered_exit)
                    except os_error:
                        exit_(tampered_exit)

    # The hook installed is a second function of the same code whose `again` is the first (which judges a call again
    # after a signal handler cut the judgement short, one frame further from the caller, and never raises itself).
    code, defaults = hook.__code__, hook.__defaults__ or ()
    names = code.co_varnames[2:code.co_argcount]
    function_t: Any = type(hook)
    judge_again = function_t(code, hook.__globals__, hook.__name__, tuple(
        code if name == "own_code" else value for name, value in zip(names, defaults, strict=True)))
    return function_t(code, hook.__globals__, hook.__name__, tuple(
        judge_again if name == "again" else 1 if name == "frame_depth" else code if name == "own_code" else value
        for name, value in zip(names, defaults, strict=True)))
