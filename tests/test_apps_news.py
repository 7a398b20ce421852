"""The news app: feeds derived from article sources, exact source and category filters, newsletters recorded."""

from __future__ import annotations

from tests.test_apps_productivity import _box, _error, _ok, _served

ARTICLES = {"news": {"articles": [
    {"id": "a2", "title": "B", "source": "Wire", "category": "tech", "content": "full text b"},
    {"id": "a1", "title": "A", "source": "Daily", "category": "biz"},
    {"id": "a3", "title": "C", "source": "Wire", "category": "biz"},
]}}


def test_feeds_count_articles_per_source_and_category_filters_are_exact() -> None:
    box = _box(**ARTICLES)
    assert _ok(box, "news_list_feeds") == [{"source": "Daily", "categories": ["biz"], "article_count": 1},
                                           {"source": "Wire", "categories": ["tech", "biz"], "article_count": 2}]
    assert [f["article_count"] for f in _ok(box, "news_list_feeds", category="biz")] == [1, 1]
    assert _ok(box, "news_list_feeds", category="Biz") == []
    assert [a["id"] for a in _ok(box, "news_list_articles", source="Wire")] == ["a2", "a3"]
    assert [a["id"] for a in _ok(box, "news_list_articles", limit=1)] == ["a1"]
    assert "content" not in _ok(box, "news_list_articles")[0]
    # in the order the feed holds them: a limit keeps the first held (an imported service's list, T154; a service
    # argument, which only a declared tool's op takes: tests/test_service_args.py)
    served = _served(box)
    assert [a["id"] for a in _ok(served, "news_list_articles", stored_order=True)] == ["a2", "a1", "a3"]
    assert [a["id"] for a in _ok(served, "news_list_articles", limit=1, stored_order=True)] == ["a2"]
    assert _ok(box, "news_get_article", article_id="a2")["content"] == "full text b"
    assert "a9" in _error(box, "news_get_article", article_id="a9")


def test_a_newsletter_is_recorded_with_its_recipients() -> None:
    box = _box(**ARTICLES)
    out = _ok(box, "news_publish", title="Weekly", content="Picks", recipients=["t@x.test"])
    assert (out["status"], out["record"]["recipients"], out["record"]["title"]) == ("published", ["t@x.test"], "Weekly")
    assert _ok(box, "news_publish", title="Draft", content="No list")["record"]["recipients"] == []
    assert len(list(box.world.table("news", "newsletters"))) == 2
