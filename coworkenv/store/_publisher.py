"""The `HubPublisher` interface and what every publisher shares: results, errors, staged uploads."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeVar, runtime_checkable

from coworkenv.atomic import TEMP_PREFIX, WriteError, atomic_write_bytes, os_reason, path_advice
from coworkenv.checkpoint_manifest import checked_snapshot
from coworkenv.credential_values import held_credentials
from coworkenv.held_folders import held_temp_dir, remove_abandoned
from coworkenv.store._release import CARD_NAME, DATA_DIR, DatasetRelease, release_files
from coworkenv.store._secret_scan import secret_in_files, secret_in_table

# Valid as a git tag and a Hub tag; versions name immutable releases, so keep them plain.
_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
KEPT_FILES = frozenset({".gitattributes"})  # repository plumbing a publish never deletes
# The tag of the k-th content published under one version name (k >= 2; the first is the name itself): `v1.v2`.
_REVISION = ".v"
_T = TypeVar("_T")
# The first line of the message of a version's commit, as both publishers write it (`publish`, `publish_folder`).
_VERSION_TITLE = re.compile(r"^(?:Dataset version|Version) (\S+)$")


class PublishError(RuntimeError):
    """Publishing failed; the message says where and what to do (and never holds a token)."""


@dataclass(frozen=True)
class PublishResult:
    """Where a version landed."""

    revision: str  # commit sha
    tag: str
    location: str  # URL or local path of the repository
    files: list[str]  # repository paths of the version's files


@runtime_checkable
class HubPublisher(Protocol):
    """Publishes versions of a dataset (or a folder such as a checkpoint) to a Hub-layout repository."""

    def publish(self, release: DatasetRelease) -> PublishResult:
        """Commit the release's data files and card as one version, tagged `release.version`."""
        ...

    def publish_folder(self, folder: Path, version: str, card_md: str, record: str | None = None) -> PublishResult:
        """Commit every file under `folder` plus README.md = `card_md` as one version, tagged `version`; with
        `record` (the sha256 of the checkpoint record the caller checked), only if the folder still holds it."""
        ...

    def published_versions(self) -> list[str]:
        """Tags of the published versions, oldest first."""
        ...

    def newest_version(self, name: str) -> str | None:
        """The tag holding the newest content published under version name `name` (`name` itself, or `name.vK`
        when other content was published under it since), or None when nothing was."""
        ...


@dataclass(frozen=True)
class Upload:
    """The files of one version, and which files already in the repository it supersedes."""

    files: dict[str, Path]  # repository path -> file holding its bytes
    supersedes: Callable[[str], bool]  # True for an existing repository path this version replaces

    def stale(self, existing: list[str]) -> list[str]:
        """Existing repository paths to delete so the repository holds exactly this version."""
        return sorted(path for path in existing if self.supersedes(path) and path not in self.files)


def revisions_of(name: str, tags: Iterable[str]) -> list[str]:
    """The tags of `tags` holding content published under version name `name`, oldest first: `name`, then the
    `name.vK` each later publish of other content under that name made (see `next_revision`)."""
    numbered: dict[int, str] = {1: name} if name in tags else {}
    prefix = f"{name}{_REVISION}"
    for tag in tags:
        rest = tag[len(prefix):] if tag.startswith(prefix) else ""
        if rest.isdigit() and rest == str(int(rest)) and int(rest) >= 2:
            numbered[int(rest)] = tag
    return [numbered[k] for k in sorted(numbered)]


def newest_of(name: str, tags: Iterable[str]) -> str | None:
    """The tag holding the newest content published under version name `name` (what `newest_version` answers). The
    tag `name` itself is never moved: a reader of it (`revision="v1"`) gets the first content, always the same."""
    found = revisions_of(name, list(tags))
    return found[-1] if found else None


def next_revision(name: str, tags: Iterable[str]) -> str:
    """The tag for other content published under version name `name`, which a tag holds already: `name.vK`, K one
    past the last. A version's name must identify its content: other files under it are never put over the tagged
    ones (a tag moved) nor dropped ("already published"); they become a version of their own."""
    tags = list(tags)
    found = revisions_of(name, tags)
    last = max([1, *(int(tag[len(name) + len(_REVISION):]) for tag in found if tag != name)])
    taken = set(tags)
    candidate = last + 1
    while f"{name}{_REVISION}{candidate}" in taken:  # a tag named so by hand: never moved
        candidate += 1
    return f"{name}{_REVISION}{candidate}"


def differences(upload: Upload, published: Mapping[str, _T], same: Callable[[str, _T, Path], bool]) -> list[str]:
    """How the files of `upload` differ from a published version's (repository path -> the publisher's record of
    the file; `same(path, record, file)` says whether `file` holds its bytes): each path changed, added or removed,
    sorted; empty when they are the same files byte for byte."""
    theirs = {path for path in published if upload.supersedes(path)}
    ours = set(upload.files)
    found = [f"{path} differs" for path in sorted(theirs & ours) if not same(path, published[path], upload.files[path])]
    found += [f"{path} is new" for path in sorted(ours - theirs)]
    found += [f"{path} is gone" for path in sorted(theirs - ours)]
    return found


def replaces(name: str, newest: str, tag: str, found: list[str]) -> str:
    """The line saying that `tag` holds other content than `newest`, published under the same version name, and what
    each reader gets: a published tag is never moved (who read `name` reads the same bytes again: a run pinned to
    it stays reproducible), so the newest content is read as `tag`, on the branch, or through `newest_version`."""
    shown = ", ".join(found[:4]) + (f" and {len(found) - 4} more" if len(found) > 4 else "")
    return (f"{tag} replaces {newest}'s content for the same name {name} ({shown}): other files published under a "
            f"name already published are a version of their own. The tag {name} is never moved: a reader of revision "
            f"{name!r} gets its first content, as before; the newest content of the name is {tag}, also on the "
            f"branch main, and newest_version({name!r}) names it: read revision {tag!r} (or main) for it")


def natural_order(name: str) -> tuple[tuple[int, int, str], ...]:
    """A version name for sorting with its numbers as numbers: v2 before v10, v2026.12.3 before v2026.12.10."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", name) if part)


def version_committed(title: str) -> str | None:
    """The version that a publish's commit with message (or title) `title` was made for, or None: a commit of another
    kind ("Back to v1", the Hub's "initial commit", one made by hand)."""
    match = _VERSION_TITLE.match(title.strip().partition("\n")[0])
    return match[1] if match and _VERSION.match(match[1]) else None


def check_version(version: str) -> None:
    """Raise if `version` cannot be a tag."""
    if not _VERSION.match(version) or ".." in version or version.endswith(".lock"):
        raise PublishError(
            f"version {version!r} cannot be a tag; use letters, digits, '.', '_' and '-' "
            "(e.g. the output of coworkenv.store.release_version)"
        )


_NO_ROOM = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)  # a copy that found no room, or a file size limit
FOLDER_STAGING = ".coworkenv-publish-"  # a folder publish's staging folder, beside the folder published
SYSTEM_FOLDER_STAGING = "coworkenv-folder-"  # ... in the system's temp folder where it cannot be beside


def _is_dataset_file(path: str) -> bool:
    return path == CARD_NAME or path.startswith(f"{DATA_DIR}/")


def _is_folder_file(path: str) -> bool:
    return path not in KEPT_FILES


@contextmanager
def release_upload(release: DatasetRelease) -> Iterator[Upload]:
    """Stage a release's files in a temp directory; it replaces `data/` and README.md."""
    check_version(release.version)
    # Held while in use: a publish killed here leaves a whole copy of the release, which a later publish removes.
    with ExitStack() as held:
        try:
            root = held.enter_context(held_temp_dir("coworkenv-release-"))
            paths = stage_release(release, root)
        except OSError as exc:
            raise PublishError(_staging_failed(release.version, exc)) from None
        yield Upload(files={path: root / path for path in paths}, supersedes=_is_dataset_file)


def _staging_failed(version: str, exc: OSError) -> str:
    """Why the release's files could not be staged in the system's temp folder (a full /tmp, most often), what to do,
    and that nothing was published. It had been the write's own line, naming a file of the staging folder that its
    removal had deleted, and saying of it that "any earlier version of the file is unchanged"."""
    temp = tempfile.gettempdir()
    named = exc.final if isinstance(exc, WriteError) else Path(os.fsdecode(exc.filename)) if exc.filename else None
    which = "TMPDIR" if os.environ.get("TMPDIR") else "the system's temp folder"
    return (f"cannot stage version {version} for publishing in {temp} ({which}): "
            f"{f'{named.name}: ' if named else ''}{os_reason(exc)}; {path_advice(Path(temp), exc)} (or set TMPDIR to "
            "a folder on a disk with room for the release's files); nothing was published, and the staged files "
            "were removed")


@contextmanager
def folder_upload(folder: Path, version: str, card_md: str, record: str | None = None) -> Iterator[Upload]:
    """Stage a folder (e.g. a checkpoint) with its card; it replaces every file but `.gitattributes`. With `record`,
    the sha256 of the checkpoint record the caller checked ("" for none), a folder holding another is refused."""
    check_version(version)
    folder = Path(folder)
    if not folder.is_dir():
        raise PublishError(f"{folder} is not a directory; pass the folder holding the files to publish")
    files = {
        path.relative_to(folder).as_posix(): path
        for path in sorted(folder.rglob("*"))
        if path.is_file() and ".git" not in path.relative_to(folder).parts
        and not path.name.startswith(TEMP_PREFIX)  # half a file of a writer that was interrupted
    }
    # On the disk of `folder`, which has room for it (else in the system's temp folder); held while in use: a publish
    # killed here leaves the staging folder, which a later publish beside it removes.
    beside = os.access(folder.parent, os.W_OK | os.X_OK)
    if beside:  # what a publish staged in the system's temp folder (a parent not writable, earlier versions) left
        remove_abandoned(tempfile.gettempdir(), SYSTEM_FOLDER_STAGING)
    with ExitStack() as held:
        try:
            staging = held.enter_context(held_temp_dir(
                FOLDER_STAGING if beside else SYSTEM_FOLDER_STAGING, str(folder.parent) if beside else None))
            # The files published are copied into the staging folder and checked there against the checkpoint's
            # record (when the folder has one): git's copy and the Hub's upload read the copies, so a file renamed
            # over or written in place into an original after its check is not published in the checked one's place.
            snapshot = checked_snapshot(folder, files, staging / "files", record)
            card = staging / CARD_NAME
            if not isinstance(snapshot, str):
                atomic_write_bytes(card, card_md.encode())
        except OSError as exc:
            if exc.errno not in _NO_ROOM:  # a file of the folder unreadable, ...: named by the publisher as before
                raise
            raise PublishError(_folder_staging_failed(folder, version, files, beside, exc)) from None
        if isinstance(snapshot, str):
            raise PublishError(f"{snapshot}; nothing was published")
        snapshot[CARD_NAME] = card  # the given card wins over a README.md inside the folder
        found = secret_in_files(snapshot, held_credentials())
        if found is not None:
            name, where = found
            raise PublishError(
                f"{folder}: {where} holds the value of {name}, a credential that must never be published; nothing "
                "was published. Remove the file (or the credential from it) or, if the credential is no longer "
                "secret, rotate it, then publish again")
        yield Upload(files=snapshot, supersedes=_is_folder_file)


def _folder_staging_failed(folder: Path, version: str, files: dict[str, Path], beside: bool, exc: OSError) -> str:
    """Why the copies of `folder`'s files (checked, then published) could not be made, with the room they need. It
    had been the copy's own OSError, naming a file of the staging folder already removed, not the room needed."""
    where = folder.parent if beside else Path(tempfile.gettempdir())
    named = exc.final if isinstance(exc, WriteError) else Path(os.fsdecode(exc.filename)) if exc.filename else None
    need = 0
    for path in files.values():
        with contextlib.suppress(OSError):
            need += path.stat().st_size
    return (f"cannot publish {folder} as {version}: its files are copied into {where} first (they are checked there, "
            f"then published), which needs about {need / 2**20:.1f} MiB: {f'{named.name}: ' if named else ''}"
            f"{os_reason(exc)}; {path_advice(where, exc)}; nothing was published, and the copies made were removed")


def stage_release(release: DatasetRelease, dest: Path) -> list[str]:
    """Write the release's data files and README.md under `dest`; return their repository paths."""
    # Imported here: the card module imports `datasets`, which is slow to import.
    from coworkenv.store._card import render_dataset_card

    card = render_dataset_card(release)  # validates the release first
    _refuse_secrets(release, card)
    atomic_write_bytes(dest / CARD_NAME, card.encode())
    paths = [CARD_NAME]
    for path, data in release_files(release):
        atomic_write_bytes(dest / path, data)
        paths.append(path)
    return sorted(paths)


def _refuse_secrets(release: DatasetRelease, card: str) -> None:
    """Refuse a release holding the value of a credential variable set now (before any of its files is written)."""
    secrets = held_credentials()
    if not secrets:
        return
    where: str | None = None
    name = next((name for name, secret in secrets.items() if secret in card), None)
    if name is not None:
        where = "its dataset card"
    for config, splits in release.configs.items():
        for split, shards in splits.items():
            for index, shard in enumerate(shards):
                found = None if where else secret_in_table(shard, secrets)
                if found is not None:
                    name, column = found
                    where = f"config {config!r}, split {split!r}, shard {index}, {column}"
    if where is not None:
        raise PublishError(
            f"release {release.version}: {where} holds the value of {name}, a credential that must never be "
            "published; nothing was published. Remove it where the data comes from (a capability YAML, a spec file "
            f"or its world data, an imported task), or rotate the credential if it is no longer secret, then run again")
