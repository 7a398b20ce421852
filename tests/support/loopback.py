"""Servers that tests start on 127.0.0.1: a free port, and waiting until one listens."""

from __future__ import annotations

import socket
import subprocess
import time


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_listening(port: int, proc: subprocess.Popen[bytes], timeout_s: float = 60) -> None:
    """Wait until something listens on 127.0.0.1:`port`; fail at once with its stderr if `proc` exits first."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else "server exited"
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise AssertionError(f"server did not listen on 127.0.0.1:{port}")
