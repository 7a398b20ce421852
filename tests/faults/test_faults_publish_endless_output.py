"""Fault corpus, a clean or smudge filter of the local dataset repository's whose output never ends: a program looping
on its output (`yes`), one reading a device (`cat /dev/zero`), a misconfigured `filter.X.clean` that names the wrong
program. git holds a filter's whole output of a file in memory before it stores it (clean) or writes it (smudge), so
such a filter made git's memory grow until the machine had none left: on a shared machine the kernel's OOM killer
then stops whichever process it picks (another user's training, a database), and the publish never ended. The
publish's watch (`run_watched`, faults44) took every byte the filter wrote for progress, so it never stopped it.

Now a git command that runs the repository's filters is stopped, with what it started, once its processes hold more
memory than COWORKENV_FILTER_MAX_MEMORY_MB (half of what this machine, or its container, may use, by default), and the
publish says which filter, where, and what to do; the folder is put back on its last version, and no lock is left.

On `main` each publish ran until git had no memory left (run there under `ulimit -v`, git died with "Out of memory,
realloc failed" and the publish blamed "the repository state"); without a limit it takes the machine's memory."""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from coworkenv.store import PublishError
from tests.faults.harness import (
    copied_repo,
    ended,
    filter_x,
    git_quiet,
    publish_version,
    published_once,
    version_folders,
)

LIMIT_MB = "64"  # the test's memory limit: git passes it within a poll of `yes` (about 1 GB/s)


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return version_folders(tmp_path_factory, "weights.bin")


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory, folders: dict[str, Path]) -> Path:
    """A repository holding v1, published once for the module; each case works on a copy."""
    return published_once(tmp_path_factory, folders)


@pytest.fixture()
def repo(tmp_path: Path, published: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    copy = copied_repo(published, tmp_path)
    monkeypatch.setenv("COWORKENV_FILTER_MAX_MEMORY_MB", LIMIT_MB)
    return copy


def _ends(call: Callable[[], object], within_s: float = 20.0) -> object:
    return ended(call, within_s, "the publish runs on")[0]


def _endless(tmp_path: Path, output: str) -> Path:
    """A filter program whose output never ends (`output`: the command it runs)."""
    program = tmp_path / "writes-for-ever"
    program.write_text(f"#!/bin/sh\nexec {output}\n")
    program.chmod(0o755)
    return program


def _told_memory(told: str, program: Path, setting: str, repo: Path) -> None:
    assert f"filter.x.{setting} = `{program}`" in told and str(repo) in told
    assert f"over the limit of {LIMIT_MB} MiB" in told and "COWORKENV_FILTER_MAX_MEMORY_MB" in told
    assert "output of a file" in told and "stopped it" in told
    assert f"git -C {repo} config --remove-section filter.x" in told
    assert "nothing was published" in told
    assert "fix the repository state" not in told


def _no_filter_left(program: Path) -> None:
    found = subprocess.run(["pgrep", "-f", str(program)], capture_output=True, text=True)
    assert found.stdout == "", "the filter was left running"


@pytest.mark.parametrize("output", ["yes", "cat /dev/zero"])
def test_a_clean_filter_whose_output_never_ends_is_stopped_by_its_memory_and_named(
        tmp_path: Path, repo: Path, folders: dict[str, Path], output: str) -> None:
    program = _endless(tmp_path, output)
    filter_x(repo, clean=str(program))
    failed = _ends(lambda: publish_version(repo, folders, "v2"))
    assert isinstance(failed, PublishError), failed
    _told_memory(str(failed), program, "clean", repo)
    assert git_quiet(repo, "tag", "--list").split() == ["v1"]
    assert git_quiet(repo, "rev-parse", "HEAD") == git_quiet(repo, "rev-parse", "v1^{commit}")
    assert (repo / "weights.bin").read_text() == "v1 weights\n"  # what readers of the folder load
    assert not list((repo / ".git").glob("*.lock")), "a lock file was left"
    _no_filter_left(program)
    # What the message says: with the filter removed, the version publishes.
    git_quiet(repo, "config", "--remove-section", "filter.x")
    assert publish_version(repo, folders, "v2").tag == "v2"
    assert (repo / "weights.bin").read_text() == "v2 weights\n"


def test_a_smudge_filter_whose_output_never_ends_is_stopped_when_a_version_is_published_again(
        tmp_path: Path, repo: Path, folders: dict[str, Path]) -> None:
    """v1 published again after v2: the folder is written from v1's tree (`read-tree -u`), through the smudge."""
    publish_version(repo, folders, "v2")
    program = _endless(tmp_path, "yes")
    filter_x(repo, clean="cat", smudge=str(program))
    failed = _ends(lambda: publish_version(repo, folders, "v1"))
    assert isinstance(failed, PublishError), failed
    _told_memory(str(failed), program, "smudge", repo)
    assert git_quiet(repo, "rev-parse", "HEAD") == git_quiet(repo, "rev-parse", "v2^{commit}")
    assert (repo / "weights.bin").read_text() == "v2 weights\n"  # put back, without the smudge
    assert not list((repo / ".git").glob("*.lock")), "a lock file was left"
    _no_filter_left(program)
    git_quiet(repo, "config", "--remove-section", "filter.x")
    assert publish_version(repo, folders, "v1").tag == "v1"
    assert (repo / "weights.bin").read_text() == "v1 weights\n"


def test_a_filter_that_logs_for_ever_is_stopped_by_what_it_wrote_and_named(
        repo: Path, folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """A filter in a retry loop that says so at each try, on its error output (git's, which goes to a file of the
    temporary folder): it does something at every look, so it never stalled; on `main` the publish never ended and
    the file grew (a few MB a second here, GB with `yes >&2`) until the disk was full. The limit is 64 MiB; the case
    makes it 1 MiB so that its writer, slowed down by the shell, reaches it in well under a second."""
    from coworkenv.store import _git_filter

    monkeypatch.setattr(_git_filter, "ERROR_OUTPUT_LIMIT", 1 << 20, raising=False)
    loop = "while :; do echo 'lfs: connection refused, retrying' >&2; done"
    filter_x(repo, clean=f"sh -c \"{loop}\"")
    failed = _ends(lambda: publish_version(repo, folders, "v2"))
    assert isinstance(failed, PublishError), failed
    told = str(failed)
    assert "filter.x.clean = `sh -c" in told and "messages to its error output, over the limit of 1 MiB" in told
    assert "logs for ever" in told and f"git -C {repo} config --remove-section filter.x" in told
    assert "nothing was published" in told
    assert git_quiet(repo, "tag", "--list").split() == ["v1"]
    assert (repo / "weights.bin").read_text() == "v1 weights\n"
    assert not list((repo / ".git").glob("*.lock")), "a lock file was left"
    found = subprocess.run(["pgrep", "-f", "connection refused, retrying"], capture_output=True, text=True)
    assert found.stdout == "", "the filter was left running"


def test_what_a_filter_logs_for_ever_takes_no_disk(
        tmp_path: Path, repo: Path, folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """`yes >&2` in a filter: git's error output went to a file of the temporary folder, measured by a look every
    0.25 s at most; under load a look came late and the file took gigabytes (as the hook's did). Now it goes to a pipe
    read by the publish: the filter's error output is no file at any look (on `main`: a file)."""
    from coworkenv.store import _git_filter

    monkeypatch.setattr(_git_filter, "ERROR_OUTPUT_LIMIT", 8 << 20, raising=False)
    pid_file = tmp_path / "filter.pid"
    filter_x(repo, clean=f"sh -c 'echo $$ > \"{pid_file}\"; exec yes \"lfs: retrying\" >&2'")
    seen: list[os.stat_result] = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.wait(0.01):
            output = _output_of(pid_file, 2)
            if output is not None:
                seen.append(output)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        failed = _ends(lambda: publish_version(repo, folders, "v2"))
    finally:
        stop.set()
        watcher.join()
    assert isinstance(failed, PublishError), failed
    assert "messages to its error output, over the limit of 8 MiB" in str(failed)
    assert seen, "the filter's error output was never seen"
    files = [output for output in seen if not stat.S_ISFIFO(output.st_mode)]
    assert not files, f"its error output went to a file taking {max(o.st_blocks for o in files) * 512 >> 20} MiB"
    assert git_quiet(repo, "tag", "--list").split() == ["v1"]
    assert (repo / "weights.bin").read_text() == "v1 weights\n"


def test_a_filter_within_the_limit_is_applied(repo: Path, folders: dict[str, Path]) -> None:
    """The limit is on memory, not on a filter's work: one whose output is a few MiB (under the limit) is applied."""
    filter_x(repo, clean="sh -c 'cat; head -c 2097152 /dev/zero | tr \"\\\\0\" x'")
    assert _ends(lambda: publish_version(repo, folders, "v2")).tag == "v2"  # type: ignore[attr-defined]
    assert len(git_quiet(repo, "show", "v2:weights.bin")) == len("v2 weights\n") + 2 * 1024 * 1024


@pytest.mark.parametrize("setting", ["lots", "0", "-5", "nan"])
def test_a_memory_limit_that_is_not_a_size_stops_the_publish_before_it_writes(
        repo: Path, folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch, setting: str) -> None:
    monkeypatch.setenv("COWORKENV_FILTER_MAX_MEMORY_MB", setting)
    filter_x(repo, clean="cat")
    with pytest.raises(PublishError) as refused:
        publish_version(repo, folders, "v2")
    told = str(refused.value)
    assert f"COWORKENV_FILTER_MAX_MEMORY_MB={setting!r}" in told and "nothing was published" in told
    assert git_quiet(repo, "tag", "--list").split() == ["v1"]
    assert (repo / "weights.bin").read_text() == "v1 weights\n"


def test_the_default_limit_is_half_the_memory_this_machine_may_use(monkeypatch: pytest.MonkeyPatch) -> None:
    from coworkenv.store._git_filter import filter_max_memory_bytes

    monkeypatch.delenv("COWORKENV_FILTER_MAX_MEMORY_MB", raising=False)
    physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    assert 0 < filter_max_memory_bytes() <= physical // 2


def _output_of(pid_file: Path, fd: int = 1) -> os.stat_result | None:
    """What file descriptor `fd` of the live process whose pid `pid_file` holds is; None when it is not running."""
    try:
        pid = int(pid_file.read_text())
        if Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] == "Z":
            return None
        return os.stat(f"/proc/{pid}/fd/{fd}")
    except (OSError, ValueError, IndexError):
        return None


def test_a_post_commit_hook_that_writes_for_ever_fills_no_disk(
        tmp_path: Path, repo: Path, folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """A post-commit hook printing for ever (here `yes`, a loop printing each try of a push) until its time limit
    (60 s by default; 1 s here). On `main` its output went to a file of the temporary folder, emptied by a look every
    50 ms: 452 MiB in 1 s, and under the parallel suite's load, when a look came late, 2,732 MiB. Now it goes to a
    pipe read by the publish, a bound the kernel keeps however late the publish reads (the hook waits on the pipe):
    its output is no file on any disk, and its last line is told."""
    monkeypatch.setenv("COWORKENV_HOOK_TIMEOUT_S", "1")
    pid_file = tmp_path / "hook.pid"
    hook = repo / ".git" / "hooks" / "post-commit"
    hook.parent.mkdir(parents=True, exist_ok=True)
    hook.write_text(f'#!/bin/sh\necho $$ > "{pid_file}"\nexec yes "retrying the push to the backup"\n')
    hook.chmod(0o755)
    seen: list[os.stat_result] = []
    stop = threading.Event()

    def watch() -> None:  # what the hook's output is, as it runs
        while not stop.wait(0.02):
            output = _output_of(pid_file)
            if output is not None:
                seen.append(output)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        with caplog.at_level("WARNING"):
            result = _ends(lambda: publish_version(repo, folders, "v2"))
    finally:
        stop.set()
        watcher.join()
    assert getattr(result, "tag", None) == "v2", result
    assert git_quiet(repo, "tag", "--list").split() == ["v1", "v2"]
    assert "did not end within 1 s" in caplog.text and "retrying the push to the backup" in caplog.text
    assert seen, "the hook's output was never seen"
    files = [output for output in seen if not stat.S_ISFIFO(output.st_mode)]
    assert not files, f"the hook's output went to a file taking {max(o.st_blocks for o in files) * 512 >> 20} MiB"


def test_what_a_hook_leaves_writing_in_the_background_goes_on_and_fills_no_disk(
        tmp_path: Path, repo: Path, folders: dict[str, Path]) -> None:
    """A hook that starts a chatty job and ends (`git push --progress backup &`): the publish does not wait for it
    (git does not), the job is not stopped by a broken pipe when the publish is done, and what it writes goes to no
    file (on `main` it wrote on into the publish's unnamed file, which no one emptied once the hook had ended)."""
    pid_file = tmp_path / "job.pid"
    hook = repo / ".git" / "hooks" / "post-commit"
    hook.parent.mkdir(parents=True, exist_ok=True)
    hook.write_text(f'#!/bin/sh\necho "pushing"\nyes "backup progress" &\necho $! > "{pid_file}"\nexit 0\n')
    hook.chmod(0o755)
    try:
        result = _ends(lambda: publish_version(repo, folders, "v2"))
        assert getattr(result, "tag", None) == "v2", result
        output = _output_of(pid_file)
        assert output is not None, "the hook's background job was stopped (git leaves it running)"
        assert stat.S_ISFIFO(output.st_mode), f"its output goes to a file ({output.st_blocks * 512 >> 20} MiB)"
        time.sleep(0.2)
        assert _output_of(pid_file) is not None, "the hook's background job died once the publish was done"
    finally:
        with contextlib.suppress(OSError, ValueError):
            os.kill(int(pid_file.read_text()), signal.SIGKILL)
