"""Fault corpus, a reset by hand and a clock set back together: `main` of the local dataset repository reset by hand
(`git reset --hard v1`, to go back on a bad version), then the next version published while the clock was set back
(a dead RTC at 1970, a VM restored from a snapshot, a clock set back an hour or a day). The new version does not
descend from the one the reset left off the branch, so neither's history orders them, and `published_versions()`
went by the tag dates: on main the version published last was listed before the abandoned one (v1, v3, v2), so a
reader of "the last version" took v2 and the advice that makes a missing `main` again named v2.

Now each publish writes its place in the publish order into its tag (`Publish-Number: 3`), counted from the tags
already there, and versions are listed by it; tags without one (published before, or made by hand) keep the order of
history, dates and place on the branch. Git's clock is moved by the wrapper of `test_faults_clock_versions.py`."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from coworkenv.store import LocalGitPublisher, release_version
from tests.faults.harness import release
from tests.faults.test_faults_clock_versions import DAY, NOW, Clock, advice_for_a_missing_main_followed
from tests.faults.test_faults_hub_state import _git  # git as a person runs it

# When v1 and v2 were published, and when v3 was, after `git reset --hard v1`: under a clock set back.
SCHEDULES = {
    "a-day-back": [NOW - 2 * DAY, NOW, NOW - DAY],
    "an-hour-back": [NOW - DAY, NOW, NOW - 3600],
    "before-the-first": [NOW - DAY, NOW, NOW - 2 * DAY],
    "at-1970": [NOW - DAY, NOW, 60],
    "dead-rtc-from-the-second": [NOW, 60, 30],
}


@pytest.fixture
def clock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Clock:
    return Clock(tmp_path / "clock", monkeypatch)


def _published(repo: Path, clock: Clock, steps: list[tuple[str, int] | str]) -> LocalGitPublisher:
    """Publishes each `(version, when)` of `steps` at that clock; a bare name is `git reset --hard` to it by hand."""
    publisher = LocalGitPublisher(repo)
    for step in steps:
        if isinstance(step, str):
            _git(repo, "reset", "--quiet", "--hard", step)
            continue
        tag, when = step
        clock.set(when)
        publisher.publish(release(tag))
    return publisher


@pytest.mark.parametrize("schedule", sorted(SCHEDULES))
def test_a_version_published_after_a_reset_under_a_clock_set_back_is_listed_last(
        tmp_path: Path, clock: Clock, schedule: str) -> None:
    first, second, third = SCHEDULES[schedule]
    publisher = _published(tmp_path / "hub", clock, [("v1", first), ("v2", second), "v1", ("v3", third)])
    assert publisher.published_versions() == ["v1", "v2", "v3"]


def test_two_versions_after_the_reset_under_the_clock_set_back_follow_the_abandoned_one(
        tmp_path: Path, clock: Clock) -> None:
    publisher = _published(tmp_path / "hub", clock,
                           [("v1", NOW - DAY), ("v2", NOW), "v1", ("v3", 60), ("v4", 120)])
    assert publisher.published_versions() == ["v1", "v2", "v3", "v4"]


def test_two_resets_each_followed_by_a_publish_under_a_clock_further_back(tmp_path: Path, clock: Clock) -> None:
    publisher = _published(tmp_path / "hub", clock,
                           [("v1", NOW - DAY), ("v2", NOW), "v1", ("v3", NOW - 3600), "v1", ("v4", 60)])
    assert publisher.published_versions() == ["v1", "v2", "v3", "v4"]


def test_a_reset_to_the_abandoned_version_then_a_publish_under_the_clock_set_right(
        tmp_path: Path, clock: Clock) -> None:
    """v3 under a clock at 1970 after a reset to v1; then back on v2 by hand and v4 with the clock set right."""
    publisher = _published(tmp_path / "hub", clock,
                           [("v1", NOW - DAY), ("v2", NOW - 3600), "v1", ("v3", 60), "v2", ("v4", NOW)])
    assert publisher.published_versions() == ["v1", "v2", "v3", "v4"]


def test_dated_version_names_after_a_reset_under_a_clock_set_back(tmp_path: Path, clock: Clock) -> None:
    """`release_version(on=today)` names the version by the clock's date: the later one has the earlier name."""
    repo = tmp_path / "hub"
    publisher = LocalGitPublisher(repo)
    published = []
    for rows, when in ((3, NOW - DAY), (4, NOW), (5, NOW - 3 * DAY)):
        if rows == 5:
            _git(repo, "reset", "--quiet", "--hard", published[0])
        clock.set(when)
        name = release_version(release("probe", rows=rows).configs, on=date.fromtimestamp(when))
        publisher.publish(release(name, rows=rows))
        published.append(name)
    assert published[2] < published[0] < published[1]  # the names' own order is the clock's
    assert publisher.published_versions() == published


def test_a_checkpoint_repository_reset_then_published_under_a_clock_set_back(tmp_path: Path, clock: Clock) -> None:
    checkpoint, repo = tmp_path / "checkpoint", tmp_path / "hub"
    checkpoint.mkdir()
    publisher = LocalGitPublisher(repo)
    for step in (("v1", NOW - DAY), ("v2", NOW), "v1", ("v3", 60)):
        if isinstance(step, str):
            _git(repo, "reset", "--quiet", "--hard", step)
            continue
        clock.set(step[1])
        (checkpoint / "model.safetensors").write_bytes(f"weights of {step[0]}".encode())
        publisher.publish_folder(checkpoint, step[0], f"# {step[0]}\n")
    assert publisher.published_versions() == ["v1", "v2", "v3"]


def test_the_advice_for_a_missing_main_after_a_reset_and_a_clock_set_back_names_the_last_version(
        tmp_path: Path, clock: Clock) -> None:
    repo = tmp_path / "hub"
    publisher = _published(repo, clock, [("v1", NOW - DAY), ("v2", NOW), "v1", ("v3", NOW - 3600)])
    clock.set(NOW)
    advice_for_a_missing_main_followed(repo, publisher)  # names v3, not v2, which the reset abandoned


def test_a_clone_of_the_repository_lists_the_versions_in_publish_order(tmp_path: Path, clock: Clock) -> None:
    """The order travels with the tags (a clone has no reflog of the publishes)."""
    _published(tmp_path / "hub", clock, [("v1", NOW - DAY), ("v2", NOW), "v1", ("v3", 60)])
    _git(tmp_path, "clone", "--quiet", str(tmp_path / "hub"), str(tmp_path / "copy"))
    assert LocalGitPublisher(tmp_path / "copy").published_versions() == ["v1", "v2", "v3"]


def test_tags_without_a_publish_number_keep_the_order_of_history_and_dates(tmp_path: Path, clock: Clock) -> None:
    """Regression guard: a repository published before the numbers (tags made as main made them, here by hand),
    then one more publish: the old tags in the order of their dates, the new version after them."""
    repo = tmp_path / "hub"
    publisher = LocalGitPublisher(repo)
    for tag, when in (("v1", NOW - 2 * DAY), ("v2", NOW - DAY)):
        clock.set(when)
        publisher.publish(release(tag))
        _git(repo, "tag", "--force", "--annotate", tag, "-m", f"Dataset version {tag}")  # no number, as before
    _git(repo, "reset", "--quiet", "--hard", "v1")
    clock.set(NOW)
    publisher.publish(release("v3"))
    assert publisher.published_versions() == ["v1", "v2", "v3"]
