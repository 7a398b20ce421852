"""The sandbox runs Python checks carried by specs: values come back, hostile code is contained and reported.

The hostile corpus lives in tests/sandbox_corpus/, one snippet per file, each defining `check(**p)` and stating
the error kind it must produce in a `# expect:` header. Every snippet also runs with the privileged kernel layers
switched off (network/mount namespaces, memory cgroup, uid drop), as on a host that forbids them, and must be
contained the same.
Snippets with an `# expect-kernel:` header run a third time with the audit hook switched off as well: the
unprivileged kernel layers alone (Landlock, seccomp, capability drop, rlimits) must contain them; and a fourth
time with Landlock switched off instead (a kernel without it), where the hook and seccomp must. A snippet that
gets through leaks `SANDBOX-ESCAPED ...` in its value and in a deliberate violation; neither may appear, nor may a
terminal or log control character stand unescaped in any report or in the value. The host watches its side too: no signal may reach
it, its resource limits stay, every run directory is gone afterwards, and every snippet runs while the host holds the
secret file open on an inheritable descriptor.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import unicodedata
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from coworkenv import sandbox
from coworkenv.sandbox import ERROR_KINDS, SandboxLimits, _cgroup, _leftovers, isolation_layers, run_sandboxed
from coworkenv.sandbox._host import Outcome

CORPUS = Path(__file__).with_name("sandbox_corpus")
REPO = Path(__file__).resolve().parents[1]
SECRET_NAME = "COWORKENV_TEST_SECRET"
SECRET_VALUE = "hf_sandbox-test-secret-" + uuid.uuid4().hex
# The names a host's secrets go by, set to the secret too: whatever reads the environment must find none of them.
WELL_KNOWN_SECRET_NAMES = ("HF_TOKEN", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "AWS_SECRET_ACCESS_KEY")
QUICK = SandboxLimits(cpu_seconds=1, wall_seconds=3.0)
# What an unprivileged container leaves: capability drop, rlimits, no_new_privs, Landlock, seccomp, the audit hook.
DEGRADED = frozenset({"netns", "timens", "pidns", "mountns", "cgroup", "uid"})
KERNEL_ONLY = DEGRADED | {"hook"}
ESCAPED = "SANDBOX-ESCAPED"
HOST_FILE_TIME = 1_000_000_000
WORLD_CANARY = "world-readable-canary-" + uuid.uuid4().hex
# Characters a terminal or log viewer acts on instead of showing (ANSI/OSC escapes, CR, newlines, bidi overrides,
# zero-width and separator characters, lone surrogates): no report the host makes may carry one unescaped.
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


@dataclass(frozen=True)
class Hostile:
    name: str
    code: str
    expect: str
    limits: SandboxLimits
    kernel_independent: bool
    value: Any = None
    error: str | None = None
    expect_kernel: str | None = None
    value_kernel: float | None = None  # `# value-kernel: N`: the value with the kernel layers alone, where it differs
    # Layers only the full set has (`# needs: mountns`): the snippet pins a defence that no degraded mode has, a
    # known limit there (docs/sandbox.md), so it runs with every layer only.
    needs: tuple[str, ...] = ()


def _load(path: Path) -> Hostile:
    headers = {}
    for line in path.read_text().splitlines():
        if not line.startswith("# "):
            break
        key, _, rest = line[2:].partition(":")
        headers[key.strip()] = rest.strip()
    seconds = dict(a.strip().split("=") for a in headers.get("limits", "").split(",") if a.strip())
    limits = replace(QUICK, cpu_seconds=float(seconds.get("cpu_seconds", QUICK.cpu_seconds)),
                     wall_seconds=float(seconds.get("wall_seconds", QUICK.wall_seconds)),
                     max_processes=int(seconds.get("max_processes", QUICK.max_processes)),
                     max_threads=int(seconds.get("max_threads", QUICK.max_threads)))
    return Hostile(
        name=path.stem, code=path.read_text(), expect=headers["expect"], limits=limits,
        kernel_independent="kernel-independent" in headers,
        value=float(headers["value"]) if "value" in headers else None, error=headers.get("error"),
        expect_kernel=headers.get("expect-kernel"),
        value_kernel=float(headers["value-kernel"]) if "value-kernel" in headers else None,
        needs=tuple(name.strip() for name in headers.get("needs", "").split(",") if name.strip()),
    )


HOSTILE = [_load(p) for p in sorted(CORPUS.glob("*.py"))]


# Signals a snippet may try to get the kernel to send the host (SIGIO ownership...): recorded, never fatal here.
WATCHED_SIGNALS = (signal.SIGUSR1, signal.SIGUSR2, signal.SIGURG, signal.SIGWINCH, signal.SIGIO)
_RLIMITS = [getattr(resource, name) for name in dir(resource) if name.startswith("RLIMIT_")]


@dataclass
class HostWatch:
    """What the host process can observe of a snippet's reach: signals it received, its own resource limits,
    the run directories the sandbox created (each must be gone afterwards) and its open descriptors (a snippet
    may send some over the result channel: none may stay open here)."""

    signals: list[int]
    limits: dict[int, tuple[int, int]]
    run_dirs: list[str]
    fds: int = 0


@pytest.fixture
def host_watch(monkeypatch: pytest.MonkeyPatch) -> Iterator[HostWatch]:
    watch = HostWatch([], {which: resource.getrlimit(which) for which in _RLIMITS}, [], len(os.listdir("/proc/self/fd")))
    previous = {sig: signal.signal(sig, lambda signum, _frame: watch.signals.append(signum)) for sig in WATCHED_SIGNALS}
    mkdtemp = tempfile.mkdtemp

    def recording_mkdtemp(*args: Any, **kwargs: Any) -> str:
        path = mkdtemp(*args, **kwargs)
        watch.run_dirs.append(path)
        return path

    monkeypatch.setattr(tempfile, "mkdtemp", recording_mkdtemp)
    yield watch
    for sig, handler in previous.items():
        signal.signal(sig, handler)
    for which, limits in watch.limits.items():
        if resource.getrlimit(which) != limits:
            resource.setrlimit(which, limits)


@contextlib.contextmanager
def _inherited_descriptor(path: Path) -> Iterator[int]:
    """`path` open in the host on an inheritable descriptor numbered as high as the host's limit allows (container
    runtimes allow 2**20), the way a host process inherits descriptors it never opened itself."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    number = (2**20 if hard == resource.RLIM_INFINITY else hard) - 1
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # dup2 refuses numbers beyond the soft limit
    try:
        fd = os.open(path, os.O_RDONLY)
        os.dup2(fd, number, inheritable=True)
        os.close(fd)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    try:
        yield number
    finally:
        os.close(number)


# Process settings the host chose that fork and exec pass on, set to values no default has, so that a run which
# inherits them shows it: a file-creation mask, ignored job-control signals, a timer slack (prctl, this thread's),
# transparent huge pages switched off.
HOST_UMASK = 0o027
HOST_IGNORED_SIGNALS = (signal.SIGTTIN, signal.SIGTTOU)
HOST_TIMER_SLACK_NS = 1_234_567
PR_SET_TIMERSLACK, PR_GET_TIMERSLACK, PR_SET_THP_DISABLE, PR_GET_THP_DISABLE = 29, 30, 41, 42
# The execution domain (this thread's; `setarch -R -X`): no address-space randomisation, readable means executable.
ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC, PERSONALITY_QUERY = 0x0040000, 0x0400000, 0xFFFFFFFF
# This thread's NUMA memory policy (`numactl --preferred=0`) and machine-check kill policy (early).
SET_MEMPOLICY = {"x86_64": 238, "aarch64": 237}
MPOL_DEFAULT, MPOL_PREFERRED = 0, 1
PR_MCE_KILL, PR_MCE_KILL_GET, PR_MCE_KILL_SET, PR_MCE_KILL_EARLY = 33, 34, 1, 1
PR_SET_MEMORY_MERGE, PR_GET_MEMORY_MERGE = 67, 68  # the whole process's memory offered to same-page merging


@contextlib.contextmanager
def _host_settings() -> Iterator[None]:
    """The host runs the call with HOST_UMASK, HOST_IGNORED_SIGNALS ignored, HOST_TIMER_SLACK_NS, huge pages off, the
    execution domain of `setarch -R -X`, memory node 0 preferred, early machine-check kills and its memory offered to
    same-page merging (restored after; the memory policy and kill policy back to the defaults)."""
    libc = ctypes.CDLL(None, use_errno=True)
    slack, thp_off = libc.prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0), libc.prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0)
    domain = libc.personality(ctypes.c_ulong(PERSONALITY_QUERY))
    mask = os.umask(HOST_UMASK)
    handlers = {sig: signal.signal(sig, signal.SIG_IGN) for sig in HOST_IGNORED_SIGNALS}
    libc.prctl(PR_SET_TIMERSLACK, HOST_TIMER_SLACK_NS, 0, 0, 0)
    libc.prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0)
    libc.personality(ctypes.c_ulong(max(domain, 0) | ADDR_NO_RANDOMIZE | READ_IMPLIES_EXEC))
    mempolicy = SET_MEMPOLICY.get(os.uname().machine)
    node_zero = ctypes.c_ulong(1)
    if mempolicy is not None:
        libc.syscall(mempolicy, MPOL_PREFERRED, ctypes.byref(node_zero), ctypes.c_ulong(64))
    mce = libc.prctl(PR_MCE_KILL_GET, 0, 0, 0, 0)
    libc.prctl(PR_MCE_KILL, PR_MCE_KILL_SET, PR_MCE_KILL_EARLY, 0, 0)
    merging = libc.prctl(PR_GET_MEMORY_MERGE, 0, 0, 0, 0)
    libc.prctl(PR_SET_MEMORY_MERGE, 1, 0, 0, 0)
    try:
        yield
    finally:
        libc.prctl(PR_SET_MEMORY_MERGE, max(merging, 0), 0, 0, 0)
        libc.prctl(PR_MCE_KILL, *((PR_MCE_KILL_SET, mce) if mce in (0, 1) else (0, 0)), 0, 0)  # 0: PR_MCE_KILL_CLEAR
        if mempolicy is not None:
            libc.syscall(mempolicy, MPOL_DEFAULT, None, ctypes.c_ulong(0))
        libc.personality(ctypes.c_ulong(max(domain, 0)))
        libc.prctl(PR_SET_THP_DISABLE, max(thp_off, 0), 0, 0, 0)
        libc.prctl(PR_SET_TIMERSLACK, slack, 0, 0, 0)
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
        os.umask(mask)


@contextlib.contextmanager
def _host_thread() -> Iterator[int]:
    """A thread of the host's, waiting for the call to end: its id, a pid of the machine's that is no process."""
    done = threading.Event()
    thread = threading.Thread(target=done.wait, name="host-thread", daemon=True)
    thread.start()
    try:
        yield thread.native_id or 0
    finally:
        done.set()
        thread.join()


@pytest.fixture
def targets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, host_watch: HostWatch) -> Iterator[dict[str, str]]:
    """Paths a snippet tries to reach outside its scratch dir, plus a secret in the host's env and files (and in
    their extended attributes, where the file system keeps them), and open on an inheritable host descriptor; the
    environment holds it under the well-known secret names too."""
    for name in (SECRET_NAME, *WELL_KNOWN_SECRET_NAMES):
        monkeypatch.setenv(name, SECRET_VALUE)
    tag = uuid.uuid4().hex
    host_file = tmp_path / "state.json"
    host_file.write_text('{"score": 0}')
    host_file.chmod(0o644)
    os.utime(host_file, (HOST_FILE_TIME, HOST_FILE_TIME))
    secret_file = tmp_path / "token"
    secret_file.write_text(SECRET_VALUE)
    secret_file.chmod(0o600)
    world_file = tmp_path / "public.txt"
    world_file.write_text(WORLD_CANARY)
    world_file.chmod(0o644)
    for path, value in ((secret_file, SECRET_VALUE), (world_file, WORLD_CANARY)):
        with contextlib.suppress(OSError):  # a file system without user xattrs: nothing there to leak
            os.setxattr(path, "user.coworkenv", value.encode())
    paths = {
        "tmp_target": os.path.join(tempfile.gettempdir(), f"coworkenv-escape-{tag}"),
        "repo_target": str(REPO / f"SANDBOX_ESCAPE_{tag}"),
        "host_file": str(host_file),
        "secret_file": str(secret_file),
        "secret_name": SECRET_NAME,
        "world_file": str(world_file),
        "repo_dir": str(REPO),
    }
    host = os.uname()
    paths.update(host_release=host.release, host_version=host.version, host_name=host.nodename,
                 host_peak_rss_kib=str(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss),
                 host_process=str(os.getpid()),
                 host_prefix=sys.prefix if sys.prefix != sys.base_prefix else "")  # the host's venv, if any
    with _inherited_descriptor(secret_file) as number, _host_settings(), _host_thread() as thread:
        paths["inherited_fd"] = str(number)
        paths["host_thread"] = str(thread)
        host_watch.fds += 1  # the host's own, closed after the test
        yield paths
    for key in ("tmp_target", "repo_target"):
        Path(paths[key]).unlink(missing_ok=True)


def _texts(value: Any) -> list[str]:
    """Every text in a JSON value, keys included."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [text for item in value for text in _texts(item)]
    if isinstance(value, dict):
        return [text for key, item in value.items() for text in (key, *_texts(item))]
    return []


def _assert_contained(case: Hostile, run: Outcome, targets: dict[str, str], expect: str | None = None,
                      watch: HostWatch | None = None) -> None:
    result = run.result
    if watch is not None:
        # What a call could not remove within its budget is removed by a thread holding the folders it walks open.
        assert _leftovers.wait_for_removals(60), f"{case.name}: its run directory is still being removed after 60 s"
        assert not watch.signals, f"{case.name} made the kernel signal the host: {watch.signals}"
        changed = {which for which, limits in watch.limits.items() if resource.getrlimit(which) != limits}
        assert not changed, f"{case.name} changed the host's resource limits {changed}"
        left = [path for path in watch.run_dirs if os.path.lexists(path)]
        assert not left, f"{case.name} left its run directory behind: {left}"
        assert len(os.listdir("/proc/self/fd")) <= watch.fds, f"{case.name} left descriptors open in the host"
    outcome = "ok" if result.ok else result.error_kind
    # "a|b": a heavy snippet may hit its wall clock first on a loaded machine; either way it is contained.
    assert outcome in (expect or case.expect).split("|"), f"{case.name}: {run}"
    for leaked in (ESCAPED, SECRET_VALUE, WORLD_CANARY):
        assert leaked not in repr(run), f"{case.name} escaped: {run}"
    assert result.error_kind is None or result.error_kind in ERROR_KINDS
    for text in (result.error or "", *run.violations, *_texts(result.value)):
        hidden = sorted({ch for ch in text if unicodedata.category(ch) in HIDDEN_CATEGORIES})
        assert not hidden, f"{case.name}: the report carries unescaped {hidden}: {run}"
    # What comes back must be writable anywhere: JSON, and text every UTF-8 writer accepts.
    json.dumps(result.value, ensure_ascii=False, allow_nan=False).encode("utf-8")
    (result.error or "").encode("utf-8")
    assert not Path(targets["tmp_target"]).exists(), f"{case.name} wrote outside its scratch dir"
    assert not Path(targets["repo_target"]).exists(), f"{case.name} wrote into the repository"
    assert Path(targets["host_file"]).read_text() == '{"score": 0}', f"{case.name} changed the host's file"
    host_stat = os.stat(targets["host_file"])
    assert (host_stat.st_mode & 0o7777, host_stat.st_mtime) == (0o644, HOST_FILE_TIME), f"{case.name} changed its mode"
    assert result.duration_s < case.limits.wall_seconds + 2
    value = case.value_kernel if expect is not None and case.value_kernel is not None else case.value
    if value is not None and result.ok:
        assert result.value == value, f"{case.name}: {run}"
    if case.error is not None and expect is None:  # `# error:` names the full layer set's refusal
        assert result.error is not None and case.error in result.error, f"{case.name}: {run}"
    if not result.ok:
        assert result.value is None and result.error


def test_corpus_is_large_and_covers_every_error_kind() -> None:
    assert len(HOSTILE) >= 20
    assert {case.expect.split("|")[0] for case in HOSTILE} >= ERROR_KINDS - {"isolation_missing"}


# How much longer a snippet that ran out of wall clock, though it is not expected to, gets on its one second try.
PATIENT_WALL_FACTOR = 5


def _execute(case: Hostile, targets: dict[str, str], expect: str | None = None,
             disable: frozenset[str] = frozenset()) -> tuple[Hostile, Outcome]:
    """Run the snippet; one that hit its short wall clock where another outcome is expected (a loaded machine: the
    suite runs beside other test processes) runs once more with PATIENT_WALL_FACTOR times the wall clock, and is
    judged by that run (the case returned carries those limits). A snippet that hangs times out again and fails."""
    outcome = sandbox._execute(case.code, "check", dict(targets), case.limits, disable=disable)
    if outcome.result.error_kind == "timeout" and "timeout" not in (expect or case.expect).split("|"):
        case = replace(case, limits=replace(case.limits, wall_seconds=case.limits.wall_seconds * PATIENT_WALL_FACTOR))
        outcome = sandbox._execute(case.code, "check", dict(targets), case.limits, disable=disable)
    return case, outcome


@pytest.mark.parametrize("case", HOSTILE, ids=[c.name for c in HOSTILE])
def test_hostile_snippet_is_contained(case: Hostile, targets: dict[str, str], host_watch: HostWatch) -> None:
    _require(*case.needs)
    case, outcome = _execute(case, targets)
    _assert_contained(case, outcome, targets, watch=host_watch)


DEGRADED_CASES = [c for c in HOSTILE if not c.kernel_independent and not c.needs]


@pytest.mark.parametrize("case", DEGRADED_CASES, ids=[c.name for c in DEGRADED_CASES])
def test_hostile_snippet_is_contained_without_privileged_layers(
    case: Hostile, targets: dict[str, str], host_watch: HostWatch
) -> None:
    case, outcome = _execute(case, targets, disable=DEGRADED)
    assert not {"netns", "timens", "pidns", "mountns", "memory-cgroup", "pids-cgroup", "uid-drop"} & set(outcome.layers)
    _assert_contained(case, outcome, targets, watch=host_watch)


KERNEL_CASES = [c for c in HOSTILE if c.expect_kernel and not c.needs]


@pytest.mark.parametrize("case", KERNEL_CASES, ids=[c.name for c in KERNEL_CASES])
def test_kernel_layers_alone_contain_the_snippet(case: Hostile, targets: dict[str, str], host_watch: HostWatch) -> None:
    """No namespaces, no uid drop, no audit hook: Landlock, seccomp and the capability drop are the boundary."""
    _require("landlock", "seccomp")
    case, outcome = _execute(case, targets, expect=case.expect_kernel, disable=KERNEL_ONLY)
    assert {"landlock", "seccomp", "caps-drop"} <= set(outcome.layers), outcome.missing
    _assert_contained(case, outcome, targets, expect=case.expect_kernel, watch=host_watch)


@pytest.mark.parametrize("case", KERNEL_CASES, ids=[c.name for c in KERNEL_CASES])
def test_hook_and_seccomp_contain_the_snippet_where_landlock_is_missing(
    case: Hostile, targets: dict[str, str], host_watch: HostWatch
) -> None:
    """An unprivileged host whose kernel lacks Landlock: the audit hook, seccomp and the capability drop remain,
    and modules that touch files natively (sqlite3, pwd, ssl) are refused with them."""
    _require("audit-hook")  # not in effect where code run inside the hook could steer it (Python 3.13+)
    case, outcome = _execute(case, targets, disable=DEGRADED | {"landlock"})
    assert "landlock" not in outcome.layers
    _assert_contained(case, outcome, targets, watch=host_watch)


# A root host on a kernel without Landlock: the read-only minimal root confines what C code opens (sqlite's ATTACH and
# VACUUM INTO, the C library's name services, OpenSSL's files, syslog's console, libuuid's clock file), so the modules
# refused or marked absent where nothing confines them answer there as in the full set; every attack among these
# snippets stays contained.
NATIVE_FILE_CASES = [c for c in HOSTILE if c.name in (
    "native_sqlite_attach_and_vacuum_outside_the_scratch", "native_sqlite_and_dbm_tricks", "sqlite_database_outside",
    "native_nss_and_account_lookups", "native_nss_lookups_without_audit_events", "native_ssl_file_readers",
    "host_console_written_through_syslog", "stdlib_account_lookups_answer_alike_in_every_set",
    "stdlib_optional_imports_of_account_modules", "stdlib_optional_imports_of_tls_and_dbm",
    "stdlib_uuid1_where_libuuid_is_absent")]


@pytest.mark.parametrize("case", NATIVE_FILE_CASES, ids=[c.name for c in NATIVE_FILE_CASES])
def test_native_file_modules_answer_where_a_read_only_minimal_root_confines_them(
    case: Hostile, targets: dict[str, str], host_watch: HostWatch
) -> None:
    _require("min-root", "ro-root", "audit-hook")
    case, outcome = _execute(case, targets, disable=frozenset({"landlock"}))
    assert "landlock" not in outcome.layers and {"min-root", "ro-root"} <= set(outcome.layers), outcome.missing
    _assert_contained(case, outcome, targets, watch=host_watch)
    if case.name.startswith("stdlib_") or case.name == "native_sqlite_attach_and_vacuum_outside_the_scratch":
        assert outcome.result.ok, outcome.result  # sqlite3 imported; pwd, grp, ssl, _uuid present, as in the full set


def test_check_returns_its_json_value_and_the_payload_stays_the_hosts() -> None:
    code = (
        "import collections, datetime, json, re\n"
        "def check(state, messages):\n"
        "    state['mail']['sent'].append('forged')\n"
        "    ids = re.findall(r'INC-\\d+', ' '.join(messages))\n"
        "    day = datetime.date.fromisoformat(state['due']).isoformat()\n"
        "    return {'ids': ids, 'due': day, 'sent': len(state['mail']['sent']), 'ü': [1.5, None, True]}\n"
    )
    payload: dict[str, Any] = {
        "state": {"mail": {"sent": ["m1"]}, "due": "2025-03-04"}, "messages": ["fixed INC-42 and INC-7"]
    }
    result = run_sandboxed(code, "check", payload)
    assert result.ok, result
    assert result.value == {"ids": ["INC-42", "INC-7"], "due": "2025-03-04", "sent": 2, "ü": [1.5, None, True]}
    assert (result.error_kind, result.error) == (None, None)
    assert payload["state"]["mail"]["sent"] == ["m1"]


def test_a_plain_call_is_fast() -> None:
    code = "def check(state):\n    return state['n'] + 1\n"
    durations = []
    for n in range(5):
        start = time.perf_counter()
        assert run_sandboxed(code, "check", {"state": {"n": n}}).value == n + 1
        durations.append(time.perf_counter() - start)
    assert statistics.median(durations) < 0.5, durations


@pytest.mark.parametrize("disable", [frozenset(), KERNEL_ONLY], ids=["full", "kernel-only"])
def test_a_check_that_blocks_every_signal_still_opens_stats_and_imports(disable: frozenset[str]) -> None:
    """The stat family is answered by the seccomp layer's SIGSYS handler (the run's own device numbers), and the
    kernel kills a process whose trapped call finds SIGSYS blocked: an honest check that blocks every signal around
    its work died at its first open() (`crashed`, killed by SIGSYS). Python's pthread_sigmask leaves SIGSYS out."""
    code = (
        "import os, signal\n"
        "def check():\n"
        "    old = signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())\n"
        "    try:\n"
        "        with open('data.txt', 'w') as fh:\n"
        "            fh.write('12')\n"
        "        import fractions\n"
        "        value = int(open('data.txt').read()) + os.stat('data.txt').st_size + len(os.listdir('.'))\n"
        "        blocked = signal.SIGINT in signal.pthread_sigmask(signal.SIG_SETMASK, signal.valid_signals())\n"
        "    finally:\n"
        "        signal.pthread_sigmask(signal.SIG_SETMASK, old)\n"
        "    return [value, blocked, str(fractions.Fraction(1, 3))]\n"
    )
    outcome = sandbox._execute(code, "check", {}, QUICK, disable=disable)
    assert outcome.result.ok, outcome
    assert outcome.result.value == [15, True, "1/3"]


@pytest.mark.parametrize("disable", [frozenset(), DEGRADED, KERNEL_ONLY], ids=["full", "degraded", "kernel-only"])
def test_standard_library_stays_importable_inside_the_sandbox(disable: frozenset[str]) -> None:
    """Landlock leaves the standard library, its extension modules and the shared libraries they load readable."""
    code = (
        "import collections, dataclasses, decimal, difflib, email.utils, fractions, itertools, statistics\n"
        "import string, tempfile, textwrap, typing, zoneinfo, pathlib, json, re, datetime\n"
        "import bz2, hashlib, lzma, sqlite3, unicodedata, uuid, zlib\n"
        "def check():\n"
        "    with tempfile.NamedTemporaryFile('w') as fh:\n"
        "        fh.write('x')\n"
        "    pathlib.Path('notes.txt').write_text('kept')\n"
        "    when = email.utils.parsedate_to_datetime('Tue, 04 Mar 2025 10:00:00 +0000')\n"
        "    paris = datetime.datetime(2025, 1, 1, tzinfo=zoneinfo.ZoneInfo('Europe/Paris')).isoformat()\n"
        "    db = sqlite3.connect(':memory:')\n"
        "    packed = [len(m.compress(b'a' * 100)) < 100 for m in (bz2, lzma, zlib)]\n"
        "    return [statistics.mean([1, 2]), when.isoformat(), str(decimal.Decimal('1.10')), paris,\n"
        "            db.execute('select 2 + 3').fetchone()[0], hashlib.sha256(b'').hexdigest()[:8], packed,\n"
        "            unicodedata.name('é'), pathlib.Path('notes.txt').read_text()]\n"
    )
    outcome = sandbox._execute(code, "check", {}, SandboxLimits(), disable=disable)
    assert outcome.result.ok, outcome
    assert outcome.result.value == [1.5, "2025-03-04T10:00:00+00:00", "1.10", "2025-01-01T00:00:00+01:00", 5,
                                    "e3b0c442", [True, True, True], "LATIN SMALL LETTER E WITH ACUTE", "kept"]


def test_concurrent_calls_get_separate_scratch_dirs() -> None:
    code = (
        "import os, time\n"
        "def check(n):\n"
        "    with open('mine.txt', 'w') as fh:\n"
        "        fh.write(str(n))\n"
        "    time.sleep(0.05)\n"
        "    with open('mine.txt') as fh:\n"
        "        return int(fh.read()) * 10 + len(os.listdir('.'))\n"
    )
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda n: run_sandboxed(code, "check", {"n": n}), range(8)))
    assert [r.value for r in results] == [n * 10 + 1 for n in range(8)]


def test_scratch_dir_is_the_writable_cwd_and_is_removed_afterwards(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A temp dir closed to other users (pytest's own is 0700) must not cost the per-run uid: in its mount namespace
    # the child covers the closed ancestor with a path only down to the run dir.
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    monkeypatch.setattr(tempfile, "tempdir", str(private))
    code = (
        "import os\n"
        "def check():\n"
        "    with open('notes.txt', 'w') as fh:\n"
        "        fh.write('draft')\n"
        "    os.mkdir('sub')\n"
        "    return {'cwd_entries': sorted(os.listdir('.')), 'cwd': os.getcwd(), 'uid': os.getuid()}\n"
    )
    outcome = sandbox._execute(code, "check", {}, SandboxLimits())
    assert outcome.result.ok, outcome
    assert outcome.result.value["cwd_entries"] == ["notes.txt", "sub"]
    assert outcome.result.value["cwd"].startswith(str(private) + "/")
    if "uid-drop" in isolation_layers():
        assert "uid-drop" in outcome.layers, outcome.missing
        assert outcome.result.value["uid"] != os.getuid()
    assert list(private.iterdir()) == []
    assert not Path(outcome.result.value["cwd"]).parent.exists()


def test_a_host_with_a_strict_umask_keeps_every_layer() -> None:
    """The child inherits the host's file-creation mask: under 0o027 (a hardened service's) the minimal root's folders
    were made 0o710 on main, which the per-run uid could not cross, so `uid-drop` went missing and every write to the
    scratch failed (EACCES). The child now sets its own mask before it makes anything."""
    code = "def check():\n    with open('notes.txt', 'w') as fh:\n        fh.write('x')\n    return 1\n"
    mask = os.umask(0o027)
    try:
        outcome = sandbox._execute(code, "check", {}, QUICK)
    finally:
        os.umask(mask)
    assert outcome.result.value == 1, outcome
    assert set(isolation_layers()) <= set(outcome.layers), outcome.missing


def test_user_errors_name_the_problem() -> None:
    missing = run_sandboxed("def other():\n    return 1\n", "check", {})
    assert (missing.error_kind, missing.error) == ("exception", "the code defines no function 'check'")
    syntax = run_sandboxed("def check(:\n", "check", {})
    assert syntax.error_kind == "exception" and syntax.error is not None and "SyntaxError" in syntax.error
    wrong_args = run_sandboxed("def check(state):\n    return 1\n", "check", {"audit": []})
    assert wrong_args.error_kind == "exception" and "TypeError" in (wrong_args.error or "")


def test_bad_calls_are_rejected_before_anything_runs() -> None:
    with pytest.raises(ValueError, match="identifier"):
        run_sandboxed("def check():\n    return 1\n", "not valid", {})
    with pytest.raises(ValueError, match="JSON"):
        run_sandboxed("def check(x):\n    return 1\n", "check", {"x": {1, 2}})
    with pytest.raises(ValueError, match="cpu_seconds"):
        SandboxLimits(cpu_seconds=0)


def test_isolation_layers_always_include_the_unprivileged_ones() -> None:
    layers = isolation_layers()
    assert {"rlimits"} <= set(layers)
    assert all(isinstance(layer, str) for layer in layers)


def _require(*layers: str) -> None:
    missing = set(layers) - set(isolation_layers())
    if missing:
        pytest.skip(f"this machine does not allow {sorted(missing)}")


def test_scratch_size_is_capped() -> None:
    _require("scratch-tmpfs")
    code = (
        "def check():\n"
        "    for i in range(64):\n"
        "        with open(f'part{i}', 'wb') as fh:\n"
        "            fh.write(b'x' * (900 * 1024))\n"
        "    return 1.0\n"
    )
    result = run_sandboxed(code, "check", {}, SandboxLimits(scratch_bytes=8 * 2**20))
    assert result.error_kind == "exception" and "No space left" in (result.error or ""), result


def test_kernel_blocks_the_network_even_without_the_audit_hook() -> None:
    _require("netns")
    code = (
        "import socket\n"
        "def check():\n"
        "    try:\n"
        "        socket.create_connection(('127.0.0.1', 22), timeout=1)\n"
        "    except OSError as exc:\n"
        "        return exc.errno\n"
    )
    result = sandbox._execute(code, "check", {}, QUICK, disable=frozenset({"hook", "seccomp"})).result
    assert result.ok and result.value == 101, result  # ENETUNREACH: the namespace has no interface up


def test_kernel_blocks_writes_outside_scratch_even_without_the_audit_hook(targets: dict[str, str]) -> None:
    _require("ro-root", "uid-drop")
    code = (
        "def check(tmp_target, **_):\n"
        "    try:\n"
        "        open(tmp_target, 'w').close()\n"
        "    except OSError as exc:\n"
        "        return exc.errno\n"
    )
    result = sandbox._execute(code, "check", dict(targets), QUICK, disable=frozenset({"hook"})).result
    assert result.ok and result.value == 30, result  # EROFS: the root file system is read-only in there
    assert not Path(targets["tmp_target"]).exists()


# Native code (the hook off) mapping one page per GiB of address space: each page costs a page-table page and a
# page-directory page of kernel memory, which RLIMIT_AS never counts (500 MB of them under a 256 MiB limit).
SCATTERED_PAGES = """
import ctypes, mmap
def check():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | 0x100000  # MAP_FIXED_NOREPLACE
    pages, address = 0, 1 << 40
    while address < (1 << 47) - (1 << 30):
        got = libc.mmap(address, 4096, mmap.PROT_READ | mmap.PROT_WRITE, flags, -1, 0)
        address += 1 << 30
        if got is None or got == ctypes.c_void_p(-1).value:
            if ctypes.get_errno() == 12:  # ENOMEM: the address space limit or vm.max_map_count
                break
            continue
        ctypes.c_char.from_address(got).value = b"x"
        pages += 1
    return pages
"""


def test_the_memory_cgroup_counts_the_kernel_memory_the_address_space_limit_does_not(host_watch: HostWatch) -> None:
    _require("memory-cgroup")
    # ~0.5 s of CPU on an idle machine; a 2 s backstop was met first once in a whole-suite run at load ~3.
    limits = replace(QUICK, cpu_seconds=6, wall_seconds=30)
    outcome = sandbox._execute(SCATTERED_PAGES, "check", {}, limits, disable=frozenset({"hook"}))
    assert outcome.result.error_kind == "memory_limit", outcome
    assert "cgroup" in (outcome.result.error or "")
    assert len(host_watch.run_dirs) == 1
    for controller in ("memory", "pids"):  # the run's groups are gone
        base, _, _ = _cgroup._own_cgroup(controller)
        assert base is None or not os.path.exists(os.path.join(base, os.path.basename(host_watch.run_dirs[0])))


def test_the_code_stays_in_its_memory_cgroup_with_only_landlock_and_seccomp_in_the_way() -> None:
    """The corpus's kernel-only set has no cgroup (an unprivileged host): here the group exists, the host's files
    with it, and the hook, the minimal root and the per-run uid are off."""
    _require("memory-cgroup", "landlock")
    code = (CORPUS / "cgroup_move_out_or_rewrite_limits.py").read_text()
    outcome = sandbox._execute(code, "check", {}, QUICK, disable=frozenset({"hook", "mountns", "uid"}))
    assert "memory-cgroup" in outcome.layers and outcome.result.value == 1, outcome


def test_a_run_cgroup_goes_with_the_sub_groups_made_in_it() -> None:
    _require("memory-cgroup", "pids-cgroup")
    made = _cgroup.make_run_cgroups(f"coworkenv-sandbox-test-{uuid.uuid4().hex}", 64 * 2**20, 4)
    assert made.groups and not made.missing, made
    for group in made.groups:
        os.makedirs(os.path.join(group.path, "left", "deeper"))  # what code that reached the group could leave
        _cgroup.remove_run_cgroup(group)
        assert not os.path.exists(group.path)


@pytest.mark.parametrize("version", [1, 2])
def test_run_cgroups_carry_each_controllers_limit_in_its_own_hierarchy(
    version: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """cgroup v1 mounts each controller apart: one group per controller; a v2 group carries both limits."""
    bases = {c: tmp_path / (c if version == 1 else "unified") for c in ("memory", "pids")}
    for base in bases.values():
        base.mkdir(exist_ok=True)
    monkeypatch.setattr(_cgroup, "_own_cgroup", lambda controller: (str(bases[controller]), version, ""))
    made = _cgroup.make_run_cgroups("run", 300, 8)
    assert not made.missing and len(made.groups) == (2 if version == 1 else 1)
    limit = (bases["memory"] / "run" / ("memory.limit_in_bytes" if version == 1 else "memory.max")).read_text()
    assert (limit, (bases["pids"] / "run" / "pids.max").read_text()) == ("300", "8")
    assert made.joins() == {"memory-cgroup": str(bases["memory"] / "run" / "cgroup.procs"),
                            "pids-cgroup": str(bases["pids"] / "run" / "cgroup.procs")}
    memory = made.memory()
    assert memory is not None and memory.path == str(bases["memory"] / "run")


@pytest.mark.parametrize("absent", ["memory", "pids"])
def test_without_a_cgroup_controller_the_run_goes_on_and_says_why(absent: str, monkeypatch: pytest.MonkeyPatch) -> None:
    own = _cgroup._own_cgroup
    monkeypatch.setattr(_cgroup, "_own_cgroup", lambda controller: (None, 0, f"no {controller} cgroup controller is "
                                                                    "mounted") if controller == absent else own(controller))
    outcome = sandbox._execute("def check():\n    return 1\n", "check", {}, QUICK)
    layer = f"{absent}-cgroup"
    assert outcome.result.value == 1 and layer not in outcome.layers
    assert outcome.missing[layer] == f"no {absent} cgroup controller is mounted"


# Native threads with the smallest stacks glibc takes, until none starts (at most 3000: each one is a pid of the
# machine's while it lives).
NATIVE_THREADS = """
import ctypes
def check():
    libc = ctypes.CDLL(None, use_errno=True)
    attr = ctypes.create_string_buffer(64)
    libc.pthread_attr_init(attr)
    libc.pthread_attr_setstacksize(attr, ctypes.c_size_t(16384))
    thread = ctypes.c_ulong()
    started = 0
    while started < 3000 and libc.pthread_create(ctypes.byref(thread), attr, libc.pause, None) == 0:
        started += 1
    return started
"""


@pytest.mark.parametrize("disable", [frozenset({"uid"}), frozenset({"uid", "hook"})], ids=["uid-kept", "uid-kept-native"])
def test_the_pids_cgroup_caps_threads_whatever_the_uid(disable: frozenset[str]) -> None:
    """RLIMIT_NPROC never binds uid 0, which the child keeps without the per-run uid: before the pids cgroup, 803
    Python threads and 3000 native ones (all the probe asked for) started under `max_processes=8`."""
    _require("pids-cgroup")
    limits = replace(QUICK, wall_seconds=10, max_processes=8, max_threads=0)
    code = NATIVE_THREADS if "hook" in disable else (CORPUS / "threads_exhaust_the_machines_pids.py").read_text()
    outcome = sandbox._execute(code, "check", {}, limits, disable=disable)
    assert "pids-cgroup" in outcome.layers and "uid-drop" not in outcome.layers, outcome
    assert outcome.result.value == 7, outcome  # eight tasks: the main thread and seven more


def test_host_survives_and_keeps_working_after_the_corpus() -> None:
    assert run_sandboxed("def check():\n    return 'still here'\n", "check", {}).value == "still here"


def test_a_large_host_does_not_turn_crashes_into_memory_limits() -> None:
    """Linux hands the host's peak RSS to the child's ru_maxrss; a crash must still read as a crash."""
    script = (
        "import sys, os\n"
        "ballast = bytearray(600 * 2**20)\n"
        "for i in range(0, len(ballast), 4096): ballast[i] = 1\n"
        "from coworkenv.sandbox import run_sandboxed\n"
        "code = 'import os, signal\\ndef check():\\n    os.kill(os.getpid(), signal.SIGSEGV)\\n'\n"
        "print(run_sandboxed(code, 'check', {}).error_kind)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert out.stdout.strip() == "crashed", out.stderr[-2000:]


# One refusal of every kind the audit hook reports: each must reach the host as the hook's own violation (the host
# drops a violation line in any form the hook never writes as the code's own, fortieth round), so a reason the
# hook gains without the host's grammar (`_host._HOOK_REASONS`) shows here as a violation gone missing.
EVERY_REFUSAL = """import importlib.machinery, importlib.util, marshal, os, resource, signal, sqlite3, sys, types, ast, fcntl, urllib.request
ATTEMPTS = [
    lambda: open("/etc/passwd").read(),
    lambda: os.listdir("/etc"),
    lambda: open("/tmp/sandbox-refusal-probe", "w"),
    lambda: os.rename("a", "b", src_dir_fd=5),
    lambda: sqlite3.connect("file:x.db?mode=ro&mode=rw", uri=True),
    lambda: sqlite3.connect("file:x.db?vfs=unix", uri=True),
    lambda: sqlite3.connect("file://host/x.db", uri=True),
    lambda: os.putenv("LD_PRELOAD", "x"),
    lambda: os.unsetenv("TZ"),
    lambda: os.kill(1, 0),
    lambda: marshal.loads(marshal.dumps(1)),
    lambda: compile(ast.parse("1"), "x", "eval"),
    lambda: sys.settrace(lambda *a: None),
    lambda: (lambda: 0).__code__.replace(co_flags=0),
    lambda: __import__("ctypes"),
    lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (65, 65)),
    lambda: os.chdir("/"),
    lambda: urllib.request.urlopen("http://example.com"),
    lambda: os.symlink("/etc/passwd", "link"),
    lambda: os.open(os.path.dirname(os.__file__), os.O_RDONLY),
    lambda: os.unsetenv("LD_LIBRARY_PATH"),
    lambda: native("m" + importlib.machinery.EXTENSION_SUFFIXES[0], "m"),
    lambda: native(os.path.join(os.path.dirname(os.__file__), "lib-dynload", "_ctypes" + importlib.machinery.EXTENSION_SUFFIXES[0]), "other"),
    lambda: fcntl.fcntl(0, fcntl.F_SETOWN, 1),
    lambda: os.putenv("TZ", "/etc/../etc/localtime"),
    lambda: os.mkdir("/tmp/../tmp/x"),
    lambda: __import__("_testcapi"),
    lambda: sys.audit("socket.connect", None, ("1.2.3.4", 80)),
]


def native(path, name):
    if not path.startswith("/"):
        open(path, "wb").close()
    spec = importlib.util.spec_from_file_location(name, path)
    return importlib.util.module_from_spec(spec)


def check():
    seen = []
    for attempt in ATTEMPTS:
        try:
            attempt()
            seen.append("ran")
        except Exception as exc:
            seen.append(type(exc).__name__)
    return seen
"""


def test_every_refusal_the_hook_reports_reads_as_its_own_violation() -> None:
    outcome = sandbox._execute(EVERY_REFUSAL, "check", {}, QUICK)
    attempts = EVERY_REFUSAL.count("\n    lambda:")  # one a line
    assert outcome.result.error_kind == "forbidden", outcome
    assert len(outcome.violations) == attempts, outcome.violations


@pytest.mark.parametrize(("line", "hooks"), [
    ("importing ctypes", True),
    ("importing 'ctypes. score 100'", True),
    ("importing ctypes. score 100", False),  # a name that is no identifier is quoted by the hook
    ("'socket.\\x1b[2J'", True),
    ("socket.connect", True),
    ("approved", False),  # a refused event's name has a dot
    ("'score 100, approved'", False),
    ("reading '/etc/shadow' outside the scratch directory and the standard library", True),
    ("reading '/etc/shadow -- score 100 outside the scratch directory and the standard library", False),  # open quote
    ("reading '" + "a" * 119 + " outside the scratch directory and the standard library", True),  # cut at 120
    ("reading '/etc/passwd\u202e' outside the scratch directory and the standard library", False),  # repr escapes it
    ("reading '/etc/passwd\n' outside the scratch directory and the standard library", False),
    ("sqlite3.connect to a URI with the parameter 'mode' twice", True),
    ("the check passed", False),
    ("wall-clock limit of 3s exceeded", False),
])
def test_the_host_takes_a_violation_line_only_in_a_form_the_hook_writes(line: str, hooks: bool) -> None:
    from coworkenv.sandbox import _host

    assert _host._hook_wrote(line) is hooks
