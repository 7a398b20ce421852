"""`python -c CODE` with stdin, a time bound and the exit code, but in a child forked from one interpreter that
imported the given modules once: for tests that run many small cases each in a process of its own (so that a case
that hangs is cut off), whose fresh interpreters paid the project's imports every time.

The server is a fresh interpreter of its own (never a fork of the test process, whose threads may hold locks). Each
child gets its own process group, stdin from the request, stdout and stderr into files, and exits as `python -c`
does: 0, SystemExit's code, or 1 with the traceback on stderr. A child past its bound is killed, group and all, and
`subprocess.TimeoutExpired` raised, as `subprocess.run(..., timeout=)` does.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_SERVE = r"""
import contextlib, importlib, json, os, sys, traceback
for name in sys.argv[1:]:
    importlib.import_module(name)
for line in sys.stdin:
    with contextlib.suppress(ChildProcessError):  # the waiters of children started side by side that have ended
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    request = json.loads(line)
    sys.stdout.flush()
    sys.stderr.flush()
    status_file = request.get("status")
    if status_file and os.fork():
        continue  # a waiter answers with the child's pid and writes its exit code into `status_file`
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.setsid()
            for fd, path, flags in ((0, request["stdin"], os.O_RDONLY),
                                    (1, request["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
                                    (2, request["err"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)):
                if fd == 2 and path == request["out"]:  # stderr into stdout's file, as `2>&1` (one offset)
                    os.dup2(1, 2)
                    continue
                opened = os.open(path, flags, 0o644)
                os.dup2(opened, fd)
                os.close(opened)
            # New objects on the new descriptors (the server's stdin object may hold lines read ahead).
            sys.stdin = open(0, closefd=False)
            sys.stdout = open(1, "w", closefd=False)
            sys.stderr = open(2, "w", closefd=False)
            exec(compile(request["code"], "<string>", "exec"), {"__name__": "__main__"})
            code = 0
        except SystemExit as done:
            if done.code is None or isinstance(done.code, int):
                code = done.code or 0
            else:
                print(done.code, file=sys.stderr)
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    print(json.dumps({"pid": pid}), flush=True)
    _, status = os.waitpid(pid, 0)
    if status_file:  # the waiter: the exit code written whole, then gone
        with open(status_file + ".part", "w") as written:
            written.write(str(os.waitstatus_to_exitcode(status)))
        os.rename(status_file + ".part", status_file)
        os._exit(0)
    print(json.dumps({"returncode": os.waitstatus_to_exitcode(status)}), flush=True)
"""


class PreloadedPython:
    """A server that imported `modules` (run from `cwd`, as `python -c` there would); `run` each case; `close`."""

    def __init__(self, modules: tuple[str, ...], cwd: Path, env: dict[str, str] | None = None,
                 folder: Path | None = None) -> None:
        """`env`: the server's environment (default: this process's); `folder`: where each run's stdin, stdout and
        stderr files go (default: a temporary folder, removed by `close`)."""
        self.own_folder = folder is None
        self.folder = Path(tempfile.mkdtemp(prefix="preloaded-python-")) if folder is None else folder
        self.runs = 0
        # Its answers unbuffered here, so that `select` on the pipe sees every line not yet read.
        self.process = subprocess.Popen([sys.executable, "-c", _SERVE, *modules], cwd=cwd, env=env,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)

    def start(self, code: str, output: Path, stdin: str = "") -> Started:
        """Start `code` in a forked child and return at once (one child of this server at a time; start several
        servers for children side by side): its stdout and stderr both go to `output`, as `subprocess.Popen(...,
        stdout=open(output, "wb"), stderr=subprocess.STDOUT)` writes them."""
        self.runs += 1
        stdin_path = self.folder / f"{self.runs}.stdin"
        stdin_path.write_text(stdin)
        return Started(self, self._request(code, {"stdin": stdin_path, "out": output, "err": output}))

    def start_beside(self, code: str, stdin: str = "") -> Beside:
        """Start `code` in a forked child and return at once, as `subprocess.Popen(..., stdout=PIPE, stderr=PIPE,
        text=True)` does; any number of them side by side. Each is forked by a waiter of its own (itself a fork of
        the server), which writes the child's exit code into a file when it ends: the server is free again at once."""
        self.runs += 1
        paths = {name: self.folder / f"{self.runs}.{name}" for name in ("stdin", "out", "err", "status")}
        paths["stdin"].write_text(stdin)
        return Beside(self._request(code, paths), paths["status"], paths)

    def _request(self, code: str, paths: dict[str, Path]) -> int:
        """Send one request; the child's pid."""
        assert self.process.stdin is not None and self.process.stdout is not None
        request = json.dumps({"code": code, **{k: str(v) for k, v in paths.items()}}) + "\n"
        self.process.stdin.write(request.encode())
        pid: int = json.loads(self._line())["pid"]
        return pid

    def run(self, code: str, stdin: str, timeout: float) -> subprocess.CompletedProcess[str]:
        assert self.process.stdout is not None
        self.runs += 1
        paths = {name: self.folder / f"{self.runs}.{name}" for name in ("stdin", "out", "err")}
        paths["stdin"].write_text(stdin)
        pid = self._request(code, paths)
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        timed_out = not ready
        if timed_out:
            with contextlib.suppress(ProcessLookupError):  # it ended just now
                os.killpg(pid, signal.SIGKILL)
        returncode = json.loads(self._line())["returncode"]
        if timed_out:
            raise subprocess.TimeoutExpired(["python", "-c", code], timeout)
        return subprocess.CompletedProcess(["python", "-c", code], returncode, paths["out"].read_text(),
                                           paths["err"].read_text())

    def _line(self) -> str:
        assert self.process.stdout is not None
        line = b""
        while not line.endswith(b"\n"):
            byte = os.read(self.process.stdout.fileno(), 1)
            assert byte, f"the server ended with {self.process.wait()}"
            line += byte
        return line.decode()

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=60)
        if self.own_folder:
            shutil.rmtree(self.folder, ignore_errors=True)


class Started:
    """A child of `PreloadedPython.start`, answering as much of `subprocess.Popen` as a test that waits on a child
    asks: `pid`, `poll()`, `wait(timeout)` (`subprocess.TimeoutExpired` past it; the child goes on running)."""

    def __init__(self, server: PreloadedPython, pid: int) -> None:
        self.server = server
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        return self.wait(0.0) if self.returncode is None and self._ended(0.0) else self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            if not self._ended(timeout):
                raise subprocess.TimeoutExpired(["python", "-c", "..."], timeout or 0.0)
            self.returncode = int(json.loads(self.server._line())["returncode"])
        return self.returncode

    def kill(self) -> None:
        """SIGKILL the child's process group unless it has ended, and wait for it (its server is free again)."""
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):  # it ended just now
                os.killpg(self.pid, signal.SIGKILL)
            self.wait()

    def _ended(self, timeout: float | None) -> bool:
        """Whether the server has said the child ended (its line waits on the pipe), waiting up to `timeout`."""
        stdout = self.server.process.stdout
        assert stdout is not None
        ready, _, _ = select.select([stdout], [], [], timeout)
        return bool(ready)


class Beside:
    """A child of `PreloadedPython.start_beside`, answering as much of `subprocess.Popen` as a test that runs children
    side by side asks: `pid`, `returncode`, `poll()`, `send_signal()`, `communicate(timeout)` (stdout and stderr, read
    once it ended; `subprocess.TimeoutExpired` past the timeout, the child going on), and `stderr`, None (what the
    child wrote is read by `communicate`). Its end is seen by the file `status` its waiter writes (read, then
    removed), looked for every 20 ms."""

    stderr = None

    def __init__(self, pid: int, status: Path, paths: dict[str, Path] | None = None) -> None:
        self.pid = pid
        self.status = status
        self.paths = paths or {}
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None and self.status.exists():
            self.returncode = int(self.status.read_text())
            self.status.unlink()
        return self.returncode

    def send_signal(self, signo: int) -> None:
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):  # it ended just now
                os.kill(self.pid, signo)

    def wait_ended(self, deadline: float, timeout: float | None) -> int:
        """The exit code, once the status file is there; `subprocess.TimeoutExpired` past `deadline`."""
        while (code := self.poll()) is None:
            if time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(["python", "-c", "..."], timeout or 0.0)
            time.sleep(0.02)
        return code

    def communicate(self, timeout: float | None = None) -> tuple[str, str]:
        self.wait_ended(time.monotonic() + (timeout if timeout is not None else 1e9), timeout)
        return self.paths["out"].read_text(), self.paths["err"].read_text()
