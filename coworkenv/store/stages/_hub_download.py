"""Whether files missing from a dataset folder belong to a download of a Hugging Face Hub dataset made without git:
`hf download REPO --repo-type dataset --local-dir DIR` (which keeps, for each file it placed, a
`.cache/huggingface/download/<path>.metadata` holding the commit it came from, and a `.incomplete` part while a file
is on its way), or the Hub cache itself (`.../datasets--ORG--NAME/snapshots/<commit>/...`, each file a link to a
blob of `../../blobs/`). A shard missing there (deleted by hand, a download stopped part way, an `--include` that
left it out, a blob removed by a cache clean-up) was told "an earlier write was interrupted; curate again": a new
curation for a file the Hub keeps, and the folder's other shards are of one commit that the missing one must come
from too (the dataset's `main` may hold another version by now).

Read from the folder's own bookkeeping (no network, no import of huggingface_hub); only asked on the way to a
refusal. None where the folder is no such download: the refusal says what it said before."""

from __future__ import annotations

import base64
import glob
import hashlib
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

_CACHE_REPO = re.compile(r"datasets--(?P<name>[^/]+)")
_COMMIT = re.compile(r"[0-9a-f]{40}")
_DOWNLOAD = Path(".cache") / "huggingface" / "download"


@dataclass(frozen=True)
class HubDownload:
    """Files (`paths`, as the repository names them) missing from `top`, a download of a Hub dataset."""

    top: Path  # the --local-dir, or the cache's snapshot folder
    paths: tuple[str, ...]
    how: str  # what became of them, as the folder's bookkeeping tells it
    revision: str | None  # the commit the folder's other files came from (None: not known)
    repo_id: str | None = None  # known in the Hub cache's layout only
    cache_dir: Path | None = None  # the Hub cache holding the snapshot
    commits: tuple[str, ...] = ()  # the several commits the folder's files came from, where they do not agree
    force: bool = False  # the files are there, damaged: huggingface_hub takes them for downloaded unless forced

    def fetch(self) -> str:
        """The `hf download` command that puts the files back as the same commit has them."""
        command = ["hf", "download", self.repo_id or "REPO_ID", *self.paths, "--repo-type", "dataset"]
        if self.revision:
            command += ["--revision", self.revision]
        command += ["--cache-dir", str(self.cache_dir)] if self.cache_dir else ["--local-dir", str(self.top)]
        command += ["--force-download"] if self.force else []
        return shlex.join(command).replace("'REPO_ID'", "REPO_ID")

    def said(self) -> str:
        """Where the folder comes from and the command, for a refusal."""
        if self.commits:
            folder = (self.top / self.paths[0]).parent.relative_to(self.top).as_posix()
            whole = HubDownload(self.top, (), self.how, self.commits[-1], force=self.force).fetch()
            return (f"{self.top} is a download of a Hub dataset (`hf download --local-dir`), and "
                    f"{self.how}; the files of {folder} there were downloaded at {len(self.commits)} different "
                    f"commits ({', '.join(self.commits)}: versions mixed), so download them all again from one "
                    f"commit, e.g. `{whole} --include {shlex.quote(folder + '/*')}` (REPO_ID: the dataset you "
                    "downloaded), and run again")
        source = (f"the Hub dataset {self.repo_id} in the Hugging Face cache {self.cache_dir}" if self.cache_dir else
                  "a download of a Hub dataset (its .cache/huggingface/download records what `hf download "
                  "--local-dir` placed there)")
        at = f" at the commit {self.revision}" if self.revision else ""
        who = "" if self.repo_id else " (REPO_ID: the dataset you downloaded)"
        return (f"{self.top} is {source}{at}, and {self.how}; download {'it' if len(self.paths) == 1 else 'them'} "
                f"from that same commit with `{self.fetch()}`{who} and run again")


def snapshot_of(path: Path) -> tuple[str, Path, Path] | None:
    """(repo id, snapshot folder, cache folder) where `path` lies in a snapshot of the Hub cache, or None."""
    parts = Path(path).absolute().parts
    for at in range(len(parts) - 2):
        found = _CACHE_REPO.fullmatch(parts[at])
        if found and parts[at + 1] == "snapshots":
            return (found["name"].replace("--", "/"), Path(*parts[:at + 3]), Path(*parts[:at]))
    return None


def cache_link_advice(link: Path) -> str | None:
    """How to get back a file of the Hub cache whose blob is gone (a dangling link in a snapshot), or None."""
    found = snapshot_of(link)
    if found is None:
        return None
    repo_id, snapshot, cache = found
    name = Path(link).absolute().relative_to(snapshot).as_posix()
    revision = snapshot.name if _COMMIT.fullmatch(snapshot.name) else None
    return HubDownload(snapshot, (name,), "", revision, repo_id, cache).fetch()


def hub_download(folder: Path, names: list[str], damaged: bool = False) -> HubDownload | None:
    """The download the files `names` of `folder` (missing from it, or `damaged` in it) were part of, or None."""
    try:
        real = Path(folder).absolute()
    except OSError:
        return None
    found = snapshot_of(real)
    if found is not None:
        repo_id, snapshot, cache = found
        paths = tuple((real / name).relative_to(snapshot).as_posix() for name in names)
        revision = snapshot.name if _COMMIT.fullmatch(snapshot.name) else None
        how = _DAMAGED if damaged else (
            f"the cache holds no file {'of these' if len(paths) > 1 else 'by that name'} in the snapshot (a download "
            "stopped part way or limited by --include, or a file deleted from the cache)")
        return HubDownload(snapshot, paths, how, revision, repo_id, cache, force=damaged)
    # The download's records mirror its folders: a `.cache/huggingface/download` higher up that placed nothing in this
    # folder (a download into the home folder, say) says nothing of it.
    top = next((above for above in (real, *real.parents)
                if (above / _DOWNLOAD / real.relative_to(above)).is_dir()), None)
    if top is None:
        return None
    paths = tuple((real / name).relative_to(top).as_posix() for name in names)
    download = top / _DOWNLOAD
    kinds = {_DAMAGED if damaged else _what_became_of(download, path) for path in paths}
    how = kinds.pop() if len(kinds) == 1 else "they were deleted since or never downloaded whole"
    commits = _commits(download, real.relative_to(top))
    if len(commits) > 1:
        return HubDownload(top, paths, how, None, commits=tuple(sorted(commits)), force=damaged)
    return HubDownload(top, paths, how, commits.pop() if commits else None, force=damaged)


_DAMAGED = ("its bytes were damaged since the download (a disk or copy fault, or an edit; the rest of the folder "
            "may be whole)")


def _what_became_of(download: Path, path: str) -> str:
    record = download / f"{path}.metadata"
    if record.is_file():
        return ("it was deleted from the folder after its download (by hand, or by a tool that cleans or syncs "
                f"folders?): {record} records it as downloaded")
    # huggingface_hub names a file on its way `<sha1 of '<name>.metadata', base64>.<etag>.incomplete`
    part = base64.urlsafe_b64encode(hashlib.sha1(f"{Path(path).name}.metadata".encode()).digest()).decode()
    if any((download / path).parent.glob(f"{glob.escape(part)}.*.incomplete")):
        return "its download was interrupted (a `.incomplete` part of it is left in .cache/huggingface/download)"
    return ("it was never downloaded (a download stopped before it, or an --include pattern that left it out): "
            "nothing in .cache/huggingface/download records it")


def _commits(download: Path, relative: Path) -> set[str]:
    """The commits the downloaded files of the folder `relative` came from (one, where they agree)."""
    commits: set[str] = set()
    for record in (download / relative).glob("*.metadata"):
        try:
            commit = record.read_text(encoding="utf-8", errors="replace").split("\n", 1)[0].strip()
        except OSError:
            continue
        if _COMMIT.fullmatch(commit):
            commits.add(commit)
    return commits


