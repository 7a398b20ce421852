"""Fault corpus, what a reader of a version name gets after other content was published under it (`v1`, then other
files as `v1`, which become `v1.v2`): the decision is that a published tag is never moved (a reader of `v1`, such as
`load_dataset(repo, revision="v1")` or a training pinned to it, reads the same bytes every time), and the newest
content of the name is `v1.v2`, the branch `main`, and what `newest_version("v1")` answers.

Measured on `main`: the bytes were so, but the commit, the tag and the warning told the operator "readers asking for
v1 get v1.v2", which a reader of the Hub asking for revision "v1" does not (it gets the first content), so a person
believing the line trained or evaluated on the old data. Each case runs on the local git repository and on the Hub
stand-in of `tests/test_store_hf_hub.py` (refusing an existing tag, 409, as the Hub does)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from tests.faults.test_faults_publish_same_name import NAME, SHARD, Repo, _dataset, _rows
from tests.test_store_hf_hub import TOKEN


@pytest.fixture(params=["local", "hub_stand_in"])
def published(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
              caplog: pytest.LogCaptureFixture) -> tuple[Repo, str]:
    """A repository where `v1` holds 10 rows and other content (12 rows) was published under `v1` since; the
    warning logged for it."""
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    caplog.set_level(logging.INFO, logger="coworkenv.store")
    repo = Repo(str(request.param), tmp_path)
    repo.publisher.publish(_dataset(10))
    second = repo.publisher.publish(_dataset(12))
    assert second.tag == f"{NAME}.v2"
    warning = next(r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING and "replaces" in
                   r.getMessage())
    return repo, warning


def test_the_line_about_other_content_says_what_a_reader_of_the_name_gets(published: tuple[Repo, str]) -> None:
    repo, warning = published
    for said in (warning, repo.messages()[-1]):
        assert f"readers asking for {NAME} get {NAME}.v2" not in said, said  # untrue for revision="v1"
        assert f"a reader of revision '{NAME}' gets its first content" in said, said
        assert f"read revision '{NAME}.v2' (or main)" in said and f"newest_version('{NAME}')" in said, said


def test_a_reader_of_the_tag_gets_the_first_content_and_the_newest_is_named(published: tuple[Repo, str]) -> None:
    """Guard (holds on `main`): the tag is never moved; the newest content is `v1.v2`, `main` and `newest_version`."""
    repo, _ = published
    assert _rows(repo.file(NAME, SHARD)) == 10
    assert _rows(repo.file(f"{NAME}.v2", SHARD)) == _rows(repo.file("main", SHARD)) == 12
    assert repo.publisher.newest_version(NAME) == f"{NAME}.v2"
