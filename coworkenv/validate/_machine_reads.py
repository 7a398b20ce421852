"""Values of the machine a Python check runs on, read unrun: the same in every probe run of the sandbox gate, yet
another on the machine where training or evaluation runs the verifier (`nondeterministic_check`).

Every probe run of a check happens on the validation machine, so a check that wants that machine's CPU
(`platform.machine() == 'x86_64'`, `os.uname().machine`, `sysconfig.get_platform()`), its interpreter's version
(`sys.version`, `sys.version_info[:2] == (3, 11)`, `sys.hexversion`, `platform.python_version()`,
`sys.implementation.cache_tag`), its C library (`platform.libc_ver()`, `os.confstr('CS_GNU_LIBC_VERSION')`) or where
the interpreter is installed (`sys.executable`, `sys.prefix`, `sys.path`) or its threads' build (`sys.thread_info`:
the lock's kind and the C library's version, `NPTL 2.35`) passes every probe run and fails every
correct agent on an ARM worker, a newer Python or another image. A check judging an agent's work from the state has
no use for any of them. What every machine that can run the verifier shares is left alone: the version tests the
supported versions answer alike (`sys.version_info >= (3, 8)`, `sys.version_info.major == 3`, with
`requires-python >= 3.11`), the OS (`sys.platform`, `platform.system()`: the sandbox runs on Linux only), the word
size and float format (`sys.maxsize`, `sys.float_info`, `sys.int_info`: 64-bit IEEE everywhere), the byte order
(`sys.byteorder`: little-endian on x86-64 and ARM64 alike), the thread library's name (`sys.thread_info.name`:
`pthread` on Linux), the recursion limit (`sys.getrecursionlimit()`: the interpreter's default unless the check sets
it), and the host name, kernel release
and locale, which the sandbox answers with values of its own (`sandbox`, `0.0.0-sandbox`, `C.UTF-8`), though not the
locale's name as `locale.getlocale()` gives it (the interpreter's alias table: `en_US` on 3.11, `C` from 3.12), nor
the garbage collector's thresholds or the count a kept `gc.collect()` returns (the interpreter's own objects), nor how
many modules it loaded before the check (`len(sys.modules)`)."""

from __future__ import annotations

import ast

from coworkenv.validate._module_lookups import canonical, imported_names, qualified

# The oldest Python the project supports (pyproject's `requires-python`; `tests/test_validate_machine_reads.py`
# keeps them in step): a version test every supported version answers alike is no read of the machine.
SUPPORTED = (3, 11)

# Members that read the machine or the interpreter's build, by module ("*": every member but those listed after it).
_READS = {
    "sys": frozenset({"version", "version_info", "hexversion", "implementation", "api_version", "abiflags",
                      "executable", "_base_executable", "prefix", "base_prefix", "exec_prefix", "base_exec_prefix",
                      "platlibdir", "path", "_git", "_framework", "thread_info", "copyright",
                      # the interpreter's build: its objects' sizes, the modules it ships or builds in
                      "getsizeof", "stdlib_module_names", "builtin_module_names"}),
    "platform": frozenset({"machine", "processor", "uname", "platform", "architecture", "python_version",
                           "python_version_tuple", "python_build", "python_compiler", "python_branch",
                           "python_revision", "libc_ver", "freedesktop_os_release"}),
    "os": frozenset({"uname", "confstr", "confstr_names", "sched_getaffinity", "getloadavg", "statvfs"}),
    "sysconfig": frozenset({"*"}),
    "shutil": frozenset({"disk_usage"}),
    # the memory page (4 KiB on x86-64, 16 or 64 KiB on many ARM machines)
    "resource": frozenset({"getpagesize"}),
    "mmap": frozenset({"PAGESIZE", "ALLOCATIONGRANULARITY"}),
    # the suffixes of native modules, which name the CPU and the interpreter (`.cpython-311-x86_64-linux-gnu.so`)
    "_frozen_importlib_external": frozenset({"EXTENSION_SUFFIXES", "MAGIC_NUMBER", "_RAW_MAGIC_NUMBER"}),
    "_imp": frozenset({"extension_suffixes"}),
    # the locale's name as the interpreter's alias table gives it: ('en_US', 'UTF-8') on 3.11, ('C', 'UTF-8') from
    # 3.12, for the same C.UTF-8 locale the sandbox runs in; the table itself, and a name normalised by it
    # (`locale.normalize('C.UTF-8')`: 'en_US.UTF-8' on 3.11, 'C.UTF-8' from 3.12)
    "locale": frozenset({"getlocale", "getdefaultlocale", "normalize", "locale_alias", "_parse_localename"}),
    # the collector's thresholds (700 until 3.12, 2000 from 3.13) and, kept (not a bare `gc.collect()`), how many
    # objects a collection found unreachable, which the interpreter's own start-up objects decide
    "gc": frozenset({"get_threshold", "collect"}),
    # what the interpreter's version ships: its Unicode database (14.0.0 on 3.11, 15.0.0 on 3.12, 15.1.0 on 3.13),
    # its soft keywords (`type` from 3.12), its byte code's numbers (`importlib.util.MAGIC_NUMBER` above, the opcodes)
    "unicodedata": frozenset({"unidata_version"}),
    "keyword": frozenset({"softkwlist", "issoftkeyword"}),
    **dict.fromkeys(("dis", "opcode"), frozenset({"opmap", "opname", "hasconst", "hasname", "hasjrel", "hasjabs",
                                                   "haslocal", "hascompare", "hasfree", "HAVE_ARGUMENT",
                                                   "EXTENDED_ARG"})),
    # the C libraries the interpreter was built with or loads: the image's, not the check's
    **dict.fromkeys(("sqlite3", "sqlite3.dbapi2", "_sqlite3"), frozenset({"sqlite_version", "sqlite_version_info"})),
    **dict.fromkeys(("ssl", "_ssl"), frozenset({"OPENSSL_VERSION", "OPENSSL_VERSION_INFO", "OPENSSL_VERSION_NUMBER"})),
    "zlib": frozenset({"ZLIB_RUNTIME_VERSION", "ZLIB_VERSION"}),
    **dict.fromkeys(("pyexpat", "xml.parsers.expat"), frozenset({"EXPAT_VERSION", "version_info"})),
    "hashlib": frozenset({"algorithms_available"}),
}
# The limits the sandbox sets to values of its own, the same on every machine; the others (the stack's soft limit)
# are the host's (`ulimit -s`).
_SANDBOX_LIMITS = frozenset({"RLIMIT_AS", "RLIMIT_CORE", "RLIMIT_CPU", "RLIMIT_DATA", "RLIMIT_FSIZE",
                             "RLIMIT_MEMLOCK", "RLIMIT_MSGQUEUE", "RLIMIT_NICE", "RLIMIT_NOFILE", "RLIMIT_NPROC",
                             "RLIMIT_OFILE", "RLIMIT_RSS", "RLIMIT_RTPRIO", "RLIMIT_RTTIME", "RLIMIT_SIGPENDING"})
# What the sandbox answers alike on every machine: `uname()`'s fields other than the machine.
_SANDBOXED_FIELDS = frozenset({"system", "sysname", "node", "nodename", "release", "version"})
_SANDBOXED_INDEXES = frozenset({0, 1, 2, 3})
# Members of a machine read that every machine able to run the verifier answers alike (the project runs on CPython).
_SHARED = frozenset({"sys.implementation.name", "sys.thread_info.name"})
_ORDERINGS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
# Built-ins that copy what they are given whole: counted, the copy counts the same.
_COPIES = frozenset({"list", "tuple", "set", "frozenset", "dict", "sorted"})


def machine_read(code: str) -> str | None:
    """The first read of the machine the check runs on (see the module's text), shown (`platform.machine()`), or
    None."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    names = imported_names(tree)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(tree):
        other = _build_read(node, names)
        if other is not None:
            return other
        if not isinstance(node, (ast.Attribute, ast.Name, ast.Call, ast.Subscript)) or \
                isinstance(getattr(node, "ctx", ast.Load()), (ast.Store, ast.Del)):
            continue
        found = qualified(node, names)
        found = canonical(found) if found is not None else None  # `platform.sys.version` is `sys.version`
        if found is None or not _reads_machine(found):
            continue
        if isinstance(node, ast.Subscript) and _reads_machine(canonical(qualified(node.value, names) or "")):
            continue  # `sys.version_info[0]`: judged as what it indexes
        outer = parents.get(node)
        if (isinstance(outer, ast.Attribute) or (isinstance(outer, ast.Call) and outer.func is node)) and \
                qualified(outer, names) is not None:
            continue  # judged as the longer name (`sys.version_info.major`, `platform.uname()`)
        if _shared(node, found, parents):
            continue
        call = parents.get(node)
        if found == "gc.collect" and call is not None and isinstance(parents.get(call), ast.Expr):
            continue  # a bare `gc.collect()`: its count is thrown away
        outer = parents.get(node)
        shown = outer if isinstance(outer, ast.Call) and outer.func is node else node
        return f"`{ast.unparse(shown)}`"
    return None


def _build_read(node: ast.AST, names: dict[str, str]) -> str | None:
    """A read of the machine by a call no member names alone: an object's size by its own method (`'ab'.__sizeof__()`,
    the interpreter's build), a resource limit the sandbox leaves the host's (`resource.getrlimit(RLIMIT_STACK)`)."""
    if not isinstance(node, ast.Call):
        return None
    if _counts_interpreter(node, names):
        return f"`{ast.unparse(node)}`"
    if isinstance(node.func, ast.Attribute) and node.func.attr == "__sizeof__":
        return f"`{ast.unparse(node)}`"
    if canonical(qualified(node.func, names) or "") == "resource.getrlimit" and node.args:
        limit = node.args[0]
        named = qualified(limit, names) if isinstance(limit, (ast.Attribute, ast.Name)) else None
        if named is None or named.rpartition(".")[2] not in _SANDBOX_LIMITS:
            return f"`{ast.unparse(node)}`"
    return None


def _counts_interpreter(call: ast.Call, names: dict[str, str]) -> bool:
    """`len(sys.modules)`, `len(list(sys.modules.keys()))`: how many modules the interpreter loaded before the check,
    which its version decides (45 on 3.11 and 3.12, 46 on 3.13 in `python -I -S`); `len(dir(builtins))`,
    `len(vars(builtins))`, `len(builtins.__dict__)`: how many built-ins it has (151 on 3.11; new exceptions come with
    new versions). Whether one is there is left alone."""
    if not (isinstance(call.func, ast.Name) and call.func.id == "len" and call.func.id not in names and call.args):
        return False
    held = call.args[0]
    while True:
        if isinstance(held, ast.Call) and isinstance(held.func, ast.Name) and held.func.id in _COPIES and held.args:
            held = held.args[0]  # `len(list(sys.modules))`
        elif isinstance(held, ast.Call) and isinstance(held.func, ast.Attribute) and \
                held.func.attr in ("keys", "values", "items", "copy"):
            held = held.func.value  # `len(sys.modules.keys())`
        else:
            break
    if isinstance(held, ast.Call) and isinstance(held.func, ast.Name) and held.func.id in ("dir", "vars") and \
            held.func.id not in names and len(held.args) == 1:
        held = held.args[0]  # `len(dir(builtins))`: the built-ins' names
    elif isinstance(held, ast.Attribute) and held.attr == "__dict__":
        held = held.value
    else:
        return canonical(qualified(held, names) or "") == "sys.modules"
    return (qualified(held, names) or "") == "builtins" or (isinstance(held, ast.Name) and held.id == "__builtins__")


def _reads_machine(found: str) -> bool:
    parts = found.split(".")
    for cut in range(len(parts) - 1, 0, -1):  # the longest module listed (`xml.parsers.expat`, then `xml`)
        listed = _READS.get(".".join(parts[:cut]))
        if listed is not None:
            return parts[cut] in listed or "*" in listed
    return False


def _shared(node: ast.expr, found: str, parents: dict[ast.AST, ast.AST]) -> bool:
    """Whether the read is answered alike wherever the verifier can run: a version test the supported versions
    decide, or a field of `uname()` the sandbox fills in."""
    module, _, rest = found.partition(".")
    member = rest.split(".")[0]
    if found in _SHARED:
        return True
    if member == "uname":
        return _uname_field(node, parents)
    if module == "sys" and member == "version_info":
        return _decided_version_test(node, found, parents)
    return False


def _uname_field(node: ast.expr, parents: dict[ast.AST, ast.AST]) -> bool:
    """`os.uname().sysname`, `platform.uname().node`, `platform.uname()[0]`: a field the sandbox answers alike."""
    outer = parents.get(node)
    call = outer if isinstance(outer, ast.Call) and outer.func is node else node
    holder = parents.get(call)
    if isinstance(holder, ast.Attribute):
        return holder.attr in _SANDBOXED_FIELDS
    if isinstance(holder, ast.Subscript) and isinstance(holder.slice, ast.Constant):
        return holder.slice.value in _SANDBOXED_INDEXES
    return False


def _decided_version_test(node: ast.expr, found: str, parents: dict[ast.AST, ast.AST]) -> bool:
    """`sys.version_info >= (3, 8)`, `sys.version_info[0] == 3`, `sys.version_info.minor >= 11`: a comparison with a
    constant that every version from `SUPPORTED` on (of major version 3) answers alike."""
    part = found.removeprefix("sys.version_info").lstrip(".")
    read: ast.expr = node
    holder = parents.get(node)
    index = holder.slice.value if isinstance(holder, ast.Subscript) and holder.value is node and \
        isinstance(holder.slice, ast.Constant) else None
    if not part and type(index) is int and index in (0, 1):
        part, read = ("major", "minor")[index], holder  # type: ignore[assignment]
    compare = parents.get(read)
    if not isinstance(compare, ast.Compare) or len(compare.ops) != 1:
        return False
    op = compare.ops[0]
    left = compare.left is read
    other = compare.comparators[0] if left else compare.left
    try:
        bound = ast.literal_eval(other)
    except ValueError:
        return False
    if part == "major":
        return (bound == SUPPORTED[0] and isinstance(op, (ast.Eq, ast.NotEq, ast.GtE, ast.LtE))) or \
            (isinstance(bound, int) and bound < SUPPORTED[0] and isinstance(op, _ORDERINGS))
    if part == "minor":
        value, least = bound, SUPPORTED[1]
    elif not part and isinstance(bound, tuple) and bound and all(isinstance(b, int) for b in bound):
        value, least = tuple(bound), SUPPORTED  # type: ignore[assignment]
    else:
        return False
    if not isinstance(op, _ORDERINGS):
        return False
    # the reading is at least `least`, never below it: `>= b`/`> b` always hold and `< b`/`<= b` never do where
    # b <= least (strictly below for `>`/`<=`, which the reading equal to b would change)
    greater = isinstance(op, (ast.Gt, ast.GtE)) == left
    strict = isinstance(op, (ast.Gt, ast.Lt))
    if greater:
        return value <= least if not strict else value < least  # type: ignore[operator]
    return value <= least if strict else value < least  # type: ignore[operator]
