"""Fault corpus, versions published into the local dataset repository while the machine's clock was set back: a dead
RTC that boots at 1970, a VM restored from a snapshot, a clock set back an hour or a day by hand, then perhaps set
right again. Each publish commits on top of the last, but `published_versions()` ordered by the tag's date first:
on main a version published under a clock set back was listed before the versions it was published on top of
(v1, v3, v2), and the advice that makes a missing `main` again named the older version as the last one, so doing as
told put readers back on it. Now a version descending from another is listed after it, whatever the clock said;
dates only order versions neither descends from (a reset by hand: `test_faults_version_order.py`).

The clock is moved for git alone (the dates it writes into commits and tags), by a `git` first on PATH that sets
GIT_COMMITTER_DATE and GIT_AUTHOR_DATE from a file the test writes, then runs the real git."""

from __future__ import annotations

import os
import shutil
import time
from datetime import date
from pathlib import Path

import pytest

from coworkenv.store import LocalGitPublisher, PublishError, release_version
from tests.faults.harness import release
from tests.faults.test_faults_hub_state import _git  # git as a person runs it

NOW = int(time.time())
DAY = 86_400


class Clock:
    """The time git reads, as a file its wrapper reads at every call."""

    def __init__(self, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        real = shutil.which("git")
        assert real is not None
        folder.mkdir()
        self.file = folder / "now"
        wrapper = folder / "git"
        wrapper.write_text(f'#!/bin/sh\nnow="@$(cat {self.file}) +0000"\n'
                           f'GIT_COMMITTER_DATE="$now" GIT_AUTHOR_DATE="$now" exec {real} "$@"\n')
        wrapper.chmod(0o755)
        monkeypatch.setenv("PATH", f"{folder}:{os.environ.get('PATH', '')}")
        self.set(NOW)

    def set(self, when: int) -> None:
        self.file.write_text(str(when))


@pytest.fixture
def clock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Clock:
    return Clock(tmp_path / "clock", monkeypatch)


# When each of three publishes happened by the clock: the second or third under a clock set back.
SCHEDULES = {
    "third-a-day-back": [NOW - 2 * DAY, NOW, NOW - DAY],
    "third-an-hour-back": [NOW - 2 * DAY, NOW, NOW - 3600],
    "third-at-1970": [NOW - DAY, NOW, 60],
    "dead-rtc-from-the-second": [NOW, 60, 120],
    "set-back-then-set-right": [NOW - DAY, 60, NOW],
}


@pytest.mark.parametrize("schedule", sorted(SCHEDULES))
def test_versions_published_under_a_clock_set_back_are_listed_in_publish_order(
        tmp_path: Path, clock: Clock, schedule: str) -> None:
    publisher = LocalGitPublisher(tmp_path / "hub")
    names = ["v1", "v2", "v3"]
    for name, when in zip(names, SCHEDULES[schedule], strict=True):
        clock.set(when)
        publisher.publish(release(name))
    assert publisher.published_versions() == names


def test_versions_published_within_one_second_are_listed_in_publish_order(tmp_path: Path, clock: Clock) -> None:
    """Regression guard (held on main: equal dates fall to the place on the branch), names whose numbers mislead."""
    publisher = LocalGitPublisher(tmp_path / "hub")
    for name in ("v9", "v10", "v2"):
        publisher.publish(release(name))
    assert publisher.published_versions() == ["v9", "v10", "v2"]


def test_dated_version_names_from_a_clock_set_back_are_listed_in_publish_order(tmp_path: Path, clock: Clock) -> None:
    """`release_version(on=today)` names a version by the clock's date: a clock set back names a later version with
    an earlier date (v2026.12.01-... after v2026.12.03-...)."""
    publisher = LocalGitPublisher(tmp_path / "hub")
    published = []
    for rows, when in ((3, NOW), (4, NOW - 2 * DAY)):
        clock.set(when)
        candidate = release("probe", rows=rows)
        name = release_version(candidate.configs, on=date.fromtimestamp(when))
        publisher.publish(release(name, rows=rows))
        published.append(name)
    assert published[1] < published[0]  # the names' own order is the clock's
    assert publisher.published_versions() == published


def test_a_checkpoint_published_under_a_clock_set_back_is_listed_last(tmp_path: Path, clock: Clock) -> None:
    checkpoint = tmp_path / "checkpoint"
    checkpoint.mkdir()
    publisher = LocalGitPublisher(tmp_path / "hub")
    for tag, when in (("v1", NOW - DAY), ("v2", NOW), ("v3", 60)):
        clock.set(when)
        (checkpoint / "model.safetensors").write_bytes(f"weights of {tag}".encode())
        publisher.publish_folder(checkpoint, tag, f"# {tag}\n")
    assert publisher.published_versions() == ["v1", "v2", "v3"]


def test_the_advice_for_a_missing_main_names_the_version_published_last_under_a_clock_set_back(
        tmp_path: Path, clock: Clock) -> None:
    repo = tmp_path / "hub"
    publisher = LocalGitPublisher(repo)
    for tag, when in (("v1", NOW - DAY), ("v2", NOW), ("v3", NOW - 3600)):
        clock.set(when)
        publisher.publish(release(tag))
    clock.set(NOW)
    advice_for_a_missing_main_followed(repo, publisher)  # names v3, not v2, which v3 was published on


def advice_for_a_missing_main_followed(repo: Path, publisher: LocalGitPublisher) -> None:
    """v1, v2, v3 published into `repo`; `main` deleted with v1 checked out: the refusal of v4 names v3 as the last
    version, and v4 publishes once its commands are run as written."""
    _git(repo, "checkout", "--quiet", "v1")
    _git(repo, "branch", "-D", "main")
    with pytest.raises(PublishError) as refused:
        publisher.publish(release("v4"))
    commands = str(refused.value).split("`")[1::2]
    assert commands and commands[-1].endswith(" main v3"), str(refused.value)
    for command in commands:  # what the message asks, as written
        _git(repo, *command.split()[3:])
    publisher.publish(release("v4"))
    assert _git(repo, "merge-base", "--is-ancestor", "v3", "main") == ""
    assert publisher.published_versions() == ["v1", "v2", "v3", "v4"]


def test_a_version_left_off_by_a_reset_still_goes_by_date(tmp_path: Path, clock: Clock) -> None:
    """Regression guard (held on main): versions neither descends from are still ordered by the clock that was
    right (a reset by hand to v1, then v3): v2, off the branch, before v3."""
    repo = tmp_path / "hub"
    publisher = LocalGitPublisher(repo)
    for tag, when in (("v1", NOW - 2 * DAY), ("v2", NOW - DAY)):
        clock.set(when)
        publisher.publish(release(tag))
    _git(repo, "reset", "--quiet", "--hard", "v1")
    clock.set(NOW)
    publisher.publish(release("v3"))
    assert publisher.published_versions() == ["v1", "v2", "v3"]
