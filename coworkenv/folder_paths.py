"""Why a path the user named as a folder to write into can be neither used nor created as one.

Found by the first write, that was after the work: `COWORKENV_DATA_DIR` naming a file or a looping link failed the
first step of `make run` with a traceback once its specs were generated (and paid for, with an LLM); `synth --out` a
link that loops or points nowhere generated every spec before "cannot write". Checked before any work now.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

_KINDS = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"),
          (stat.S_ISSOCK, "a socket"))


def link_problem(path: Path) -> str | None:
    """`path`, or a folder on the way to it, is a symbolic link that loops or points nowhere: which, where it points;
    None otherwise (a path that is simply missing too)."""
    for folder in (path, *path.parents):
        if not folder.is_symlink():  # False for a path under a looping link: its parent says
            continue
        try:
            folder.stat()
            continue
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                what = "a symbolic link that loops (it leads back to itself); fix or remove the link"
            elif exc.errno == errno.ENOENT:
                what = (f"a symbolic link that points nowhere ({os.readlink(folder)} does not exist); create the "
                        "folder it points to (or mount its disk), or remove the link")
            else:
                return None
        return f"{folder} is {what}" if folder == path else f"{folder}, on the way to {path}, is {what}"
    return None


def folder_problem(path: Path) -> str | None:
    """Why `path` can be neither used nor created as a folder to write into, or None: a file, a named pipe, a device
    or a socket in its place or on the way to it; a symbolic link that loops or points nowhere. A folder that is
    missing is no problem (it is created); one this process may not write into is left to the writer to say."""
    for folder in (path, *path.parents):
        try:
            info = folder.stat()
        except OSError as exc:
            if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP):
                continue  # missing, under a file or behind a link: a folder nearer the root, or a link, says which
            return None
        if stat.S_ISDIR(info.st_mode):
            return link_problem(path)
        kind = next((name for test, name in _KINDS if test(info.st_mode)), "a file")
        return f"{folder} is {kind}, not a folder" + ("" if folder == path else f" (on the way to {path})")
    return link_problem(path)
