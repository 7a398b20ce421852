"""Fault corpus, Hub outages: the Hub fails at each call of a push (the in-memory stand-in of tests/test_store_hf_hub.py,
which answers as the Hub does). The push fails with one actionable, token-free error; the repository holds the last
version or the whole new one, never part of it; pushing again lands the version once, as an undisturbed push does."""

from __future__ import annotations

import logging
from typing import Any, cast

import pytest
from huggingface_hub import HfApi

from coworkenv.store import HfHubPublisher, PublishError
from tests.test_store_hf_hub import REPO, TOKEN, RecordingHubApi, _release

CALLS = ["create_repo", "list_repo_refs", "list_repo_tree", "create_commit", "create_tag"]


@pytest.fixture(autouse=True)
def token(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return TOKEN


def _publisher(api: RecordingHubApi) -> HfHubPublisher:
    return HfHubPublisher(REPO, api=cast(HfApi, api))


def _tagged_tree(api: RecordingHubApi, tag: str) -> dict[str, bytes]:
    return api.trees[api.tags[tag]]


@pytest.mark.parametrize("outage", CALLS)
def test_an_outage_at_any_call_of_a_push_loses_nothing_and_a_retry_lands_it_once(
        outage: str, caplog: pytest.LogCaptureFixture) -> None:
    first, second = _release(train_rows=3, shard_rows=2), _release(train_rows=5, shard_rows=2)
    clean = RecordingHubApi()
    _publisher(clean).publish(first)
    _publisher(clean).publish(second)
    first_tree, second_tree = _tagged_tree(clean, first.version), _tagged_tree(clean, second.version)
    api = RecordingHubApi()
    publisher = _publisher(api)
    publisher.publish(first)
    api.fail_on, api.error_text = outage, f"503 Service Unavailable (Authorization: Bearer {TOKEN})"
    with caplog.at_level(logging.DEBUG), pytest.raises(PublishError) as caught:
        publisher.publish(second)
    message = str(caught.value)
    assert TOKEN not in message and TOKEN not in caplog.text
    assert REPO in message and "publish again" in message and "503" in message
    assert second.version not in api.tags
    # The branch holds the first version whole or, when only the tag failed, the second one whole.
    assert api.trees[api.head] == (second_tree if outage == "create_tag" else first_tree)
    api.fail_on = None
    result = publisher.publish(second)
    assert _tagged_tree(api, second.version) == second_tree
    assert publisher.published_versions() == [first.version, second.version]
    assert result.tag == second.version and result.revision == api.tags[second.version]


def test_a_token_in_the_hub_answer_never_reaches_the_error_chain(token: str) -> None:
    api = RecordingHubApi(fail_on="create_commit", error_text=f"401 bad token {token}")
    with pytest.raises(PublishError) as caught:
        _publisher(api).publish(_release(train_rows=3, shard_rows=2))
    chain: list[Any] = []
    error: BaseException | None = caught.value
    while error is not None:
        chain.append(str(error))
        error = error.__cause__ or error.__context__
    assert all(token not in text for text in chain)


@pytest.mark.parametrize("copied", ["\n", "\r\n", "\t"])
def test_a_token_copied_with_a_line_break_is_refused_before_any_call_and_never_shown(
        token: str, monkeypatch: pytest.MonkeyPatch, copied: str) -> None:
    # The HTTP client (h11) refused the header quoting it escaped, "Illegal header value b'Bearer hf_...\\n'": the
    # redaction looked for the token with a real line break, so the rest of the token reached the error.
    monkeypatch.setenv("HF_TOKEN", token + copied)
    api = RecordingHubApi(fail_on="create_repo", error_text=f"Illegal header value {f'Bearer {token}{copied}'.encode()!r}")
    with pytest.raises(PublishError) as caught:
        _publisher(api).publish(_release(train_rows=3, shard_rows=2))
    message = str(caught.value)
    assert "HF_TOKEN" in message and "control character" in message and token not in message, message
    assert api.calls == []


PASSWORD = "hunter2-proxy-password"  # the secret a case must never show
SIGNATURE = "Signature-deadbeef0123"


@pytest.mark.parametrize("outage", [None, *CALLS])
def test_credentials_in_the_hub_endpoint_url_never_reach_a_result_an_error_or_the_log(
        outage: str | None, caplog: pytest.LogCaptureFixture) -> None:
    # HF_ENDPOINT=https://user:password@mirror/ (a mirror behind basic auth): the client quotes the URL it called,
    # and a signed upload URL carries its signature in the query string.
    api = RecordingHubApi(fail_on=outage, error_text=f"404 Client Error for url: https://admin:{PASSWORD}@hub.example/"
                                                     f"api/datasets/{REPO}?X-Amz-Signature={SIGNATURE}")
    api.endpoint = f"https://admin:{PASSWORD}@hub.example"  # type: ignore[misc]
    with caplog.at_level(logging.DEBUG):
        if outage is None:
            result = _publisher(api).publish(_release(train_rows=3, shard_rows=2))
            assert result.location == f"https://hub.example/datasets/{REPO}"
            shown = [repr(result)]
        else:
            with pytest.raises(PublishError) as caught:
                _publisher(api).publish(_release(train_rows=3, shard_rows=2))
            shown = [str(caught.value)]
            assert "https://hub.example/api/datasets" in shown[0] and "404" in shown[0], shown
    for text in [*shown, caplog.text]:
        assert PASSWORD not in text and SIGNATURE not in text, text


@pytest.mark.parametrize("moved", ["published again after a newer one", "the branch force-moved back"])
def test_a_version_published_again_puts_the_branch_back_on_its_files(moved: str) -> None:
    # "Already published; nothing to do" left main on other files, which readers of the repository (load_dataset,
    # the default revision) took for the version just published; a local publish puts main back.
    first, second = _release(train_rows=3, shard_rows=2), _release(train_rows=5, shard_rows=2)
    api = RecordingHubApi()
    publisher = _publisher(api)
    publisher.publish(first)
    publisher.publish(second)
    if moved == "the branch force-moved back":
        api.history.append(api.tags[first.version])  # someone reset main to the first version and force-pushed
        again = second
    else:
        again = first
    result = publisher.publish(again)
    assert api.trees[api.head] == _tagged_tree(api, again.version)
    assert result.tag == again.version and result.revision == api.tags[again.version]
    assert sorted(api.tags) == sorted([first.version, second.version])  # nothing tagged twice
    publisher.publish(again)  # once more: the branch holds it, nothing to do
    assert len(api.commits()) == 3
