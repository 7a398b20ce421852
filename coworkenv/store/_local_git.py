"""The embedded default publisher: a local git repository with the Hub layout, one commit and tag per version."""

from __future__ import annotations

import errno
import logging
import os
import re
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, suppress
from dataclasses import replace
from pathlib import Path
from typing import Any

from coworkenv.atomic import (
    UNCHANGED,
    WriteError,
    atomic_copy,
    lock_exclusive,
    lock_holders,
    make_folder,
    os_reason,
    path_advice,
)
from coworkenv.credential_values import held_secret_forms
from coworkenv.store._git_dir import git_dir_of
from coworkenv.store._git_filter import (
    ATTRIBUTES_FILE,
    FILTER_MEMORY_ENV,
    FILTER_MIN_FREE_ENV,
    FILTER_TIMEOUT_ENV,
    FILTER_WORDS,
    Stopped,
    described,
    filter_failed,
    filter_max_memory_bytes,
    filter_min_free_bytes,
    filter_timeout_s,
    filters_named,
    free_bytes,
    may_name_filters,
    outside_filters,
    run_watched,
    without_filters,
)
from coworkenv.store._git_hook import HOOK_TIMEOUT_ENV, hook_timeout_s, run_hook
from coworkenv.store._git_locks import STALE_AFTER_S, GitLock, git_locks, lock_for_machines, shared_file_system
from coworkenv.store._git_operation import unfinished_operation_problem
from coworkenv.store._publisher import (
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
from coworkenv.url_credentials import scrub_credentials

logger = logging.getLogger(__name__)
# In the git directory of a repository on a network file system: the record lock publishes of several machines share.
MACHINES_LOCK = "coworkenv-publish-lock"

BRANCH = "main"
# How git says that .git itself is damaged (HEAD, the index, an object or a ref unreadable), not that a command failed.
_DAMAGED_REPOSITORY = re.compile(r"^fatal: .*(?:not a git repository|corrupt|bad object|bad signature|"
                                 r"unable to read|invalid object|broken|garbage|unknown index entry format).*$",
                                 re.MULTILINE)
# A fixed identity, and no system/global git config: works in CI and ignores a user's signing setup.
_IDENTITY = {
    "GIT_AUTHOR_NAME": "coworkenv",
    "GIT_AUTHOR_EMAIL": "coworkenv@localhost",
    "GIT_COMMITTER_NAME": "coworkenv",
    "GIT_COMMITTER_EMAIL": "coworkenv@localhost",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_TERMINAL_PROMPT": "0",
}
# Settings of the repository's own .git/config that a publish overrides: it is a machine commit under the identity
# above, in a batch run where no one can answer gpg's or ssh's passphrase prompt, and a line-ending policy that turns
# git's warning into an error stopped it half way ("failed to write commit object", "LF would be replaced by CRLF").
# The data files are committed as written whatever the policy; git reads these from the environment (git >= 2.31).
# No hook of the repository runs while a publish writes (core.hooksPath: a path that holds no hook): its commit and
# tag are one unattended transaction, which a hook must not stop or rewrite half way (prepare-commit-msg, commit-msg,
# reference-transaction); the post-commit hook runs once the version is committed and tagged (_run_post_commit_hook).
# Nor does the repository's file system monitor (core.fsmonitor: a program git runs at every `status` and `add`, a
# speed-up only, which a publish does without): one that never answered held the publish for good, before it wrote
# (`git status`) or half way, its files in the folder and its commit not made (`git add`). An empty value turns it
# off in every git (a bool since 2.36, a hook's path before).
_OVERRIDES = {"commit.gpgSign": "false", "tag.gpgSign": "false", "tag.forceSignAnnotated": "false",
              "core.safecrlf": "false", "core.hooksPath": os.devnull, "core.fsmonitor": ""}


def _config_env(settings: dict[str, str]) -> dict[str, str]:
    """`settings` as git reads them from the environment (over every config file, under `git -c`)."""
    return {"GIT_CONFIG_COUNT": str(len(settings)),
            **{f"GIT_CONFIG_KEY_{i}": key for i, key in enumerate(settings)},
            **{f"GIT_CONFIG_VALUE_{i}": value for i, value in enumerate(settings.values())}}


# The trailer of a version's tag message that holds its number in the publish order (1, 2, ...).
PUBLISH_NUMBER = "Publish-Number"
_PUBLISH_NUMBER = re.compile(rf"^{PUBLISH_NUMBER}: (\d+)$", re.MULTILINE)
# The stash entry that holds changes found in the folder before a publish (see _keep_changes_aside).
_STASH_MESSAGE = "coworkenv: changes found in the folder before a publish (not part of any version)"


class LocalGitPublisher:
    """Publishes versions into a local git repository at `repo_dir` (created on first publish)."""

    def __init__(self, repo_dir: Path) -> None:
        # The filter settings of the global and system git configs that a publish gives its git commands (key ->
        # (value, file)): looked up at the start of each publish (`_take_outside_filters`).
        self._outside: dict[str, tuple[str, str]] = {}
        try:
            self.repo_dir = Path(repo_dir).resolve()
        except RuntimeError:  # Python 3.11's answer to a symbolic link that loops
            raise PublishError(f"cannot use {repo_dir} as the local dataset repository: a symbolic link on the way "
                               "loops or points nowhere; fix or remove the link, or publish into another folder"
                               ) from None

    def __repr__(self) -> str:
        return f"LocalGitPublisher(repo_dir={str(self.repo_dir)!r})"

    def publish(self, release: DatasetRelease) -> PublishResult:
        """Commit the release's `data/` files and README.md as one version tagged `release.version`."""
        check_version(release.version)
        with _credentials_kept_out():
            return self._publish(release.version, lambda: release_upload(release),
                                 f"Dataset version {release.version}")

    def publish_folder(self, folder: Path, version: str, card_md: str, record: str | None = None) -> PublishResult:
        """Commit the files under `folder` plus README.md as one version tagged `version` (see `folder_upload`)."""
        check_version(version)
        with _credentials_kept_out():
            return self._publish(version, lambda: folder_upload(folder, version, card_md, record),
                                 f"Version {version}")

    def published_versions(self) -> list[str]:
        """Version tags, oldest first: in the order they were published (see `_versions_in_order`)."""
        if not self._git_dir.is_dir() or not self._has_commits():
            return []
        return self._versions_in_order(BRANCH)

    def newest_version(self, name: str) -> str | None:
        """The tag holding the newest content published under version name `name` (see `revisions_of`)."""
        if not self._git_dir.is_dir() or not self._has_commits():
            return None
        return newest_of(name, self._git("tag", "--list").split())

    # -- internals --------------------------------------------------------------------------------

    def _versions_in_order(self, reference: str) -> list[str]:
        """Version tags in the order they were published: a version whose commit another version's commit descends
        from comes before it (each publish commits on top of the last); versions neither descends from (one left off
        the branch by a `git reset` by hand, and those published after it) by the time each tag was made, then by
        where it lies along `reference`'s first-parent history (a version off it just after the commit it forked
        from), then by the numbers in its name (v2 before v10).

        By history alone, a version left off the branch went last: after `git reset --hard v1` and one more publish,
        v1, v3, v2, and the advice that makes a missing branch again named v2 as the last version. By tag time
        first, a version published while the clock was set back (a dead RTC at 1970, a VM restored from a snapshot)
        was listed before the versions it was published on top of. By either, a version published after a reset by
        hand while the clock was set back went before the version the reset left off the branch (v1, v3, v2): so
        each publish writes its number in the publish order into its tag (`Publish-Number: 3`), and that comes
        first; tags without one (published before the numbers, or made by hand) go before the numbered ones."""
        history = self._git("rev-list", "--first-parent", "--reverse", reference).split()
        position = {commit: float(index) for index, commit in enumerate(history)}
        tags: list[tuple[int, int, float, tuple[tuple[int, int, str], ...], str]] = []
        commits: dict[str, str] = {}  # version -> its commit
        for name, made, commit, number in self._tag_listing():
            where = position.get(commit)
            if where is None:  # off the branch: just after the commit it forked from
                fork = self._run("merge-base", reference, commit).stdout.strip()  # none: unrelated histories
                where = position.get(fork, float(len(history))) + 0.5
            tags.append((number, made, where, natural_order(name), name))
            commits[name] = commit
        return _after_their_ancestors(sorted(tags), commits, self._tagged_ancestors(set(commits.values())))

    def _tag_listing(self) -> list[tuple[str, int, str, int]]:
        """Each tag as (name, the date it was made, its commit, its publish number or 0 when it has none)."""
        # %(*objectname) is the commit an annotated tag points to; empty for a lightweight tag. %(creatordate) is
        # the tagger's date of an annotated tag, the committer's of a lightweight one. %(contents), the message, may
        # span lines: each tag ends with a NUL.
        listing = self._git("for-each-ref", "refs/tags",
                            "--format=%(refname:short) %(creatordate:unix) %(objectname) %(*objectname)%01"
                            "%(contents)%00")
        found = []
        for record in listing.split("\0"):
            head, _, message = record.strip("\n").partition("\1")
            if not head:
                continue
            name, made, target, peeled = head.split(" ", 3)
            number = _PUBLISH_NUMBER.search(message)
            found.append((name, int(made or 0), peeled or target, int(number[1]) if number else 0))
        return found

    def _next_publish_number(self) -> int:
        """The number of the version being tagged in the publish order: after every tag there, numbered or not."""
        listing = self._tag_listing()
        return max([len(listing), *(number for *_, number in listing)]) + 1

    def _tagged_ancestors(self, tagged: set[str]) -> dict[str, set[str]]:
        """For each commit of `tagged`, the other commits of `tagged` it descends from (its history, not the clock)."""
        parents: dict[str, list[str]] = {}
        for line in self._git("rev-list", "--parents", *sorted(tagged)).splitlines() if tagged else []:
            commit, *its_parents = line.split()
            parents[commit] = its_parents
        below: dict[str, set[str]] = {}  # commit -> tagged commits among its proper ancestors
        for start in tagged:
            stack = [start]
            while stack:  # iterative, parents first: a long history must not reach the recursion limit
                commit = stack[-1]
                waiting = [p for p in parents.get(commit, []) if p not in below]
                if waiting:
                    stack.extend(waiting)
                    continue
                stack.pop()
                found: set[str] = set()
                for parent in parents.get(commit, []):
                    found |= below[parent] | ({parent} & tagged)
                below[commit] = found
        return {commit: below[commit] for commit in tagged}

    # -- internals --------------------------------------------------------------------------------

    @property
    def _git_dir(self) -> Path:
        return git_dir_of(self.repo_dir)

    @property
    def _marker(self) -> Path:
        """Present while a publish runs; found by the next one, it says that publish was killed."""
        return self._git_dir / "coworkenv-publishing"

    def _publish(
        self, version: str, stage: Callable[[], AbstractContextManager[Upload]], message: str
    ) -> PublishResult:
        hook_timeout = hook_timeout_s()  # a bad setting stops the publish before it writes, not after its commit
        filter_timeout_s()  # the same: read again by each git command that runs the repository's filters
        filter_max_memory_bytes()
        filter_min_free_bytes()
        with self._locked(), self._file_errors_named(version):
            self._ensure_repo()
            self._refuse_linked_folders()
            self._take_outside_filters()
            try:
                self._recover()
            except PublishError as failure:  # before this publish wrote anything
                if _says_unchanged(failure) or not any(words in str(failure) for words in FILTER_WORDS):
                    raise
                raise PublishError(f"{failure}; nothing was published") from None
            # Left behind only by a publish that was killed (see _recover); it names this machine and process.
            self._marker.write_text(f"{socket.gethostname()} {os.getpid()}\n")
            with _kept_alive(self._marker):  # its sign of life while it runs (see _recover)
                refs, objects = self._refs(), self._loose_objects()
                published = False
                try:
                    if self._tag_left_untagged(refs):
                        refs = self._refs()
                    result, committed = self._publish_locked(version, stage, message)
                    published = True
                except BaseException as failure:
                    # A failed publish (a full disk, a bad file) leaves the folder as the last version has it.
                    self._drop_objects_of_failure(refs, objects)
                    left = self._restore("a failed publish")
                    if left is not None and isinstance(failure, Exception):
                        raise PublishError(f"{_without_unchanged(failure)}; {left}") from None
                    if isinstance(failure, PublishError) and not _says_unchanged(failure) and self._refs_are(refs):
                        # git's own failure (a full disk at `git add`, at the refs): say what became of the version.
                        raise PublishError(f"{failure}; nothing was published: {self.repo_dir} holds its last "
                                           "version as before") from None
                    raise
                finally:
                    self._remove_marker(done=published)
            if self._replaced.is_dir():  # the publish is done: the last version's files it replaced are in git
                shutil.rmtree(self._replaced, ignore_errors=True)
            if committed:  # the version's commit, or a "Back to" one
                self._run_post_commit_hook(result.tag, hook_timeout)
            return result

    def _remove_marker(self, *, done: bool) -> None:
        """Remove the publish marker at the end of a publish; `done`: the version is published (committed and
        tagged, or found published). Its removal failing then (the disk remounted read-only, a failing disk) is a
        warning: it was a PublishError saying "the folder keeps its last version" of a version published, and the
        caller publishing again or giving up on it. The marker left makes the next publish check the folder, which
        holds the version."""
        try:
            self._marker.unlink(missing_ok=True)
        except OSError as exc:
            if not done:
                raise
            logger.warning("published into %s, but its publish marker %s could not be removed (%s; %s): the next "
                           "publish there checks the folder first, as after an interrupted one", self.repo_dir,
                           self._marker, os_reason(exc), path_advice(self._marker, exc))

    def _run_post_commit_hook(self, version: str, timeout_s: float) -> None:
        """Run the repository's post-commit hook, as `git commit` would, once the version is committed and tagged (a
        hook that pushes to a backup pushes the tag too). It had run only for a "Back to" commit (`git commit`), never
        for a version's (`commit-tree`). A hook that fails, or that has not ended after `timeout_s` (stopped then),
        is a warning: the version is published, the hook's work is not done."""
        try:
            configured = "hookspath" in (self._git_dir / "config").read_text(errors="replace").lower()
        except OSError:
            configured = True  # unreadable here: git tells
        if not configured and not (self._git_dir / "commondir").exists() \
                and not (self._git_dir / "hooks" / "post-commit").exists():
            return  # none (most repositories): no git command to find it
        env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
        env.update(GIT_DIR=str(self._git_dir), GIT_WORK_TREE=str(self.repo_dir), GIT_TERMINAL_PROMPT="0")
        # Where git looks for it: the repository's own core.hooksPath (relative to the folder), else .git/hooks; not
        # the user's global or the system's (no publish reads their config).
        hook: Path | None = None
        try:
            found = subprocess.run(["git", "rev-parse", "--git-path", "hooks/post-commit"], cwd=self.repo_dir,
                                   env={**env, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull},
                                   capture_output=True, text=True, check=False).stdout.strip()
            hook = self.repo_dir / found if found else None
            if hook is None or not hook.is_file() or not os.access(hook, os.X_OK):
                return
            env.pop("GIT_WORK_TREE")  # as git runs a hook: in the top of the folder, with GIT_DIR only
            ran = run_hook(hook, self.repo_dir, env, timeout_s)
        except OSError as exc:
            logger.warning("the post-commit hook %s of %s could not run (%s); %s is published (committed and "
                           "tagged): what the hook does was not done, do it by hand", hook, self.repo_dir,
                           os_reason(exc), version)
            return
        ran = replace(ran, last_line=told_without_credentials(ran.last_line))
        if ran.returncode is None:
            logger.warning("the post-commit hook %s of %s did not end within %g s: stopped it (and what it started); "
                           "%s is published (committed and tagged): what the hook does was not done, do it by hand "
                           "(its last line: %s), or give it longer with %s=SECONDS", hook, self.repo_dir,
                           ran.timeout_s, version, ran.last_line, HOOK_TIMEOUT_ENV)
        elif ran.returncode != 0:
            logger.warning("the post-commit hook %s of %s exited %d (%s); %s is published (committed and tagged): "
                           "what the hook does was not done, do it by hand", hook, self.repo_dir, ran.returncode,
                           ran.last_line, version)

    @contextmanager
    def _file_errors_named(self, version: str) -> Iterator[None]:
        """A file of the repository that cannot be made, changed or removed (the publish marker in .git, a stale file
        of the last version) as a PublishError naming it and what to do, not a bare OSError."""
        try:
            yield
        except WriteError:  # names its file and what to do already
            raise
        except OSError as exc:
            path = Path(os.fsdecode(exc.filename)) if exc.filename else None
            raise PublishError(f"cannot publish {version} into {self.repo_dir}: {path or 'a file'}: {os_reason(exc)}; "
                               f"{path_advice(path, exc)}; the folder keeps its last version") from None

    def _publish_locked(
        self, version: str, stage: Callable[[], AbstractContextManager[Upload]], message: str
    ) -> tuple[PublishResult, bool]:
        """The version published, and whether a commit was made (else it was published and on the branch already)."""
        if self._tag_exists(version):
            newest = newest_of(version, self._git("tag", "--list").split()) or version
            with stage() as upload:
                found = differences(upload, self._blobs(newest), self._same_blob)
                if found:  # other content under a name published already: a version of its own
                    tag = next_revision(version, self._git("tag", "--list").split())
                    line = replaces(version, newest, tag, found)
                    return self._commit_and_tag(tag, upload, f"{message.replace(version, tag, 1)}\n\n{line}",
                                                line), True
            if self._tree("HEAD") != self._tree(newest):
                # An earlier version published again (A -> B -> A): the branch and the working tree, which
                # readers of the folder use, go back to its content.
                if self._may_filter():  # written through its smudge: kept to put back if that fails
                    changed = self._git("diff", "--name-only", "--no-renames", "-z", "HEAD", newest).split("\0")
                    self._keep_replaced([path for path in changed if path])
                self._git("read-tree", "--reset", "-u", f"{newest}^{{tree}}")
                self._git("commit", "--quiet", "--allow-empty", "--no-verify", "-m", f"Back to {newest}")
                logger.info("version %s is published again in %s", newest, self.repo_dir)
                return self._existing(newest), True
            logger.info("version %s is already published in %s; nothing to do", newest, self.repo_dir)
            return self._existing(newest), False
        with stage() as upload:
            return self._commit_and_tag(version, upload, message, None), True

    def _commit_and_tag(self, version: str, upload: Upload, message: str, replaced: str | None) -> PublishResult:
        """Put `upload` in the folder, commit it with `message` and tag it `version`; `replaced`, the line saying
        which content of the same name it replaces, is logged."""
        self._write_tree(upload)
        files = sorted(upload.files)
        self._git("add", "--all")
        # Its place in the publish order, which neither the clock nor a reset by hand can move (_versions_in_order).
        tag_message = f"{message}\n\n{PUBLISH_NUMBER}: {self._next_publish_number()}"
        # Every version gets its commit, even when its content equals the previous one's.
        parent = self._git("rev-parse", "HEAD").strip() if self._has_commits() else None
        tree = self._git("write-tree").strip()
        revision = self._git("commit-tree", tree, *(["-p", parent] if parent else []), "-m", message).strip()
        branch = f"update refs/heads/{BRANCH} {revision} {parent}" if parent else \
            f"create refs/heads/{BRANCH} {revision}"
        self._move_refs(version, self._tag_object(version, revision, tag_message), branch)
        if replaced is not None:
            logger.warning("published %s to %s at %s: %s", version, self.repo_dir, revision, replaced)
        else:
            logger.info("published %s to %s at %s", version, self.repo_dir, revision)
        return PublishResult(revision=revision, tag=version, location=str(self.repo_dir), files=files)

    def _tag_object(self, version: str, revision: str, message: str) -> str:
        """Write the annotated tag object of `version` on commit `revision` (no ref yet); its id."""
        tagger = self._git("var", "GIT_COMMITTER_IDENT").strip()
        text = f"object {revision}\ntype commit\ntag {version}\ntagger {tagger}\n\n{message.strip()}\n"
        return self._git("mktag", input=text).strip()

    def _move_refs(self, version: str, tag: str, branch: str | None) -> None:
        """Make tag `version` (object `tag`) and, unless None, do `branch` (the line of `git update-ref --stdin`
        that moves BRANCH onto the version's commit) as one transaction of git's: both or neither. `git commit`
        then `git tag` moved the branch first, and a tag that then met a full disk (or a kill) left the new version
        on the branch and in the folder, untagged and not a published version, for readers of the folder to load
        and for the next publish to tag."""
        lines = [*([branch] if branch else []), f"create refs/tags/{version} {tag}"]
        self._git("update-ref", "-m", f"publish {version}", "--stdin", input="".join(f"{line}\n" for line in lines))

    def _blobs(self, version: str) -> dict[str, str]:
        """The files of `version`: repository path -> git blob id."""
        listed = self._git("ls-tree", "-r", "-z", f"{version}^{{tree}}").split("\0")
        return {entry.split("\t", 1)[1]: entry.split("\t", 1)[0].split()[2] for entry in listed if "\t" in entry}

    def _same_blob(self, path: str, blob: str, source: Path) -> bool:
        """Whether `source`, committed at `path`, would be blob `blob` (git's filters for that path applied)."""
        return self._git("hash-object", f"--path={path}", "--", str(source)).strip() == blob

    def _tag_left_untagged(self, refs: str) -> bool:
        """Tag the version that an interrupted publish committed at the head of the branch and never tagged (git
        killed between the two renames of `_move_refs`'s transaction, a publish of an older coworkenv, which committed
        and then tagged, stopped between them): readers of the folder have had its files since. Left so, the next
        publish of another version committed on top of it, and the version was in no tag and listed nowhere. `refs`:
        `_refs()` now, which names HEAD's commit and each tag's (no git command when the head is tagged, as it is
        after every publish but a "Back to" one); whether it tagged one. Only a commit a publish made (its identity,
        `_IDENTITY`, as author and committer) is a version's: one made by hand and titled alike is not."""
        listed = [line.split(" ", 1) for line in refs.splitlines() if " " in line]
        revision = next((commit for commit, name in listed if name == "HEAD"), None)
        tags = {name.removeprefix("refs/tags/").removesuffix("^{}"): commit for commit, name in listed
                if name.startswith("refs/tags/")}
        if revision is None or revision in tags.values():
            return False
        author, committer, message = self._git("log", "-1", "--format=%ae%x00%ce%x00%B", revision).split("\0", 2)
        message = message.strip()
        left = version_committed(message)
        if left is None or left in tags:
            return False
        ours = _IDENTITY["GIT_AUTHOR_EMAIL"]
        if author != ours or committer != ours:
            # Made by hand (`git commit -m "Version v3"`), by someone who means something else by it: tagged, it took
            # the name v3, and the publish of v3 itself went under v3.v2. A publish commits under its own identity.
            logger.warning("the head of %s in %s (%s) is titled %r but was made by %s, not by a publish: left untagged "
                           "(a version is tagged only on a publish's own commit)", BRANCH, self.repo_dir,
                           revision[:12], message.partition("\n")[0], author if author != ours else committer)
            return False
        tag_message = f"{message}\n\n{PUBLISH_NUMBER}: {self._next_publish_number()}"
        self._move_refs(left, self._tag_object(left, revision, tag_message), None)
        logger.warning("version %s was committed on %s in %s (%s) by a publish interrupted before its tag: tagged it "
                       "%s now", left, BRANCH, self.repo_dir, revision[:12], left)
        return True

    def _recover(self) -> None:
        """Undo what an interrupted publish (kill -9, power loss) left: git's lock files and a half-written folder.

        A git lock file is removed only when no visible process holds it and either a publish of ours was
        interrupted (every publisher holds the directory lock, so none is running) or it is old; a lock that a
        user's git command may hold now stops the publish before anything is touched.
        """
        interrupted = self._marker.exists()
        shared = shared_file_system(self.repo_dir)
        if interrupted and shared:
            self._refuse_publish_elsewhere(shared)
        locks = git_locks(self._git_dir, self.repo_dir)
        last_alive = self._last_sign_of_life() if interrupted else None
        held = [lock for lock in locks
                if not lock.stale(interrupted and self._left_by_interrupted(lock, last_alive) is None,
                                  shared is not None)]
        if held:
            lock = held[0]
            if lock.holders:
                raise PublishError(
                    f"{lock.path} is in use by {', '.join(lock.holders)}, a git command working in {self.repo_dir} "
                    "now; let it finish (or stop it), then publish again")
            if shared and lock.age_s >= STALE_AFTER_S:
                raise PublishError(
                    f"{lock.path} was made {lock.age_s:.0f} s ago, not by an interrupted publish, and {self.repo_dir} "
                    f"is on a network file system ({shared}) that other machines may use: a git command on one of "
                    "them may hold it (waiting for an editor, say), and this machine cannot see their processes, so "
                    "it is not removed as old; if no git command runs in the repository on any machine, delete it "
                    "and publish again; nothing was touched")
            # Dated in the future: the clock was set back since it was made, so its age is unknown and it is
            # never "old"; only a person can tell whether a git command still holds it.
            made = f"was made {lock.age_s:.0f} s ago" if lock.age_s >= 0 else \
                f"is dated {-lock.age_s:.0f} s in the future (the clock was set back since it was made)"
            on_its_own = f" (a lock older than {STALE_AFTER_S / 60:.0f} minutes is removed on its own)" \
                if lock.age_s >= 0 and not shared else ""
            why = self._left_by_interrupted(lock, last_alive) if interrupted else None
            raise PublishError(
                f"{lock.path} {made}, not by an interrupted publish{f' ({why})' if why else ''}, and no process this "
                f"user can see holds it: a git command of someone else's may be working in {self.repo_dir}; if none "
                f"is, delete it and publish again{on_its_own}")
        for lock in locks:
            lock.path.unlink(missing_ok=True)
        if locks:
            logger.warning("removed stale git lock files in %s: %s", self.repo_dir,
                           ", ".join(lock.path.relative_to(self._git_dir).as_posix() for lock in locks))
        unfinished = unfinished_operation_problem(self._git_dir, self.repo_dir, self._unmerged_files)
        if unfinished is not None:  # a publish never merges, rebases or bisects: it is someone's, and theirs to end
            raise PublishError(unfinished)
        if not interrupted:
            self._attach_head(move=False)  # a HEAD that holds someone's work is refused before anything is touched
            self._keep_changes_aside()
        if self._attach_head():
            return
        # `git status` also proves the repository readable before any file of the folder is touched.
        if self._git("status", "--porcelain", "--untracked-files=all").strip():
            self._restore("an interrupted publish")

    def _last_sign_of_life(self) -> float | None:
        """When the interrupted publish whose marker is there last showed it was running: the marker's modification
        time, which a publish sets again every ALIVE_EVERY_S while it runs (`_kept_alive`); None where unreadable."""
        try:
            return self._marker.stat().st_mtime
        except OSError:
            return None

    def _left_by_interrupted(self, lock: GitLock, last_alive: float | None) -> str | None:
        """None where the interrupted publish (its marker there, last alive at `last_alive`) may have left `lock`;
        else why it cannot have: a file no git command of a publish locks (a topic branch, the config), or one made
        more than LEFT_WITHIN_S after the publish's last sign of life. A lock held open by a process /proc does not
        show is held, not left (`git_locks`). Taken for the interrupted publish's, such a lock was deleted under a
        git this machine does not see (another container or PID namespace), whose write was lost."""
        name = lock.path.relative_to(self._git_dir).as_posix()
        if not _a_publish_locks(name):
            return "a publish never locks that file"
        if last_alive is not None and time.time() - lock.age_s > last_alive + LEFT_WITHIN_S:
            return (f"made {time.time() - lock.age_s - last_alive:.0f} s after the interrupted publish was last seen "
                    "running")
        return self._someone_elses_new_commit(lock, name)

    def _someone_elses_new_commit(self, lock: GitLock, name: str) -> str | None:
        """Why a ref's lock (a branch's, a tag's, HEAD's) cannot be the interrupted publish's for what it holds: git
        writes the value a ref moves to into its lock, and a lock naming an object made by another identity than the
        publish's, that no ref holds yet, is another git's new commit (a user's `git commit` in another container),
        whatever its date: a publish moves a ref only to its own objects, or back to one a ref holds. None where it
        cannot tell (an empty lock, a value a ref holds, an object it cannot read)."""
        if name != "HEAD.lock" and not name.startswith("refs/"):
            return None
        try:
            value = lock.path.read_bytes()[:128].decode("ascii").strip()
        except (OSError, UnicodeDecodeError):
            return None
        if not _OBJECT_ID.fullmatch(value):
            return None
        shown = self._run("cat-file", "-p", value, watch=False)
        idents = _IDENTS.findall(shown.stdout) if shown.returncode == 0 else []
        if not idents or _IDENTITY["GIT_AUTHOR_EMAIL"] in idents:
            return None
        held = self._run("for-each-ref", "--contains", f"{value}^{{commit}}", "--format=%(refname)", watch=False)
        if held.returncode != 0 or held.stdout.strip():
            return None
        ref = name.removesuffix(".lock")
        return (f"it moves {ref} to {value[:12]}, a new commit of {idents[0]} that no branch or tag holds yet: "
                "another git's write, not the publish's")

    def _refuse_publish_elsewhere(self, shared: str) -> None:
        """Stop, touching nothing, when the publish marker of a repository on a network file system is not this
        machine's: a publish there may be writing now (a lock on a folder does not reach other machines), and taking
        it for an interrupted one removed its git lock files and put the folder back under it."""
        try:
            host, _, pid = self._marker.read_text(errors="replace").strip().partition(" ")
        except OSError:
            host, pid = "", ""
        if host == socket.gethostname():
            return  # this machine's: every publish here holds the folder's lock, so the one that wrote it is gone
        who = f"a publish on the machine {host} (process {pid})" if host else \
            "a publish of an older coworkenv, on this machine or another,"
        raise PublishError(
            f"{self._marker} says {who} is writing {self.repo_dir}, which is on a network file system ({shared}) that "
            "other machines use: it may be running now (this machine cannot see it, and a lock taken here does not "
            "reach it), or it was stopped there; let it finish, or, if no publish runs on that machine, delete "
            f"{self._marker} and publish again (that publish's half-written files are then put back on the last "
            "version); nothing was touched")

    def _unmerged_files(self) -> list[str]:
        """The files of the folder with unresolved conflicts (unmerged in the index). `ls-files` reads the index
        alone, and in a damaged repository says so the way `_git` names (`git diff` there fell back to comparing two
        paths and printed its usage)."""
        entries = self._git("ls-files", "--unmerged", "-z").split("\0")  # "<mode> <object> <stage>\t<path>" per stage
        return sorted({entry.split("\t", 1)[1] for entry in entries if "\t" in entry})

    def _keep_changes_aside(self) -> None:
        """Put changes that no publish made (a file added, edited or deleted in the folder by hand) into git's stash,
        so that the publish starts from the last version and nothing of anyone's is deleted.

        The folder is the publisher's output and the next version replaces it; restoring it dropped such a file for
        good (an untracked file has no copy anywhere) and blamed an interrupted publish. Files git ignores are left.
        """
        # `git status` also proves the repository readable before any file of the folder is touched.
        listed = self._git("status", "--porcelain", "--untracked-files=all", "--no-renames", "-z").split("\0")
        changed = sorted({entry[3:] for entry in listed if len(entry) > 3})
        if not changed:
            return
        shown = ", ".join(changed[:3]) + (f" and {len(changed) - 3} more" if len(changed) > 3 else "")
        if not self._has_commits():  # git keeps no stash before a first commit
            raise PublishError(
                f"{self.repo_dir} holds files that no publish wrote ({shown}) and no version yet; move them out of the "
                "folder (a publish replaces what it holds), then publish again; nothing was touched")
        self._git("stash", "push", "--include-untracked", "--quiet", "-m", _STASH_MESSAGE)
        logger.warning("%s held changes that no publish made (%s): kept them in git's stash (`git -C %s stash show "
                       "--include-untracked -p` shows them, `git -C %s stash pop` brings them back) and publishing "
                       "from the last version", self.repo_dir, shown, self.repo_dir, self.repo_dir)

    def _attach_head(self, *, move: bool = True) -> bool:
        """Put HEAD back on BRANCH when someone checked out a version or another branch; whether it moved (with
        `move=False`, whether it would, after the same checks).

        A publish commits on HEAD: from a detached HEAD the new version would hang off an old one while BRANCH,
        which readers of the repository follow, stayed behind. Moving is safe only when HEAD holds no commit that
        BRANCH lacks; otherwise that work is someone's, and the publish stops before touching it.
        """
        head_ref = self._run("symbolic-ref", "--quiet", "HEAD").stdout.strip()
        if head_ref == f"refs/heads/{BRANCH}":
            return False
        where = f"on branch {head_ref.removeprefix('refs/heads/')}" if head_ref else "detached"
        branch_exists = self._run("rev-parse", "--verify", "--quiet", f"refs/heads/{BRANCH}").returncode == 0
        if self._has_commits():
            head = self._git("rev-parse", "HEAD").strip()
            if not branch_exists:
                self._check_branch_can_be_made(head, where, on_branch=bool(head_ref))
                if move:
                    self._git("branch", BRANCH, head)
                    logger.warning("branch %s of %s was missing (renamed or deleted): made it again at HEAD (%s at "
                                   "%s), which holds every published version", BRANCH, self.repo_dir, where, head[:12])
            elif self._run("merge-base", "--is-ancestor", head, BRANCH).returncode != 0:
                raise PublishError(
                    f"{self.repo_dir}: HEAD is {where} at {head[:12]}, which holds commits that branch {BRANCH} "
                    f"lacks, and versions are published only on {BRANCH}; keep that work on a branch of its own, "
                    f"run `git -C {self.repo_dir} checkout {BRANCH}`, then publish again")
        if not move:
            return True
        self._git("symbolic-ref", "HEAD", f"refs/heads/{BRANCH}")
        if branch_exists:
            self._restore(f"finding HEAD {where} (an earlier version or another branch checked out)")
        return True

    def _check_branch_can_be_made(self, head: str, where: str, *, on_branch: bool) -> None:
        """After someone renamed (`git branch -m main master`) or deleted BRANCH: PublishError, with the commands that
        make it again, unless HEAD holds every version and no commit a publish did not make (then BRANCH can be made
        at HEAD). Refused, the message said to check BRANCH out, which no longer existed."""
        authors = self._git("log", "--format=%ae", head, "--not", "--tags").split()
        theirs = [author for author in authors if author != _IDENTITY["GIT_AUTHOR_EMAIL"]]
        lacked = self._git("tag", "--no-merged", head).split()  # versions HEAD's history lacks
        if not theirs and not lacked:
            return
        newest = (self._versions_in_order(head) or [head[:12]])[-1]
        git = f"git -C {self.repo_dir}"
        if not theirs:
            why, do = f"lacks version(s) {', '.join(lacked)}", f"`{git} branch {BRANCH} {newest}`"
        elif on_branch:  # their work stays on the branch HEAD is on
            why, do = f"holds {len(theirs)} commit(s) no publish made", f"`{git} checkout -b {BRANCH} {newest}`"
        else:
            why = f"holds {len(theirs)} commit(s) no publish made"
            do = f"`{git} branch my-work` (keeps that work), then `{git} checkout -b {BRANCH} {newest}`"
        raise PublishError(
            f"{self.repo_dir}: branch {BRANCH}, which versions are published on and readers follow, is missing "
            f"(renamed or deleted), and HEAD ({where} at {head[:12]}) {why}; make {BRANCH} again at the last "
            f"version: {do}, then publish again; nothing was touched")

    def _restore(self, cause: str) -> str | None:
        """Put the working tree back to the last version (or empty before the first), dropping files of `cause`;
        None when it did, else what is left and what to do.

        The files of `cause` that the last version does not hold go first, by hand (git itself writes its index
        before it removes anything), and only then does git write the last version's files again: on a full disk, the
        usual cause, the space the failed publish took is free before it is needed. Rewriting first failed for want
        of that space and left the folder with the last version's files deleted or replaced and part of the new
        one's, which readers of the folder then loaded."""
        try:
            if self._has_commits():
                put_back = self._put_back_replaced()
                self._remove_files_of_failed_publish(put_back)
                # A file put back is the one the index was made from (its inode, size and time), but the link and
                # the rename changed its ctime: git then takes it for unchanged without reading it through a filter.
                self._git(*(["-c", "core.trustctime=false"] if put_back else []), "read-tree", "--reset", "-u", "HEAD")
            else:
                self._git("read-tree", "--empty")
            self._git("clean", "--force", "-d", "--quiet")
        except (PublishError, OSError) as exc:  # the original failure is the one to report
            logger.error("could not restore %s after %s: %s; run `git -C %s reset --hard` and `git clean -fd`",
                         self.repo_dir, cause, told_without_credentials(str(exc)), self.repo_dir)
            why = _first_line(_without_unchanged(exc))
            return (f"putting {self.repo_dir} back on its last version failed too ({why}), so the folder may hold "
                    "files of both versions: once the cause is fixed, run `git -C "
                    f"{self.repo_dir} reset --hard` and `git -C {self.repo_dir} clean -fd` (the versions themselves "
                    "are safe in git), or publish again")
        logger.warning("restored %s to its last published version after %s", self.repo_dir, cause)
        return None

    def _refs(self) -> str:
        """Every ref and HEAD, as git lists them (what makes an object reachable), and the commit of each annotated
        tag (`refs/tags/v1^{}`)."""
        return self._run("show-ref", "--head", "--dereference").stdout

    def _refs_are(self, refs: str) -> bool:
        """Whether the refs are `refs` still (False where git cannot tell)."""
        try:
            return self._refs() == refs
        except (PublishError, OSError):
            return False

    def _loose_objects(self) -> set[Path]:
        """The loose object files of the repository (`objects/xx/...`), git's temp objects included."""
        objects = self._git_dir / "objects"
        try:
            return {entry for folder in objects.iterdir() if len(folder.name) == 2 and folder.is_dir()
                    for entry in folder.iterdir()}
        except OSError:
            return set()

    def _drop_objects_of_failure(self, refs: str, before: set[Path]) -> None:
        """Remove the loose objects a failed publish wrote (a `git add` or `commit` stopped by a full disk), while
        no ref has moved since it began: nothing can reach them then, and on a full disk they hold the room that
        putting the last version's files back needs. Once a ref moved (a commit made, its tag not), they stay."""
        try:
            if self._refs() != refs:
                return
            for path in self._loose_objects() - before:
                path.unlink(missing_ok=True)
        except (PublishError, OSError):
            return

    @property
    def _replaced(self) -> Path:
        """Where a publish into a repository with filters keeps the folder's files it replaces or removes (links)."""
        return self._git_dir / "coworkenv-replaced"

    def _keep_replaced(self, paths: list[str]) -> None:
        """Keep a link to each file of `paths` that the folder holds, before a publish replaces or removes it, where
        the repository names a filter: putting the last version back then needs no filter (a smudge that never
        answers or fails could not write its files again, and the folder was left without them) and no room."""
        if self._replaced.exists():  # left by a publish killed half way
            shutil.rmtree(self._replaced, ignore_errors=True)
        if not paths or not self._may_filter():
            return
        for path in paths:
            kept = self._replaced / path
            try:
                kept.parent.mkdir(parents=True, exist_ok=True)
                os.link(self.repo_dir / path, kept)
            except FileNotFoundError:
                continue
            except OSError:  # no hard links here (or no room for a folder): put back through git, as without filters
                shutil.rmtree(self._replaced, ignore_errors=True)
                return

    def _put_back_replaced(self) -> set[str]:
        """Put back the files `_keep_replaced` kept (renames: no filter, no room needed); their repository paths."""
        if not self._replaced.is_dir():
            return set()
        put_back: set[str] = set()
        for current, _, names in os.walk(self._replaced):
            for name in names:
                kept = Path(current) / name
                path = kept.relative_to(self._replaced).as_posix()
                (self.repo_dir / path).parent.mkdir(parents=True, exist_ok=True)
                os.replace(kept, self.repo_dir / path)
                put_back.add(path)
        shutil.rmtree(self._replaced, ignore_errors=True)
        return put_back

    def _remove_files_of_failed_publish(self, put_back: set[str]) -> None:
        """Remove the working tree's files that differ from HEAD, new or changed (git does not ignore them): what
        `read-tree --reset -u HEAD` and `clean` would replace or remove (a publish put the user's own changes aside
        before it began, `_keep_changes_aside`), removed without writing anything first. Only reads of git."""
        held = set(self._git("ls-tree", "-r", "--name-only", "-z", "HEAD").split("\0"))
        # Ignored files are never staged (`git add --all` leaves them), so the index's list of them is whole.
        ignored = set(self._git("ls-files", "--others", "--ignored", "--exclude-standard", "-z").split("\0"))
        new = {path for path in self._worktree()[0] if path not in held} - ignored
        staged = self._git("diff-index", "--cached", "--name-only", "--no-renames", "-z", "HEAD").split("\0")
        # Without the repository's filters, which the failure may be theirs (one that stalls or fails): a file they
        # would find unchanged is then removed and written again from HEAD, which holds it.
        edited = self._git(*without_filters(self._filters()), "diff-files", "--name-only", "--no-renames",
                           "-z").split("\0")
        for path in sorted(new | ({*staged, *edited} & held) - {""} - put_back):
            (self.repo_dir / path).unlink(missing_ok=True)

    def _write_tree(self, upload: Upload) -> None:
        existing, directories = self._worktree()
        self._keep_replaced([*upload.stale(existing), *(set(upload.files) & set(existing))])
        for stale in upload.stale(existing):
            (self.repo_dir / stale).unlink()
        for path, source in upload.files.items():
            atomic_copy(source, self.repo_dir / path)
        # git does not track directories; drop the ones emptied by stale deletions (deepest first).
        for directory in sorted(directories, key=lambda d: len(d.parts), reverse=True):
            if not any(directory.iterdir()):
                directory.rmdir()

    def _worktree(self) -> tuple[list[str], list[Path]]:
        """Repository paths of the working tree's files, and its directories (never inside .git)."""
        files: list[str] = []
        directories: list[Path] = []
        for current, subdirs, names in os.walk(self.repo_dir):
            subdirs[:] = [name for name in subdirs if name != ".git"]
            base = Path(current)
            directories += [base / name for name in subdirs]
            # A `.git` file points to the git directory: never a file of a version, never deleted as stale.
            files += [(base / name).relative_to(self.repo_dir).as_posix() for name in names
                      if not (name == ".git" and base == self.repo_dir)]
        return files, directories

    def _existing(self, version: str) -> PublishResult:
        revision = self._git("rev-parse", f"{version}^{{commit}}").strip()
        listed = self._git("ls-tree", "-r", "--name-only", "-z", revision).split("\0")
        files = sorted(path for path in listed if path and path != ".gitattributes")
        return PublishResult(revision=revision, tag=version, location=str(self.repo_dir), files=files)

    def _ensure_repo(self) -> None:
        if self._git_dir.is_dir() and not self._git_dir_only_locked():
            return
        if self.repo_dir.exists() and any(entry.name != ".git" or not self._git_dir_only_locked()
                                          for entry in self.repo_dir.iterdir()):
            raise PublishError(
                f"{self.repo_dir} exists, is not empty and is not a git repository; "
                "choose an empty or new directory for the local dataset repository"
            )
        # Plain `git init` in the directory: GIT_WORK_TREE at init would pin an absolute path into the config.
        self._git("init", "--quiet", f"--initial-branch={BRANCH}", locate=False)

    def _refuse_linked_folders(self) -> None:
        """Stop the publish before it touches anything where a folder that holds files of the repository is now a
        symbolic link: a `data/` moved to a bigger disk and linked back (`mv REPO/data /big && ln -s /big
        REPO/data`). git keeps a link as a link and never reads or writes past it: the publish stopped in `git stash`
        with git's "beyond a symbolic link" and "fix the repository state", which named neither the link nor the
        fix. A link with no file of the repository behind it (one a version holds, committed as a link; one git ignores;
        a new one) is handled as any other file is, as before."""
        linked: list[Path] = []
        for current, subdirs, _names in os.walk(self.repo_dir):  # links are listed, never followed
            if Path(current) == self.repo_dir:
                subdirs[:] = [name for name in subdirs if name != ".git"]
            linked += [Path(current) / name for name in subdirs if os.path.islink(os.path.join(current, name))]
        if not linked:
            return
        names = [path.relative_to(self.repo_dir).as_posix() for path in linked]
        tracked = [path for path in self._git("ls-files", "-z", "--", *names).split("\0") if path]
        for path, name in zip(linked, names, strict=True):
            if not any(file.startswith(f"{name}/") for file in tracked):
                continue  # no file of the repository's behind it: kept aside or left as any other file is
            target = os.readlink(path)
            leads = (path.parent / target).resolve()
            shown = target if str(leads) == target else f"{target}, that is {leads}"
            raise PublishError(
                f"{path} is a symbolic link to a folder ({shown}): git keeps a link as a link and "
                f"never reads or writes the files behind it, so no version can be published through it; put the "
                f"folder back in its place (rm {path} && mv {leads} {path}), or, to keep the dataset on another disk, "
                f"move the whole repository there and link {self.repo_dir} itself to it, then publish again; nothing "
                f"was published: {self.repo_dir} and {leads} are as they were")

    def _has_commits(self) -> bool:
        return self._run("rev-parse", "--verify", "--quiet", "HEAD").returncode == 0

    def _tree(self, ref: str) -> str:
        return self._git("rev-parse", f"{ref}^{{tree}}").strip()

    def _tag_exists(self, version: str) -> bool:
        return self._run("rev-parse", "--verify", "--quiet", f"refs/tags/{version}").returncode == 0

    @contextmanager
    def _locked(self) -> Iterator[None]:
        # Serialize publishers sharing a repository: git's own index.lock would fail the second one instead.
        # The lock is on the directory itself, so it leaves no file behind.
        try:
            make_folder(self.repo_dir)
            fd = os.open(self.repo_dir, os.O_RDONLY)
        except OSError as exc:
            blocked = ": a file stands in the way" if exc.errno in (errno.EEXIST, errno.ENOTDIR) else \
                f": {path_advice(self.repo_dir, exc)}" if exc.errno in (errno.ELOOP, errno.ENOENT) else ""
            raise PublishError(f"cannot use {self.repo_dir} as the local dataset repository ({os_reason(exc)}"
                               f"{blocked}); publish into a folder that exists or can be created") from None
        try:
            try:
                lock_exclusive(fd, self.repo_dir, wait=False)
            except BlockingIOError:
                # Said, not silent: a publish that held it for good (a program of the repository's that never ended)
                # left the next one waiting without a word.
                holders = ", ".join(f"process {pid}" for pid in lock_holders(fd)) or "another process"
                logger.warning("another publish into %s (%s) holds its lock: waiting for it to end; if it does not, "
                               "stop it (a post-commit hook of its is stopped after %s, %g s)", self.repo_dir,
                               holders, HOOK_TIMEOUT_ENV, hook_timeout_s())
                lock_exclusive(fd, self.repo_dir)
            with self._machines_locked():
                yield
        finally:
            os.close(fd)  # closing releases the lock

    @contextmanager
    def _machines_locked(self) -> Iterator[None]:
        """On a network file system, also a POSIX record lock on `.git/coworkenv-publish-lock`: the folder's `flock`
        stays on this machine there (NFS keeps no folder's flock at its server), so two machines that began a publish
        into one shared repository in the same instant both went on, each before the other's marker was written
        (git's index.lock then failed one, whose restore put the folder back under the other). A record lock is kept
        by the server (NLM, NFSv4, SMB byte-range locks) and released by it when its holder's machine is gone.
        Nothing is locked on a local disk. The very first publish into an empty shared folder makes `.git` itself
        (`mkdir`, which one machine alone wins at the server) to hold the lock before `git init`: without it two
        machines' first publishes ran `git init` and their first commits into one folder at once, and one of them
        failed part way, calling the repository damaged (or a file's folder missing) when it was not. A folder with files and no git directory is refused by
        `_ensure_repo`, and gets no `.git` of ours."""
        shared = shared_file_system(self.repo_dir)
        git_dir = self._git_dir
        if shared is None:
            yield
            return
        if not git_dir.exists() and not os.path.islink(git_dir):
            # There already: another machine's first publish made it an instant before, and its lock is in it. Not
            # readable or writable: `_ensure_repo` and `git init` say so, as before.
            with suppress(OSError):
                if not any(self.repo_dir.iterdir()):
                    git_dir.mkdir(exist_ok=True)
        if not git_dir.is_dir():
            yield
            return
        path = git_dir / MACHINES_LOCK
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o666)
        except OSError as exc:
            raise PublishError(f"cannot open {path}, the lock that keeps publishes of other machines out of "
                               f"{self.repo_dir} ({os_reason(exc)}); make it a file this user can write (or delete "
                               "it), then publish again; nothing was touched") from None
        try:
            lock_for_machines(
                fd, lambda exc: logger.warning(
                    "%s cannot be locked (%s): %s is on a network file system (%s) mounted without locks, so a publish "
                    "of another machine into it at the same time is not kept out; publish from one machine at a time "
                    "(or mount it with locks)", path, os_reason(exc), self.repo_dir, shared),
                lambda: logger.warning(
                    "another publish into %s holds %s (%s): waiting for it to end; the repository is on a network file "
                    "system (%s), so it may run on another machine; if it never ends, stop it there", self.repo_dir,
                    path, self._marker_says(), shared))
            yield
        finally:
            os.close(fd)  # closing releases the lock, here and at the server

    def _git_dir_only_locked(self) -> bool:
        """Whether the git directory holds only the machines' lock: made by a first publish on a network file system
        (`_machines_locked`) that has not run `git init` yet, or was stopped before it did (then the next one does)."""
        try:
            return {entry.name for entry in self._git_dir.iterdir()} <= {MACHINES_LOCK}
        except OSError:
            return False

    def _marker_says(self) -> str:
        try:
            host, _, pid = self._marker.read_text(errors="replace").strip().partition(" ")
        except OSError:
            return "no publish marker written yet"
        return f"{self._marker.name} names the machine {host}, process {pid}" if host else "an older publish's marker"

    def _filter_stalled(self, args: tuple[str, ...], stall_s: float) -> str:
        """Why a git command that ran the repository's filters was stopped, and what to do."""
        filters = self._filters()
        return (f"`git {' '.join(args)}` in {self.repo_dir} {FILTER_WORDS[0]} ({self._described(filters)}) and "
                f"did nothing for {stall_s:g} s (no read or write by git or a filter, no CPU time of git's: a filter "
                "that only uses CPU is caught in a loop, one that only starts programs that come and go, as a retry "
                "loop's tries and sleeps, waits for something that does not come): stopped it and "
                "what it started; a publish commits the files through the clean and smudge filters that "
                f"{self._attribute_files()} apply; fix the filter (run it by hand "
                f"on a file to see why it waits), or remove it ({self._remove_filters(filters)}), or give "
                f"it longer with {FILTER_TIMEOUT_ENV}=SECONDS, then publish again")

    def _filter_stopped(self, args: tuple[str, ...], stopped: Stopped, stall_s: float) -> str:
        """Why a git command that ran the repository's filters was stopped (`stopped`), and what to do."""
        if stopped.memory_bytes is None and stopped.error_bytes is None and stopped.free_bytes is None:
            return self._filter_stalled(args, stall_s)
        filters = self._filters()
        mib = 1 << 20
        if stopped.free_bytes is not None and stopped.file is not None:
            return (f"`git {' '.join(args)}` in {self.repo_dir} {FILTER_WORDS[0]} ({self._described(filters)}) and "
                    f"its processes filled another disk than the repository's, writing {stopped.file}: "
                    f"{stopped.free_bytes / mib:,.0f} MiB left free there, under the {stopped.limit_bytes / mib:,.0f} "
                    f"MiB a publish leaves on a disk its filters write to ({FILTER_MIN_FREE_ENV}, or half of what that "
                    "disk had free when they began writing there, whichever is less): a filter that writes for ever "
                    "(copies or logs in the temporary folder, a home or a cache folder); stopped it and what it "
                    "started, before that disk was full for every other writer on it; what it wrote is still there "
                    f"(`ls -l {stopped.file}`); fix the filter (run it by hand on a file: it must stop writing), or "
                    f"remove it ({self._remove_filters(filters)}), or free space on that disk, then publish again")
        if stopped.free_bytes is not None:
            return (f"`git {' '.join(args)}` in {self.repo_dir} {FILTER_WORDS[0]} ({self._described(filters)}) and "
                    f"its processes filled the repository's disk: {stopped.free_bytes / mib:,.0f} MiB left free, "
                    f"under the {stopped.limit_bytes / mib:,.0f} MiB a publish leaves ({FILTER_MIN_FREE_ENV}; 1 GiB, "
                    "or half of what was free when the command began, unless set): a filter that writes for ever "
                    f"into its own store (a `process` filter such as git-lfs writing into {self._git_dir}/lfs/objects, "
                    "a clean filter keeping copies of what it reads); stopped it and what it started, before the disk "
                    "was full for every other writer on it; what it wrote is still on the disk (`du -sh "
                    f"{self._git_dir}/*` shows where); a publish commits the files through the clean and smudge "
                    f"filters that {self._attribute_files()} apply; fix the filter (run it by hand on a file: it "
                    f"must stop writing), or remove it ({self._remove_filters(filters)}), or, for a dataset that "
                    f"large, free space on the disk (or lower {FILTER_MIN_FREE_ENV}=MIB), then publish again")
        if stopped.memory_bytes is not None:
            what = (f"its processes came to hold {stopped.memory_bytes / mib:,.0f} MiB of memory, over the limit of "
                    f"{stopped.limit_bytes / mib:g} MiB ({FILTER_MEMORY_ENV}; half of this machine's memory unless "
                    "set): git holds a filter's whole output of a file in memory, and this one's did not end (a filter that "
                    "writes for ever: a program looping on its output, or reading a device or a pipe that never "
                    "ends)")
            more = f", or, for files that large, allow more with {FILTER_MEMORY_ENV}=MIB"
        else:
            what = (f"it and its filters wrote {(stopped.error_bytes or 0) / mib:,.1f} MiB of messages to its error "
                    "output, "
                    f"over the limit of {stopped.limit_bytes / mib:g} MiB "
                    "(a filter that logs for ever: a retry loop, a program looping on its messages), which goes to a "
                    "file of the temporary folder's disk")
            more = ""
        return (f"`git {' '.join(args)}` in {self.repo_dir} {FILTER_WORDS[0]} ({self._described(filters)}) and "
                f"{what}; stopped it and what it started; a publish commits the files through the clean and smudge "
                f"filters that {self._attribute_files()} apply; fix the filter (run it by hand on a file: its output "
                f"must end), or remove it ({self._remove_filters(filters)}){more}, then publish again")

    def _filters(self) -> dict[str, dict[str, str]]:
        """The filters the repository's config names (`filters_named`), and those of the global and system configs
        that a publish gives its git commands; none where there are none."""
        if not self._may_filter():
            return {}
        return filters_named(self._run("config", "-z", "--get-regexp", r"^filter\.", watch=False).stdout)

    def _may_filter(self) -> bool:
        """Whether a git command of this publish may run a filter: the repository's config may name one, or a
        global or system config defines one (`_take_outside_filters`; an attributes file of theirs runs none of its
        own)."""
        return any(key.startswith("filter.") for key in self._outside) or may_name_filters(self._git_dir)

    def _take_outside_filters(self) -> None:
        """Look up the filters that the system's and the user's global git config define, which a publish reads
        nowhere else (GIT_CONFIG_GLOBAL is /dev/null for its commands): `git lfs install` puts `filter.lfs.*` there,
        and the repository's `.gitattributes` applies them. Without them a version's files went into git raw where
        the user's own git commits LFS pointers (a push to the Hub then refuses files over 10 MiB that are not in
        LFS), and the same content published again was taken for other content (`_same_blob`: a raw hash against a
        pointer's blob). A setting the repository's own config makes wins, as in git."""
        self._outside = {}
        found = outside_filters(self._git_dir, self.repo_dir, os.environ)
        if not found:
            return
        own = {f"filter.{name}.{setting}".lower() for name, settings in self._filters().items() for setting in settings}
        if ATTRIBUTES_FILE in found and self._run("config", "--get", ATTRIBUTES_FILE, watch=False).returncode == 0:
            own.add(ATTRIBUTES_FILE)  # the repository's own attributes file is read instead, as in git
        self._outside = {key: held for key, held in found.items() if key.lower() not in own}

    def _attribute_files(self) -> str:
        """The files whose attributes apply the filters of a publish: the repository's, and the attributes file that
        the global or system git config names (`core.attributesFile`) where it is given to the publish."""
        own = "the .gitattributes (or .git/info/attributes) of the repository"
        if ATTRIBUTES_FILE not in self._outside:
            return own
        path, origin = self._outside[ATTRIBUTES_FILE]
        return f"{own} and {path} (core.attributesFile, set in {origin})"

    def _described(self, filters: dict[str, dict[str, str]]) -> str:
        return described(filters, {key: origin for key, (_, origin) in self._outside.items()})

    def _remove_filters(self, filters: dict[str, dict[str, str]]) -> str:
        """The commands that remove `filters` from the config that defines them (the repository's, or a global or
        system config outside it)."""
        origins = {key.rsplit(".", 1)[0]: origin for key, (_, origin) in self._outside.items()}
        names = sorted(filters) or ["NAME"]
        return " and ".join(f"`git config --file {origins[f'filter.{name}']} --remove-section filter.{name}`, or "
                            f"`filter={name}` from the attributes that apply it" if f"filter.{name}" in origins else
                            f"`git -C {self.repo_dir} config --remove-section filter.{name}`" for name in names)

    def _run(self, *args: str, locate: bool = True, input: str | None = None,
             watch: bool = True) -> subprocess.CompletedProcess[str]:
        # Inherited GIT_* variables (e.g. from a hook) would point git at another repository, and without an
        # explicit GIT_DIR git would walk up into an enclosing repository (such as the project's own).
        env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
        env.update(_IDENTITY)
        env.update(_config_env({**_OVERRIDES, **{key: value for key, (value, _) in self._outside.items()}}))
        if locate:
            env.update(GIT_DIR=str(self._git_dir), GIT_WORK_TREE=str(self.repo_dir))
        try:
            if watch and locate and self._may_filter():
                # The repository's filters run inside git commands (status, add, stash, read-tree -u, hash-object):
                # one that stalls is stopped, not waited on for ever (see coworkenv/store/_git_filter.py).
                stall_s, max_memory = filter_timeout_s(), filter_max_memory_bytes()
                min_free = filter_min_free_bytes(free_bytes(self._git_dir))
                ran = run_watched(["git", *args], self.repo_dir, env, input, stall_s, self._git_dir, max_memory,
                                  min_free)
                if isinstance(ran, Stopped):
                    raise PublishError(self._filter_stopped(args, ran, stall_s))
                return ran
            return subprocess.run(["git", *args], cwd=self.repo_dir, env=env, capture_output=True, text=True,
                                  check=False, input=input)
        except OSError as exc:
            if exc.filename not in ("git", None):  # the repository folder itself (cwd): named by the caller
                raise
            raise PublishError(_git_unusable(self.repo_dir, env.get("PATH", os.defpath), exc)) from None

    def _git(self, *args: str, locate: bool = True, input: str | None = None) -> str:
        result = self._run(*args, locate=locate, input=input)
        damage = _DAMAGED_REPOSITORY.search(result.stderr) if result.returncode == 128 and locate else None
        if damage is not None:
            raise PublishError(
                f"{self._git_dir} is damaged (git: {damage[0].strip()}); nothing was published; move {self.repo_dir} "
                "aside (it keeps what is left of its versions: `git fsck` there shows what) and publish again into "
                "a fresh folder, or put back its .git from a backup")
        failed_filter = filter_failed(result.stderr) if result.returncode != 0 and locate else None
        if failed_filter is not None:
            filters = self._filters()
            raise PublishError(
                f"`git {' '.join(args)}` failed in {self.repo_dir} (exit {result.returncode}) {FILTER_WORDS[1]} "
                f"({failed_filter}; its filters: {self._described(filters)}); a publish commits the "
                f"files through the clean and smudge filters that {self._attribute_files()} "
                f"apply; fix the filter (run it by hand on that file to see why), or remove it "
                f"({self._remove_filters(filters)}), then publish again")
        if result.returncode != 0:
            refused = _os_refusal(result.stderr, self.repo_dir)
            # A refusal of the system is about the disk, not the repository (which is sound): say what to do about it.
            advice = path_advice(self.repo_dir, refused) if refused else \
                "fix the repository state or publish into a new directory"
            told = result.stderr.strip()
            if refused is not None and os_reason(refused) not in told:  # git left the system's reason out
                told += f" ({os_reason(refused)}: the disk holding {self.repo_dir} is full)"
            raise PublishError(
                f"`git {' '.join(args)}` failed in {self.repo_dir} (exit {result.returncode}): {told}; {advice}")
        return result.stdout


def _after_their_ancestors(ranked: list[tuple[Any, ...]], commits: dict[str, str],
                           ancestors: dict[str, set[str]]) -> list[str]:
    """The versions of `ranked` (tuples ending in the name, best first), each after every version whose commit its
    own commit descends from; otherwise in the order of `ranked`."""
    done: set[str] = set()  # commits whose versions are all listed
    listed: list[str] = []
    left = list(ranked)
    while left:
        index = next((i for i, entry in enumerate(left) if ancestors[commits[entry[-1]]] <= done), 0)
        name = left.pop(index)[-1]
        listed.append(name)
        if all(commits[entry[-1]] != commits[name] for entry in left):
            done.add(commits[name])
    return listed


# How often a running publish touches its marker (`_kept_alive`), and how long after the last touch a lock file left
# may still be the interrupted publish's: its git may outlive it a little (a container stop's grace before SIGKILL,
# a loaded machine's thread woken late). A lock made later is someone else's (`_left_by_interrupted`).
ALIVE_EVERY_S = 1.0
LEFT_WITHIN_S = 30.0
# What a ref's lock holds once written (an object id), and the identities of a commit or tag object.
_OBJECT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_IDENTS = re.compile(r"^(?:author|committer|tagger) [^<\n]*<([^>\n]*)>", re.MULTILINE)


@contextmanager
def _kept_alive(marker: Path) -> Iterator[None]:
    """Set the modification time of `marker` to now every ALIVE_EVERY_S while the body runs: killed, the publish leaves
    it dated at its last moment alive (about), which the next one reads to tell its lock files from those a git took
    after it died (`LocalGitPublisher._left_by_interrupted`)."""
    done = threading.Event()

    def touch() -> None:
        while not done.wait(ALIVE_EVERY_S):
            with suppress(OSError):  # removed at the end, or the disk went read-only: the last date stays
                os.utime(marker)

    beat = threading.Thread(target=touch, name="coworkenv-publish-alive", daemon=True)
    beat.start()
    try:
        yield
    finally:
        done.set()
        beat.join()


def _a_publish_locks(name: str) -> bool:
    """Whether a git command of a publish may lock `name` (a lock file's path in the git directory): the index, HEAD,
    packed-refs (a `gc --auto` after a commit), its branch, a version's tag, the stash where it puts changes aside.
    Never the config (its `git init` runs before the marker is written) nor another branch or ref."""
    return name in {"index.lock", "HEAD.lock", "packed-refs.lock", f"refs/heads/{BRANCH}.lock", "refs/stash.lock"} \
        or (name.startswith("refs/tags/") and name.endswith(".lock"))


def _git_unusable(repo_dir: Path, path: str, exc: OSError) -> str:
    """Why git could not be started for a publish into `repo_dir`, and what to do (it was blamed on a link before)."""
    found = shutil.which("git", path=path)
    instead = "or publish to the Hub instead (COWORKENV_HUB_REPO_ID and HF_TOKEN); nothing was published"
    if found is None:
        return (f"git is not installed or not on PATH, and a publish into the local dataset repository {repo_dir} "
                f"runs it; install git (e.g. `apt-get install git`) or put it on PATH, {instead}")
    return (f"{found} could not be started ({os_reason(exc)}), and a publish into the local dataset repository "
            f"{repo_dir} runs it; repair or reinstall git (check that it is an executable program), {instead}")


# What git prints when the system refuses a write (a full disk, a quota, a read-only mount, a failing disk): git's
# own words for a full disk ("Out of diskspace") and the system's reasons it quotes (`strerror`).
_GIT_OUT_OF_SPACE = ("Out of diskspace",)
_REFUSALS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EIO)


def _os_refusal(stderr: str, repo_dir: Path) -> OSError | None:
    """The system's refusal of a write that git's `stderr` reports, as an OSError (None: git failed for another
    reason). Those were "fix the repository state", where the repository was sound and the disk was full."""
    if any(words in stderr for words in _GIT_OUT_OF_SPACE):
        return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    for code in _REFUSALS:
        if os.strerror(code) in stderr:
            return OSError(code, os.strerror(code))
    # A ref's lock file that could not be written is told without the system's reason ("couldn't write
    # '.git/refs/heads/main.lock'"): on a disk (or inode table) with next to nothing left, that reason was a full disk.
    if _UNWRITTEN.search(stderr) and _nearly_full(repo_dir):
        return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    return None


_UNWRITTEN = re.compile(r"couldn't write|unable to write|unable to create|write error")


def _nearly_full(folder: Path) -> bool:
    """Whether the file system of `folder` has under 1 MiB or under 16 inodes left for this user."""
    try:
        found = os.statvfs(folder)
    except OSError:
        return False
    return found.f_bavail * found.f_frsize < 1 << 20 or 0 <= found.f_favail < 16 < found.f_files


def _first_line(text: str) -> str:
    return (text.strip().splitlines() or ["unknown error"])[0]


def _says_unchanged(failure: BaseException) -> bool:
    """Whether the message of `failure` already says that nothing was published or that the folder is as it was."""
    message = str(failure)
    return any(words in message for words in ("nothing was published", "keeps its last version", "nothing was touched",
                                              UNCHANGED))


def _without_unchanged(failure: BaseException) -> str:
    """The message of a failed publish without its claim that the folder or file is as it was (the restore that
    makes it true failed)."""
    message = str(failure)
    for claim in ("; the folder keeps its last version", f"; {UNCHANGED}"):
        message = message.replace(claim, "")
    return message


def told_without_credentials(text: str) -> str:
    """`text`, which quotes the repository's own programs (a hook's last line, a filter's command line, git's words
    about them), without the credentials this process holds (`held_secret_forms`: the Hub token, the LLM key, ...) nor
    any URL's user info or query: a hook pushing in a retry loop traced by the shell (`set -x`) prints its token with
    each try, a filter may be given its token on its command line, and a publish tells both."""
    return scrub_credentials(text, held_secret_forms(), "<redacted>")


@contextmanager
def _credentials_kept_out() -> Iterator[None]:
    """A PublishError raised inside, told without credentials (`told_without_credentials`): a PublishError never
    holds a token."""
    try:
        yield
    except PublishError as exc:
        told = told_without_credentials(str(exc))
        if told == str(exc):
            raise
        raise PublishError(told) from None
