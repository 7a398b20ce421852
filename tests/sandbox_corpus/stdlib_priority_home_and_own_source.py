# expect: ok
# expect-kernel: ok
# value: 1
# A false positive, not an escape, alike in every set (three classes of harmless calls that failed in all four):
# - `os.nice(0)` (a grader reading its priority), `os.nice(5)` (one lowering it), `os.getpriority` of itself: OSError
#   (ENOSYS: seccomp keeps the host's nice value unread). They answer a value of the run's own now: 0 at the start,
#   raised by nice and setpriority up to 19, never lowered (EPERM, as for an unprivileged process);
# - `pathlib.Path.home()` raised RuntimeError and `os.path.expanduser("~")` answered "~" (no HOME, no account): the
#   code's home is its scratch;
# - `inspect.getsource` of the code's own function raised OSError and of its own class TypeError ("is a built-in
#   class": its module had no `__file__`), and tracebacks showed no line of the code: its source is linecache's
#   under its file name (`<sandboxed>`), which its module names.
import inspect
import os
import pathlib
import traceback


class Grader:
    def score(self):
        return 1


def helper(x):
    return x + 1


def check(**p):
    start = os.nice(0)
    lowered = os.nice(5)
    try:
        os.nice(-1)
        raised = "lowered"
    except PermissionError:
        raised = "PermissionError"
    os.setpriority(os.PRIO_PROCESS, 0, 7)
    priority = os.getpriority(os.PRIO_PROCESS, 0)
    home = pathlib.Path.home()
    (home / ".cache").mkdir(exist_ok=True)
    (home / ".cache" / "x").write_text("y")
    try:
        helper(None)
    except TypeError:
        shown = traceback.format_exc()
    found = [start, lowered, raised, priority, str(home) == os.getcwd(), os.path.expanduser("~/a") == os.path.join(os.getcwd(), "a"),
             (pathlib.Path.cwd() / ".cache" / "x").read_text(), inspect.getsource(helper).splitlines()[0],
             inspect.getsource(Grader).splitlines()[0], inspect.getsourcelines(Grader.score)[1],
             "return x + 1" in shown, os.path.basename(__file__)]
    expected = [0, 5, "PermissionError", 7, True, True, "y", "def helper(x):", "class Grader:", 20, True, "<sandboxed>"]
    return 1 if found == expected else repr(found)
