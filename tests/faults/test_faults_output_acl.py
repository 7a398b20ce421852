"""Fault corpus, outputs in a folder with a default ACL: a team's shared store set up with `setfacl -d -m g:team:rX`
(or `-d -m g::rw`), which the kernel applies to every file made there in place of the umask.

faults53 gave each output the mode a plain `open()` gives, computed as 0666 less the umask and set with `chmod` on the
temp file that `tempfile.mkstemp` made 0600. Where the folder has a default ACL that is not what `open()` gives: the
ACL's entries were inherited under mkstemp's 0600, so their mask was `---`, and the `chmod` set the mask from the
umask. Under a private umask (077, a user's own default) the team the ACL names could not read any output
(`open()` there gives it read), and under 022 a group the ACL gives write lost it. Now a new output's temp file is
made as `open()` makes a file (0666 asked for: the kernel takes off the umask or applies the ACL), and no `chmod`
follows; a replaced file keeps its mode, a secret is made 0600, unreadable by the ACL's entries too.

The ACLs are written as the kernel's extended attribute (`system.posix_acl_default`), so `setfacl` is not needed;
skipped where the file system keeps no ACLs."""

from __future__ import annotations

import errno
import os
import stat
import struct
from collections.abc import Callable, Iterator
from pathlib import Path

import pyarrow as pa
import pytest

from coworkenv.atomic import atomic_write_bytes, temp_file_beside
from coworkenv.store import write_table

_DEFAULT, _ACCESS = "system.posix_acl_default", "system.posix_acl_access"
_USER_OBJ, _GROUP_OBJ, _GROUP, _MASK, _OTHER = 0x01, 0x04, 0x08, 0x10, 0x20
_NO_ID = 0xFFFFFFFF
TEAM = 4242  # the group the ACL names (no such group need exist)


def _acl(*entries: tuple[int, int, int]) -> bytes:
    """The kernel's form of an ACL: version 2, then (tag, permissions, id) per entry."""
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *entry) for entry in entries)


ACLS = {
    # The team may read (`setfacl -d -m u::rw,g::-,g:team:r,m::r,o::-`).
    "team reads": _acl((_USER_OBJ, 6, _NO_ID), (_GROUP_OBJ, 0, _NO_ID), (_GROUP, 4, TEAM), (_MASK, 4, _NO_ID),
                       (_OTHER, 0, _NO_ID)),
    # The owning group may write (`setfacl -d -m u::rw,g::rw,o::r`).
    "group writes": _acl((_USER_OBJ, 6, _NO_ID), (_GROUP_OBJ, 6, _NO_ID), (_OTHER, 4, _NO_ID)),
}


@pytest.fixture(params=[0o077, 0o022], ids=["umask077", "umask022"])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    """The process's umask for the case (a user's private default, the usual one), set back after it."""
    before = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(before)


def _shared(tmp_path: Path, acl: str) -> Path:
    folder = tmp_path / "shared"
    folder.mkdir()
    try:
        os.setxattr(folder, _DEFAULT, ACLS[acl])
    except OSError as exc:
        if exc.errno in (errno.ENOTSUP, errno.EOPNOTSUPP, errno.EPERM):
            pytest.skip(f"this file system keeps no ACLs ({exc.strerror})")
        raise
    return folder


def _permissions(path: Path) -> tuple[int, bytes | None]:
    """The mode bits and the access ACL of `path` (None: it has none beyond its mode)."""
    try:
        acl: bytes | None = os.getxattr(path, _ACCESS)
    except OSError as exc:
        if exc.errno != errno.ENODATA:
            raise
        acl = None
    return stat.S_IMODE(path.stat().st_mode), acl


def _as_open_makes(folder: Path) -> tuple[int, bytes | None]:
    plain = folder / "made-by-open"
    plain.write_bytes(b"x")
    return _permissions(plain)


def _bytes(folder: Path) -> Path:
    atomic_write_bytes(folder / "report.json", b"{}")
    return folder / "report.json"


def _store(folder: Path) -> Path:
    return write_table(pa.table({"a": [1]}), folder, "episodes").path


def _shard(folder: Path) -> Path:
    with temp_file_beside(folder, suffix=".parquet") as (temp, handle):
        handle.write(b"PAR1")
    final = folder / "shard.parquet"
    temp.rename(final)
    return final


WRITERS: dict[str, Callable[[Path], Path]] = {"atomic_write": _bytes, "store table": _store, "temp file": _shard}


@pytest.mark.parametrize("acl", sorted(ACLS))
@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_an_output_in_a_folder_with_a_default_acl_gets_what_open_gives(
        tmp_path: Path, umask: int, acl: str, writer: str) -> None:
    folder = _shared(tmp_path, acl)
    written = WRITERS[writer](folder)
    assert _permissions(written) == _as_open_makes(written.parent), \
        f"{writer} under umask {umask:03o} in a folder with the default ACL '{acl}'"


def test_a_secret_stays_its_writers_alone_under_a_default_acl(tmp_path: Path, umask: int) -> None:
    folder = _shared(tmp_path, "team reads")
    atomic_write_bytes(folder / "token", b"secret", private=True)
    mode, acl = _permissions(folder / "token")
    assert mode & 0o077 == 0, oct(mode)  # the group bits of a file with an ACL are its mask: no entry may read
    assert acl is None or struct.pack("<HHI", _MASK, 0, _NO_ID) in acl
