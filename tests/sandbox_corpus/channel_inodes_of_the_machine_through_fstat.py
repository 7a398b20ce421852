# expect: ok
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# The host makes the run's standard streams and channels (pipes and sockets) just before the spawn, and their inode
# numbers come from one counter of the machine's (get_next_ino), which every pipe, socket and anonymous file the host
# and other runs make moves: os.fstat of descriptors 0-4 (no audit event, no path) read where the machine stood at the
# spawn (two runs with 5000 host pipes between them read 6115 apart), a gauge of the host's activity read once per
# run; a pipe's access and change times tell when the host last read it. Every route to a number: os.fstat, os.stat
# of the number, the streams' fileno(), os.path.sameopenfile. None may answer a host channel's identity.
import os
import stat
import sys


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    seen = {}
    routes = {f"fstat({fd})": lambda fd=fd: os.fstat(fd) for fd in range(5)}
    routes.update({f"stat({fd})": lambda fd=fd: os.stat(fd) for fd in range(5)})
    for name in ("stdin", "stdout", "stderr", "__stdin__", "__stdout__", "__stderr__"):
        stream = getattr(sys, name)
        if stream is not None:
            routes[name] = lambda stream=stream: os.fstat(stream.fileno())
    for name, route in routes.items():
        try:
            st = route()
        except (OSError, ValueError):
            continue
        if stat.S_ISFIFO(st.st_mode) or stat.S_ISSOCK(st.st_mode):
            seen[name] = st.st_ino
    try:
        if os.path.sameopenfile(1, 2):
            seen["sameopenfile(1, 2)"] = True
    except OSError:
        pass
    return leak(f"the machine's inode counter through the host's channels: {seen}") if seen else 1
