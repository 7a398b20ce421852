"""The web app's search entries ranked by shared keyword tokens (words, CJK characters and pairs), and
notifications."""

from __future__ import annotations

from coworkenv.apps.web import keyword_tokens
from tests.test_apps_productivity import _box, _ok

ENTRIES = {"web": {"results": [
    {"id": "r-0001", "url": "https://a.test/1", "title": "Status", "snippet": "outage", "keywords": ["CloudPay outage"]},
    {"id": "r-0002", "url": "https://a.test/2", "title": "Blog", "keywords": ["CloudPay", "outage", "Asia-Pacific"]},
    {"id": "r-0003", "url": "https://a.test/3", "title": "News", "keywords": ["支付故障"]},
    {"id": "r-0004", "url": "https://a.test/4", "title": "Other", "keywords": ["weather"]},
]}}


def test_tokens_are_words_stripped_at_their_ends_and_cjk_characters_and_pairs() -> None:
    assert keyword_tokens("CloudPay, (outage)! v3.2.1") == {"cloudpay", "outage", "v3.2.1"}
    assert keyword_tokens("支付故障") == {"支付故障", "支", "付", "故", "障", "支付", "付故", "故障"}


def test_entries_sharing_more_tokens_come_first_then_in_their_order() -> None:
    box = _box(**ENTRIES)
    ranked = _ok(box, "web_rank_results", query="cloudpay outage asia-pacific")
    assert [r["url"] for r in ranked] == ["https://a.test/2", "https://a.test/1"]
    assert set(ranked[0]) == {"url", "title", "snippet", "source", "published_at"}
    assert [r["url"] for r in _ok(box, "web_rank_results", query="outage", max_results=1)] == ["https://a.test/1"]
    assert [r["url"] for r in _ok(box, "web_rank_results", query="付款故障")] == ["https://a.test/3"]
    assert _ok(box, "web_rank_results", query="stock prices") == []


def test_a_notification_is_recorded_as_sent() -> None:
    box = _box()
    out = _ok(box, "web_notify", channel="slack", message="CloudPay is down", recipients=["#ops"])
    assert (out["status"], out["record"]["channel"], out["record"]["recipients"]) == ("sent", "slack", ["#ops"])
    assert [n.message for n in box.world.table("web", "notifications")] == ["CloudPay is down"]
