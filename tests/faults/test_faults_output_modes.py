"""Fault corpus, outputs shared with another account: a team's data folder (`umask 002` in a group folder), a
serving container or a `datasets` loader running as another user, a teammate reading a shared LLM response cache.

Every file the product writes is written atomically: a temp file made by `tempfile.mkstemp` beside it, then renamed
into place. mkstemp makes the file mode 0600 whatever the umask, so on `main` every output (synth's specs, validate's
tables, a rollout's trajectories, curate's shards and report, the store's files and pointers, the local dataset
repository's working tree, an LLM cache entry, a checkpoint's record of its files) was readable by its writer alone: under
`umask 002` or `022` a teammate, the group or a server under another uid met "Permission denied" (a shared LLM
cache: "ignoring unreadable LLM cache entry", every request paid again), and a file whose mode was set by hand
(`chmod 640`, `chmod g+w`) lost it at the next run. Now a new output takes the mode a plain `open()` gives under the
umask, a replaced one keeps its mode, and only what must stay private (`serve --token-file`) is 0600.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pytest

from tests.faults.harness import CAPABILITY, release, succeeded

SHARED_UMASK = 0o002  # a team's group folder: the group may write, others read
OUTPUTS = ("synth", "validate", "rollout", "curate", "store", "publish", "llm cache", "checkpoint record")


def _files(folder: Path) -> list[Path]:
    """The files an output holds (git's own files, made by git under its own rules, left out)."""
    return sorted(p for p in folder.rglob("*") if p.is_file() and ".git" not in p.relative_to(folder).parts)


def _modes(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): oct(stat.S_IMODE(p.stat().st_mode)) for p in _files(folder)}


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """Each output written once under the shared umask, by the commands and writers themselves."""
    from coworkenv.checkpoint_manifest import write_checkpoint_manifest
    from coworkenv.llm import LLMResponse
    from coworkenv.llm._cache import ResponseCache
    from coworkenv.store import LocalGitPublisher, write_table

    root = tmp_path_factory.mktemp("modes")
    out = {name: root / name.replace(" ", "_") for name in OUTPUTS}
    before = os.umask(SHARED_UMASK)
    try:
        succeeded(["synth", "--out", str(out["synth"]), "-c", CAPABILITY, "--n", "2"])
        succeeded(["validate", str(out["synth"]), "--out", str(out["validate"])])
        succeeded(["rollout", str(out["synth"]), "--out", str(out["rollout"])])
        succeeded(["curate", str(out["rollout"]), "--out", str(out["curate"])])
        write_table(pa.table({"x": [1, 2]}), out["store"], "table")
        LocalGitPublisher(out["publish"]).publish(release("v1"))
        ResponseCache(out["llm cache"]).put("ab" * 32, LLMResponse(content="hello", tool_calls=[], prompt_tokens=1,
                                                                 completion_tokens=1, finish_reason="stop",
                                                                 cached=False, model="m"))
        out["checkpoint record"].mkdir()  # what a training saves (config.json, weights) takes the umask's mode
        write_checkpoint_manifest(out["checkpoint record"])
    finally:
        os.umask(before)
    yield out


@pytest.mark.parametrize("output", OUTPUTS)
def test_an_output_takes_the_mode_the_umask_gives(made: dict[str, Path], output: str) -> None:
    modes = _modes(made[output])
    assert modes, f"{output} wrote nothing"
    wrong = {name: mode for name, mode in modes.items() if mode != oct(0o666 & ~SHARED_UMASK)}
    assert not wrong, f"{output} under umask {SHARED_UMASK:03o}: {wrong}"


def test_a_mode_set_by_hand_is_kept_by_the_next_run(made: dict[str, Path], tmp_path: Path) -> None:
    """A curation folder shared read-only with the group (`chmod 640`, as a person or a deploy script sets it), then
    curated again: the shards (their own writer) and the report (the atomic writer) keep the mode."""
    out = tmp_path / "sft"
    succeeded(["curate", str(made["rollout"]), "--out", str(out)])
    for path in _files(out):
        path.chmod(0o640)
    before = os.umask(SHARED_UMASK)
    try:
        succeeded(["curate", str(made["rollout"]), "--out", str(out)])
    finally:
        os.umask(before)
    assert set(_modes(out).values()) == {oct(0o640)}, _modes(out)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to read as another uid")
def test_another_account_reads_the_outputs(made: dict[str, Path]) -> None:
    """What the mode means: a process of another uid in the files' group (a teammate, a server's account) reads
    every output; on `main` each open failed with Permission denied."""
    # Each output folder is opened here: the folders above it (pytest's) are private to this account.
    folders = {name: os.open(made[name], os.O_RDONLY | os.O_DIRECTORY) for name in OUTPUTS}
    paths = [(name, p.relative_to(made[name]).as_posix()) for name in OUTPUTS for p in _files(made[name])]
    group = made[OUTPUTS[0]].stat().st_gid
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 0
        try:
            os.setgroups([group])
            os.setgid(group)
            os.setuid(65534)
            for name, path in paths:
                try:
                    os.close(os.open(path, os.O_RDONLY, dir_fd=folders[name]))
                except OSError as error:
                    os.write(2, f"{name}: {path}: {error}\n".encode())
                    code = 1
        finally:
            os._exit(code)
    for fd in folders.values():
        os.close(fd)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "another uid in the group could not read an output"
