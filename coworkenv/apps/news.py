"""News: articles from the feeds the user follows (a feed is an article source), and the newsletters the user
published from them."""

from __future__ import annotations

from typing import Any

from coworkenv.apps._common import clamp, dump, dump_many
from coworkenv.tools import Toolkit, read, service_args, write
from coworkenv.world import AppDef, AppState, Key, Order, Record

_SUMMARY = ("id", "title", "source", "category", "published_at", "summary", "word_count")


class Article(Record):
    title: str
    source: str  # the feed it came from
    category: str = ""
    published_at: str = ""
    summary: str = ""
    content: str = ""
    word_count: int = 0
    tags: list[str] = []
    url: str = ""


class Newsletter(Record):
    """A newsletter the user published: its text and who it went to."""

    title: str
    content: str
    recipients: list[str] = []
    by: str = ""
    at: str = ""


class NewsState(AppState):
    articles: list[Article] = []
    newsletters: list[Newsletter] = []


class NewsTools(Toolkit):
    app = "news"

    @read
    def list_feeds(self, category: str | None = None) -> list[dict[str, Any]]:
        """List the feeds (article sources) in order of their first article, with their categories and article counts.

        Args:
            category: Only count articles of this category (exact); feeds with none are left out.
        """
        feeds: dict[str, dict[str, Any]] = {}
        for article in self.world.table("news", "articles").select("order"):
            if category and article.category != category:
                continue
            feed = feeds.setdefault(article.source, {"source": article.source, "categories": [], "article_count": 0})
            if article.category not in feed["categories"]:
                feed["categories"].append(article.category)
            feed["article_count"] += 1
        return list(feeds.values())

    @read
    @service_args("stored_order")
    def list_articles(self, source: str | None = None, category: str | None = None,
                      limit: int = 20, stored_order: bool = False) -> list[dict[str, Any]]:
        """List articles (summaries without their content) by id.

        Args:
            source: Only articles of this feed (exact).
            category: Only articles of this category (exact).
            limit: Maximum number of articles.
            stored_order: In the order the feed holds them, not by id (a limit then keeps the first held).
        """
        table = self.world.table("news", "articles")
        sets = [table.key("source").ids(source) if source else None,
                table.key("category").ids(category) if category else None]
        return dump_many(table.select(None if stored_order else "order", sets=sets, limit=clamp(limit)), *_SUMMARY)

    @read
    def get_article(self, article_id: str) -> dict[str, Any]:
        """Get an article with its content.

        Args:
            article_id: Article id.
        """
        return dump(self.require("articles", article_id, "article", "use news_list_articles"))

    @write
    def publish(self, title: str, content: str, recipients: list[str] | None = None) -> dict[str, Any]:
        """Publish a newsletter to recipients (none: published without a mailing).

        Args:
            title: Newsletter title.
            content: Newsletter text.
            recipients: Email addresses it is sent to.
        """
        letter = Newsletter(id=self.world.new_id("nl", "news", "newsletters"), title=title, content=content,
                            recipients=list(recipients or []), by=self.world.user or "", at=self.world.now_iso)
        self.put("newsletters", letter)
        return {"status": "published", "record": dump(letter, "id", "title", "content", "recipients", "at")}


APP = AppDef("news", NewsState, NewsTools, "news feed articles by source and category, published newsletters", indexes={
    "articles": {"order": Order(lambda a: a.id), "source": Key(lambda a: a.source),
                 "category": Key(lambda a: a.category)},
    "newsletters": {"at": Order(lambda n: (n.at, n.id))},
})
