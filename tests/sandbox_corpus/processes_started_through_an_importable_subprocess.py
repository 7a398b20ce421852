# expect: forbidden
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105
# `import subprocess` now succeeds (asyncio and unittest.mock need it): every way it starts a process must still be
# refused, and reported where the hook runs: `run` with pipes (a pipe is made before the process, refused by seccomp
# unreported: the hook's `subprocess.Popen` must come first), `call`, `Popen`, `os.popen`,
# `asyncio.create_subprocess_exec`, subprocess's own `_fork_exec` (the stand-in's, which imports the real one),
# `_posixsubprocess` imported after subprocess, and the stand-in taken out of `sys.modules` while subprocess
# imports (gone afterwards). A process that ran would leave a file in the scratch.
import os


def check(**p):
    import sys

    marker = os.path.abspath("started")
    command = ["/bin/sh", "-c", f"echo SANDBOX-ESCAPED > {marker}"]
    import subprocess

    stand_in = sys.modules.get("_posixsubprocess")
    attempts = [
        lambda: subprocess.run(command, capture_output=True),
        lambda: subprocess.call(command),
        lambda: subprocess.Popen(command, stdout=subprocess.PIPE).wait(),
        lambda: os.popen(command[-1]).read(),
        lambda: subprocess._fork_exec(command, [c.encode() for c in command], True, (), None, None, -1, -1, -1, -1,
                                      -1, -1, -1, -1, False, False, None, None, None, -1, None, False, 0),
        lambda: __import__("_posixsubprocess").fork_exec,
    ]

    async def spawn():
        process = await asyncio.create_subprocess_exec(*command)
        return await process.wait()

    import asyncio

    attempts.append(lambda: asyncio.run(spawn()))
    for attempt in attempts:
        try:
            attempt()
        except Exception:
            pass
    if os.path.exists(marker):
        return "SANDBOX-ESCAPED a process ran"
    return 1 if stand_in is None or stand_in is sys.modules.get("_posixsubprocess") else repr(stand_in)
