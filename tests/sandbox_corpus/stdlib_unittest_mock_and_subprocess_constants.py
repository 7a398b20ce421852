# expect: ok
# expect-kernel: ok
# value: 1
# A false positive, not an escape: `from unittest import mock` (a grader patching what an agent's function calls)
# imports asyncio, which imports subprocess: `forbidden` in every set with the hook, working with the kernel layers
# alone. `import subprocess` at a grader's top (for `CalledProcessError`, `list2cmdline`, a branch never taken) was
# refused alike. subprocess imports now (its `_posixsubprocess` a stand-in while it imports, whose `fork_exec`
# imports the refused real one); starting a process stays refused (`processes_started_through_an_importable_subprocess`).
import subprocess
from unittest import mock


def check(**p):
    import asyncio
    import os

    patched = mock.MagicMock(return_value=3)
    with mock.patch("os.getcwd", return_value="/agent") as getcwd:
        cwd = os.getcwd()
    awaited = asyncio.run(mock.AsyncMock(return_value=5)())
    error = subprocess.CalledProcessError(2, ["x"], output="o")
    found = [patched(1), patched.call_args.args, cwd, getcwd.called, awaited, subprocess.list2cmdline(["a b", "c"]),
             error.returncode, str(error), subprocess.PIPE, subprocess.CompletedProcess(["x"], 0).returncode]
    expected = [3, (1,), "/agent", True, 5, '"a b" c', 2, "Command '['x']' returned non-zero exit status 2.", -1, 0]
    return 1 if found == expected else repr(found)
