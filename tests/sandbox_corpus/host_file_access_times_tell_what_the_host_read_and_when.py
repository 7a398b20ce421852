# expect: ok
# value: 1
# needs: mountns,scratch-tmpfs
# ruff: noqa: SIM105, SIM115
# The host's files that the run may read (the standard library, its byte code, zoneinfo, the libraries) keep their
# access times, which the kernel moves on a read at most once a day (`relatime`): os.stat, os.lstat, os.fstat, a
# directory entry's stat and pathlib (no audit event) read when the host, or another run, last read each of them.
# json/__init__.py's read 73 s before, in every set: which modules the host imported lately and when (a gauge of
# what the verifier runs, and of the uptime the time namespace hides), a bit per file per day between runs. The full
# set binds them read-only, so a run's own reads move nothing; their access times must read as their modification
# times, as on a mount that keeps none (the run's own files keep theirs).
import importlib.util
import os
import pathlib
import sys


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    seen = {}
    files, stdlib = [], os.path.dirname(os.__file__) + "/"
    for module in list(sys.modules.values()):  # what the host imported too: their sources and byte code
        source = getattr(module, "__file__", None)
        if isinstance(source, str) and source.startswith(stdlib) and source.endswith(".py"):
            files += [source, importlib.util.cache_from_source(source)]
    for folder in {os.path.dirname(name) for name in files}:
        try:
            entries = [entry for entry in os.scandir(folder) if entry.name.endswith(".pyc")]
        except OSError:
            continue
        for entry in entries[:200]:
            try:
                st = entry.stat()
            except OSError:
                continue
            if st.st_atime_ns != st.st_mtime_ns:
                seen.setdefault("entry", f"{entry.path} read {st.st_atime - st.st_mtime:.0f} s after its change")
    for path in files:
        ways = (("stat", os.stat), ("lstat", os.lstat), ("pathlib", lambda name: pathlib.Path(name).stat()))
        for how, ask in ways:
            try:
                st = ask(path)
            except OSError:
                continue
            if st.st_atime_ns != st.st_mtime_ns:
                seen.setdefault(how, f"{path} read {st.st_atime - st.st_mtime:.0f} s after its change")
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            st = os.fstat(fd)
            if st.st_atime_ns != st.st_mtime_ns:
                seen.setdefault("fstat", f"{path} read {st.st_atime - st.st_mtime:.0f} s after its change")
        finally:
            os.close(fd)
    # The run's own files keep the times it sets.
    with open("mine", "w") as fh:
        fh.write("x")
    os.utime("mine", ns=(1_000_000_000, 2_000_000_000))
    mine = os.stat("mine")
    if (mine.st_atime_ns, mine.st_mtime_ns) != (1_000_000_000, 2_000_000_000):
        return f"the scratch's own access time changed: {mine.st_atime_ns}, {mine.st_mtime_ns}"
    return leak(f"the host's reads of its files: {seen}") if seen else 1
