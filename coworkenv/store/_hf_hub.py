"""Publishing to the Hugging Face Hub: one atomic commit per version on top of the current head, then a tag.

The Hub has no transaction of both: a publish that failed or was killed between them (an outage, a lost answer,
kill -9) left its version committed on the branch, untagged. The next publish, of this version or any other, tags
that commit first (its message names the version), so the version readers of the branch got is never left in no tag
under the next version's commit, and the same data is never committed a second time. A person's commit with the same
token is made by the same account as a publish's: each publish's commit is marked (`MARK`, in its description), and a
head commit is taken for a publish's only with the mark, or, where no commit of the branch has one (a repository
published by an older coworkenv alone, whose commits carry none), by its title as before.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from coworkenv.clock_skew import clock_problem
from coworkenv.credential_values import credential_problem, held_secret_forms
from coworkenv.store._hub_environment import hub_environment_problem, hub_repo_id_problem
from coworkenv.store._publisher import (
    KEPT_FILES,
    PublishError,
    PublishResult,
    Upload,
    check_version,
    differences,
    folder_upload,
    natural_order,
    newest_of,
    next_revision,
    release_upload,
    replaces,
    version_committed,
)
from coworkenv.store._release import DatasetRelease
from coworkenv.url_credentials import scrub_credentials, url_secrets, without_url_credentials

if TYPE_CHECKING:
    from huggingface_hub import HfApi
    from huggingface_hub.hf_api import GitCommitInfo, RepoFile

logger = logging.getLogger(__name__)

TOKEN_ENV = "HF_TOKEN"
BRANCH = "main"
_T = TypeVar("_T")
_TAG_RACES = 3  # how many times a publish goes on when another one takes the tag it meant to make
MARK = "Coworkenv-Publish"  # the trailer that each publish's commit carries in its description: `MARK: V`


class _TagTaken(RuntimeError):
    """Another publish tagged the version this one committed, on another commit."""


class _Redactor:
    """Holds the token only to remove it from error text; shows nothing of it in reprs."""

    def __init__(self, secret: str | None, endpoint: str) -> None:
        self._secrets = [secret or "", *url_secrets(endpoint)]

    def __repr__(self) -> str:
        return "<redacted>"

    def scrub(self, text: str) -> str:
        """`text` without the token, the endpoint's credentials in any form the client sends them (`user:password@`
        goes out as a Basic-auth header, which a mirror's error page may quote), any other credential the process
        holds, nor the credentials of any URL in it (a signed upload URL): the LLM client's redaction too."""
        return scrub_credentials(text, [*self._secrets, *held_secret_forms()], "<redacted>")


class HfHubPublisher:
    """Publishes versions to `repo_id` on the Hub; the token comes from the HF_TOKEN environment variable only."""

    def __init__(
        self,
        repo_id: str,
        api: HfApi | None = None,
        private: bool = False,
        repo_type: str = "dataset",
    ) -> None:
        token = os.environ.get(TOKEN_ENV) or None
        problem = credential_problem(TOKEN_ENV, token, "token") if token is not None else None
        if problem:
            # A line break: the HTTP client would refuse it quoting the header, escaped (`\n`), past a search for the
            # token itself. Quotes from an env file: every call would fail 401, blamed on the token's rights.
            raise PublishError(problem)
        problem = hub_repo_id_problem(repo_id)
        if problem is not None:
            raise PublishError(f"{problem}; nothing was published")
        if api is None:
            problem = hub_environment_problem(repo_id)
            if problem is not None:
                raise PublishError(problem)
            if token is None:
                raise PublishError(
                    f"publishing to the Hub repo {repo_id!r} needs a write token in the {TOKEN_ENV} "
                    "environment variable; set it, or publish to a local git repository instead"
                )
            from huggingface_hub import HfApi

            api = HfApi(token=token)
        self.repo_id = repo_id
        self.repo_type = repo_type
        self.private = private
        self._api = api
        self._redactor = _Redactor(token, str(getattr(api, "endpoint", "")))

    def __repr__(self) -> str:
        return f"HfHubPublisher(repo_id={self.repo_id!r}, repo_type={self.repo_type!r}, private={self.private})"

    @property
    def location(self) -> str:
        """The repository's URL."""
        prefix = {"dataset": "datasets/", "space": "spaces/"}.get(self.repo_type, "")
        return f"{self._endpoint}/{prefix}{self.repo_id}"

    @property
    def _endpoint(self) -> str:
        """The Hub's URL, without credentials."""
        return without_url_credentials(str(getattr(self._api, "endpoint", "https://huggingface.co")).rstrip("/"))

    def publish(self, release: DatasetRelease) -> PublishResult:
        """Commit the release's `data/` files and README.md as one version tagged `release.version`."""
        check_version(release.version)
        return self._publish(release.version, lambda: release_upload(release), f"Dataset version {release.version}")

    def publish_folder(self, folder: Path, version: str, card_md: str, record: str | None = None) -> PublishResult:
        """Commit the files under `folder` plus README.md as one version tagged `version` (see `folder_upload`)."""
        check_version(version)
        return self._publish(version, lambda: folder_upload(folder, version, card_md, record), f"Version {version}")

    def published_versions(self) -> list[str]:
        """Version tags in the order they were published: by place along the branch's history, a version left off it
        (the branch reset and force-pushed by hand) just after the commit it forked from, then by the numbers in its
        name (it went last: v1, v3, v2)."""
        refs = self._call("list refs", self._api.list_repo_refs, self.repo_id, repo_type=self.repo_type)
        if not refs.tags:
            return []
        position = self._history_positions(BRANCH)

        def place(commit: str, tag: str) -> float:
            if commit in position:
                return position[commit]
            forked = self._history_positions(tag)  # the tag's own history, oldest first
            fork = max((position[c] for c in forked if c in position), default=float(len(position)))
            return fork + 0.5

        ordered = sorted(refs.tags, key=lambda t: (place(t.target_commit, t.name), natural_order(t.name), t.name))
        return [tag.name for tag in ordered]

    def newest_version(self, name: str) -> str | None:
        """The tag holding the newest content published under version name `name` (see `revisions_of`)."""
        refs = self._call("list refs", self._api.list_repo_refs, self.repo_id, repo_type=self.repo_type)
        return newest_of(name, [tag.name for tag in refs.tags])

    def _history_positions(self, revision: str) -> dict[str, float]:
        commits = self._call(
            "list commits", self._api.list_repo_commits, self.repo_id, repo_type=self.repo_type, revision=revision
        )
        return {commit.commit_id: float(index) for index, commit in enumerate(reversed(commits))}

    # -- internals --------------------------------------------------------------------------------

    def _publish(
        self, version: str, stage: Callable[[], AbstractContextManager[Upload]], message: str
    ) -> PublishResult:
        self._call(
            "create repo",
            self._api.create_repo,
            self.repo_id,
            repo_type=self.repo_type,
            private=self.private,
            exist_ok=True,
        )
        for attempt in range(_TAG_RACES + 1):
            try:
                return self._publish_once(version, stage, message)
            except _TagTaken as taken:
                # Another publish tagged the name this one meant to tag, with other content, after this one looked:
                # publishing again puts this content on top as a version of its own (or finds it published).
                if attempt == _TAG_RACES:
                    raise PublishError(f"{taken}; publish again") from None
                logger.warning("%s; publishing again", taken)
        raise AssertionError("unreachable")

    def _publish_once(
        self, version: str, stage: Callable[[], AbstractContextManager[Upload]], message: str
    ) -> PublishResult:
        refs = self._call("list refs", self._api.list_repo_refs, self.repo_id, repo_type=self.repo_type)
        tagged = {tag.name: tag.target_commit for tag in refs.tags}
        head = next((branch.target_commit for branch in refs.branches if branch.name == BRANCH), None)
        existing = self._tree(head) if head else {}
        if head is not None and head not in tagged.values():
            self._tag_left_untagged(head, tagged)
        replaced: str | None = None
        with stage() as upload:
            files = sorted(upload.files)
            if version in tagged:
                newest = newest_of(version, tagged) or version
                published = existing if tagged[newest] == head else self._tree(tagged[newest])
                found = differences(upload, published, _same_file)
                if not found:
                    self._back_to(newest, head, existing, upload)
                    return PublishResult(revision=tagged[newest], tag=newest, location=self.location,
                                         files=self._files(tagged[newest]))
                # Other content under a name published already: a version of its own.
                tag = next_revision(version, tagged)
                replaced = replaces(version, newest, tag, found)
                message = f"{message.replace(version, tag, 1)}\n\n{replaced}"
                version = tag
            if head is not None and head not in tagged.values() and not differences(upload, existing, _same_file):
                # An earlier publish of this version committed (the answer or its tag got lost): tag that commit.
                logger.warning("the head of %s already holds version %s (an interrupted publish committed it); "
                               "tagging it instead of committing again", self.repo_id, version)
                revision = head
            else:
                revision = self._commit(upload, existing, head, message, version)
        self._tag(version, revision, message)
        if replaced is not None:
            logger.warning("published %s to %s at %s: %s", version, self.location, revision, replaced)
        else:
            logger.info("published %s to %s at %s", version, self.location, revision)
        return PublishResult(revision=revision, tag=version, location=self.location, files=files)

    def _back_to(self, version: str, head: str | None, existing: dict[str, RepoFile], upload: Upload) -> None:
        """Put the branch back on the files of `version`, tagged already, when it holds others: the version published
        again after a newer one, or the branch moved (force-pushed, reset) since; readers follow the branch."""
        if head is not None and not differences(upload, existing, _same_file):
            logger.info("version %s is already published in %s; nothing to do", version, self.repo_id)
            return
        self._commit(upload, existing, head, f"Back to {version}", f"back to {version}")
        logger.warning("the branch %s of %s did not hold version %s, published already: it does again", BRANCH,
                       self.repo_id, version)

    def _tag_left_untagged(self, head: str, tagged: dict[str, str]) -> None:
        """Tag the version that an interrupted publish committed on the branch and never tagged (its tag refused or
        its answer lost, the process killed between the two calls): readers of the branch have had its files since.
        Left so, the next publish of other content committed on top of it, and the version was in no tag:
        `published_versions` never listed it, a checkpoint trained again under its name took the name. Only a commit
        that carries a publish's mark for the version is a publish's (a person's upload titled `Version V` is made by
        the same account), looked for down to the last version tagged (a person's commit may have gone on top of
        it); where no commit on the branch has a mark, by an older coworkenv alone, the head's title decides, as it
        did before publishes were marked."""
        commits = self._call("list commits", self._api.list_repo_commits, self.repo_id, repo_type=self.repo_type,
                             revision=BRANCH)
        if not commits or commits[0].commit_id != head:  # the branch moved since: this publish's commit will fail
            return
        marks = [_mark(commit) for commit in commits]
        for above, (commit, mark) in enumerate(zip(commits, marks, strict=True)):
            if commit.commit_id in tagged.values():  # the last version tagged: the publishes since looked below it
                return
            left = version_committed(commit.title)
            if left is None or left in tagged:
                continue
            older = ""
            if mark != left:
                if above or mark is not None or any(marks):
                    if not above:
                        # A person's commit (an upload of a note or a card titled "Version v3"): tagged, it took the
                        # name v3, and the publish of v3 itself went under v3.v2.
                        logger.warning("the head of %s of %s (%s) is titled %r but carries no publish's mark (%s: %s "
                                       "in its description): made by hand, not by a publish, it is left untagged (a "
                                       "version is tagged only on a publish's own commit)", BRANCH, self.repo_id,
                                       head[:12], commit.title, MARK, left)
                    continue
                older = (f" (taken for an older coworkenv's publish by its title: no commit on {BRANCH} carries a "
                         f"publish's mark ({MARK}), which older coworkenv releases did not write; if a person made "
                         f"it, delete the tag: HfApi().delete_tag({self.repo_id!r}, tag={left!r}, "
                         f"repo_type={self.repo_type!r}))")
            elif above:
                older = f" (under {above} later commit{'s' if above > 1 else ''}, which no publish made)"
            message = "\n\n".join(part.strip() for part in (commit.title, commit.message) if part.strip())
            self._tag(left, commit.commit_id, message)
            tagged[left] = commit.commit_id
            logger.warning("version %s was committed on %s of %s (%s) by a publish interrupted before its tag: tagged "
                           "it %s now%s", left, BRANCH, self.repo_id, commit.commit_id[:12], left, older)

    def _tag(self, version: str, revision: str, message: str) -> None:
        try:
            self._call("tag", self._api.create_tag, self.repo_id, tag=version, tag_message=message,
                       revision=revision, repo_type=self.repo_type)
        except PublishError as failure:
            # The tag may have landed with its answer lost, or a concurrent publish of the same data tagged it.
            refs = self._call("list refs", self._api.list_repo_refs, self.repo_id, repo_type=self.repo_type)
            taken = next((tag.target_commit for tag in refs.tags if tag.name == version), None)
            if taken is not None and taken != revision:
                raise _TagTaken(f"another publish tagged {version} on {taken[:12]} of {self.repo_id} while this one "
                                f"committed {revision[:12]}") from None
            if taken is None:
                raise PublishError(
                    f"{failure} Version {version} is committed on {BRANCH} ({revision[:12]}) but not tagged: readers "
                    f"of {BRANCH} get its files; the next publish, of this version or any other, tags it {version} "
                    "first") from None

    def _commit(
        self, upload: Upload, existing: dict[str, RepoFile], head: str | None, message: str, mark: str
    ) -> str:
        """Commit `upload` on top of `head` (`existing` its files), marked as a publish's of `mark` (see `MARK`)."""
        from huggingface_hub import CommitOperationAdd, CommitOperationDelete

        operations: list[Any] = [
            CommitOperationAdd(path_in_repo=path, path_or_fileobj=str(source))
            for path, source in sorted(upload.files.items())
        ]
        operations += [CommitOperationDelete(path_in_repo=path) for path in upload.stale(list(existing))]
        # parent_commit makes the commit fail instead of overwriting a concurrent publish.
        commit = self._call(
            "commit",
            self._api.create_commit,
            self.repo_id,
            operations,
            commit_message=message,
            commit_description=f"{MARK}: {mark}",
            repo_type=self.repo_type,
            revision=BRANCH,
            parent_commit=head,
        )
        return str(commit.oid)

    def _files(self, revision: str) -> list[str]:
        return sorted(self._tree(revision))

    def _tree(self, revision: str) -> dict[str, RepoFile]:
        """The files of `revision` (but the repository plumbing), with the ids of their contents."""
        from huggingface_hub.hf_api import RepoFile

        listed = self._call(
            "list files",
            lambda: list(self._api.list_repo_tree(
                self.repo_id, recursive=True, revision=revision, repo_type=self.repo_type
            )),
        )
        return {
            entry.path: entry for entry in listed if isinstance(entry, RepoFile) and entry.path not in KEPT_FILES
        }

    def _call(self, what: str, method: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
        try:
            return method(*args, **kwargs)
        except Exception as error:  # any client error becomes one actionable, token-free error
            reason = str(error).rstrip(".")
            # A far-off clock fails the TLS handshake: the token and the Hub are not what to check then.
            clock = clock_problem(error)
            advice = f"{clock}; a retry completes what this publish left" if clock else self._advice(error)
            failure = self._redactor.scrub(
                f"{what} on the Hub {self.repo_type} repo {self.repo_id!r} failed: {type(error).__name__}: {reason}. "
                f"{advice}."
            )
        # Raised outside the except block, so the original error (which may quote the token) is not chained.
        raise PublishError(failure)

    def _advice(self, error: Exception) -> str:
        """What to do about a failed Hub call, by what failed: the token only where the Hub refused it."""
        retry = "the repo's branch holds a whole version (the last one, or this one not yet tagged), and publishing again completes what this publish left"
        response = getattr(error, "response", None)
        status = getattr(response, "status_code", None)
        if status == 429:
            wait = _retry_after(response)
            return (f"The Hub is limiting the rate of requests (429 Too Many Requests); "
                    f"wait {wait if wait else 'a few minutes'} and publish again: {retry}")
        if isinstance(status, int) and 500 <= status < 600:
            return f"The Hub failed on its side ({status}); publish again in a few minutes: {retry}"
        if status == 404:
            return (f"The Hub has no {self.repo_type} repo {self.repo_id!r} (or no branch {BRANCH!r} in it) that this "
                    f"token can see: check the repo id (COWORKENV_HUB_REPO_ID or _HUB_MODEL_REPO_ID) and that "
                    f"{TOKEN_ENV} belongs to an account that can write to it, then publish again")
        if status in (409, 412):
            return f"Another publish changed the repo at the same time ({status}); publish again"
        if _connection_lost(error):
            return (f"The connection to the Hub at {self._endpoint} "
                    f"failed or was cut; check the network (and HF_ENDPOINT, a proxy), then publish again: {retry}")
        return (f"Check that {TOKEN_ENV} holds a token with write access to the repo; "
                "if another publish ran at the same time, publish again")


def _mark(commit: GitCommitInfo) -> str | None:
    """What the publish that made `commit` marked it with (`MARK: V`, the last such line of its message), or None."""
    found = re.findall(rf"^{MARK}: *(\S.*?)\s*$", f"{commit.title}\n{commit.message}", re.MULTILINE)
    return found[-1] if found else None


def _retry_after(response: Any) -> str | None:
    """The wait a 429 answer asks for (`Retry-After`: seconds or an HTTP date), as text, or None."""
    value = str(getattr(response, "headers", {}).get("Retry-After") or "").strip()
    if value.isdigit():
        return f"{int(value)} s (its Retry-After)"
    return f"until {value} (its Retry-After)" if value else None


def _connection_lost(error: Exception) -> bool:
    """A transport failure (refused, reset, cut short, timed out) of the client's HTTP library (`httpx`, or the
    `httpx2` of newer huggingface_hub releases), but a refused certificate: a proxy's CA or the clock, told apart."""
    import ssl

    if isinstance(error.__cause__, ssl.SSLError) or "CERTIFICATE" in str(error).upper():
        return False
    transport = any(kind.__name__ == "TransportError" and kind.__module__.split(".")[0] in ("httpx", "httpx2")
                    for kind in type(error).__mro__)
    return transport or isinstance(error, (ConnectionError, TimeoutError))


def _same_file(path: str, remote: RepoFile, local: Path) -> bool:
    """Whether `local` holds the bytes of the Hub's file `remote`."""
    # An LFS (or Xet) file is known by the sha256 of its content, any other by its git blob id.
    if remote.lfs is not None:
        return remote.lfs.sha256 == _digest(local, hashlib.sha256())
    return remote.blob_id == _digest(local, hashlib.sha1(f"blob {local.stat().st_size}\0".encode()))


def _digest(path: Path, digest: Any) -> str:
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return str(digest.hexdigest())
