"""Fault corpus, a far-off clock during a Hub publish: a VM resumed from an old snapshot, a dead RTC battery (1970), a
clock set years ahead. TLS then refuses the Hub's certificate as not valid yet or expired (an object store mirror
calls the request too skewed) at whichever call of the push first opens a connection. The publish must say that the
clock is wrong and what it reads, not send the operator to check HF_TOKEN; it loses nothing, and once the clock is
set a retry lands the version once. The whole process sees the clock moved (`time.time`), as every library would."""

from __future__ import annotations

import ssl
import time
from pathlib import Path
from typing import Any, cast

import pytest
from huggingface_hub import HfApi

from coworkenv.store import HfHubPublisher, PublishError
from tests.test_store_hf_hub import REPO, TOKEN, RecordingHubApi, _release, token

pytestmark = pytest.mark.usefixtures(token.__name__)  # HF_TOKEN set, the client offline

CALLS = ["create_repo", "list_repo_refs", "list_repo_tree", "create_commit", "create_tag"]
# (what the TLS stack or the store says, the clock, the date the message must show)
CLOCKS = {
    "1970": ("[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: certificate is not yet valid (_ssl.c:1028)",
             3600.0, "1970-01-01"),
    "2100": ("[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: certificate has expired (_ssl.c:1028)",
             4102444800.0 + 86400 * 40, "2100-02-10"),
}


class ClockedHubApi(RecordingHubApi):
    """The stand-in Hub, failing `fail_on` with an error the client library raises (not a bare RuntimeError)."""

    raised: BaseException | None = None

    def _record(self, name: str, **kwargs: Any) -> None:
        self.calls.append((name, kwargs))
        if name == self.fail_on and self.raised is not None:
            raise self.raised


def _connect_error(text: str) -> Exception:
    """What httpx raises for a refused certificate: a ConnectError whose cause is the ssl module's error."""
    import httpx

    cause = ssl.SSLCertVerificationError(1, text)
    try:
        raise httpx.ConnectError(text) from cause
    except httpx.ConnectError as error:
        return error


def _assert_names_the_clock(message: str, shown_date: str) -> None:
    assert shown_date in message and "set the clock" in message, message
    assert "holds a token with write access" not in message, message  # the token is not what is wrong
    assert TOKEN not in message


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("clock", sorted(CLOCKS))
def test_a_far_off_clock_at_any_call_of_a_push_is_named_and_a_retry_lands_it_once(
        monkeypatch: pytest.MonkeyPatch, call: str, clock: str) -> None:
    text, now, shown = CLOCKS[clock]
    first, second = _release(train_rows=3, shard_rows=2), _release(train_rows=5, shard_rows=2)
    api = ClockedHubApi()
    publisher = HfHubPublisher(REPO, api=cast(HfApi, api))
    publisher.publish(first)
    api.fail_on, api.raised = call, _connect_error(text)
    with monkeypatch.context() as moved:
        moved.setattr(time, "time", lambda: now)
        with pytest.raises(PublishError) as caught:
            publisher.publish(second)
    _assert_names_the_clock(str(caught.value), shown)
    assert second.version not in api.tags
    api.fail_on = None
    publisher.publish(second)
    assert publisher.published_versions() == [first.version, second.version]
    assert len(api.history) == 3  # the Hub's first commit and one per version: nothing committed twice


@pytest.mark.parametrize("said", [
    "403 Forbidden: <Code>RequestTimeTooSkewed</Code><Message>The difference between the request time and the "
    "current time is too large.</Message>",
    "400 Bad Request: Request time too skewed",
])
def test_a_mirror_calling_the_request_too_skewed_names_the_clock(monkeypatch: pytest.MonkeyPatch, said: str) -> None:
    api = ClockedHubApi()
    api.fail_on, api.raised = "create_commit", RuntimeError(said)
    monkeypatch.setattr(time, "time", lambda: 1e9)  # 2001-09-09
    with pytest.raises(PublishError) as caught:
        HfHubPublisher(REPO, api=cast(HfApi, api)).publish(_release(train_rows=3, shard_rows=2))
    _assert_names_the_clock(str(caught.value), "2001-09-09")


def test_a_checkpoint_published_with_the_clock_far_off_is_named(monkeypatch: pytest.MonkeyPatch,
                                                                tmp_path: Path) -> None:
    (tmp_path / "model.safetensors").write_bytes(b"weights")
    api = ClockedHubApi()
    api.fail_on, api.raised = "create_repo", _connect_error(CLOCKS["1970"][0])
    monkeypatch.setattr(time, "time", lambda: CLOCKS["1970"][1])
    with pytest.raises(PublishError) as caught:
        HfHubPublisher(REPO, api=cast(HfApi, api), repo_type="model").publish_folder(tmp_path, "v1", "# v1\n")
    _assert_names_the_clock(str(caught.value), "1970-01-01")


def test_a_clock_past_any_calendar_date_is_still_told(monkeypatch: pytest.MonkeyPatch) -> None:
    # A clock set to garbage (past year 9999): the message shows the raw seconds instead of failing to format them.
    api = ClockedHubApi()
    api.fail_on, api.raised = "create_repo", _connect_error(CLOCKS["2100"][0])
    monkeypatch.setattr(time, "time", lambda: 1e12)
    with pytest.raises(PublishError) as caught:
        HfHubPublisher(REPO, api=cast(HfApi, api)).publish(_release(train_rows=3, shard_rows=2))
    _assert_names_the_clock(str(caught.value), "1000000000000 s since 1970")


def test_an_outage_that_is_not_the_clock_still_points_at_the_token_and_the_hub() -> None:
    # Regression guard for the split: a refused certificate for another reason (a proxy's own CA) is not the clock.
    api = ClockedHubApi()
    api.fail_on, api.raised = "create_repo", _connect_error(
        "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: self-signed certificate in certificate chain")
    with pytest.raises(PublishError) as caught:
        HfHubPublisher(REPO, api=cast(HfApi, api)).publish(_release(train_rows=3, shard_rows=2))
    assert "set the clock" not in str(caught.value) and "holds a token with write access" in str(caught.value)
