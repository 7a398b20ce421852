"""Knowledge base: published articles (policies, how-tos, runbooks) with categories and search."""

from __future__ import annotations

from typing import Any, Literal

from coworkenv.apps._common import clamp, dump, dump_many
from coworkenv.tools import ToolError, Toolkit, read, service_args, write
from coworkenv.world import AppDef, AppState, Kept, Key, Order, Record, Words

_SUMMARY = ("id", "title", "category", "status", "updated_at")


class Article(Record):
    title: str
    body: str
    category: str = "general"
    tags: list[str] = []
    author: str = ""
    status: Literal["published", "draft", "archived"] = "published"
    updated_at: str = ""
    created_at: str = ""
    views: int | None = None  # how often readers opened it (a knowledge base that counts its readers keeps it)


class KbState(AppState):
    articles: list[Article] = []
    kept: list[Kept] = []  # fields a knowledge-base service keeps as written (an imported task's tools only)


def _tokens(text: str) -> set[str]:
    """A text's words, pairs of adjacent characters and CJK characters, lower-cased (a loose match for text
    without spaces between words)."""
    low = text.lower()
    pairs = {low[i:i + 2] for i in range(len(low) - 1)}
    return {*low.split(), *(p for p in pairs if not p.isspace()), *(c for c in text if "\u4e00" <= c <= "\u9fff")}


class KbTools(Toolkit):
    app = "kb"

    @read
    @service_args("any_token")
    def search(
        self, query: str, category: str | None = None, include_archived: bool = False, limit: int = 20,
        any_token: bool = False,
    ) -> list[dict[str, Any]]:
        """Search articles by words in title, body or tags; best matches are those whose title matches.

        Args:
            query: Words that must all occur.
            category: Only this category.
            include_archived: Also return archived articles (outdated; kept for history).
            limit: Maximum number of articles.
            any_token: Articles sharing any token with the query (a word, two adjacent characters, a CJK
                character), in the order the base holds them, each with its body.
        """
        table = self.world.table("kb", "articles")
        sets = [table.key("category").ids(category) if category is not None else None]

        def shown(a: Article) -> bool:
            return include_archived or a.status != "archived"

        if any_token:
            wanted = _tokens(query)
            rows = table.select(None, sets=sets, where=lambda a: shown(a) and bool(wanted & _tokens(
                " ".join([a.title, *a.tags, a.body]))), limit=clamp(limit))
            return dump_many(rows, *_SUMMARY, "body")  # a service's search shows a snippet of each body

        # Articles whose title has every word come first (a word in the title is in the text too), then the
        # others; each group by id.
        first = table.select("id", words=("title", query), sets=sets, where=shown, limit=clamp(limit))
        rest: list[Article] = []
        if len(first) < clamp(limit):
            # `first` holds every shown article of `sets` with each word in its title (fewer than the limit were
            # found): the others are those not in it, with no title tested again.
            in_title = {a.id for a in first}
            rest = table.select("id", words=("text", query), sets=sets, limit=clamp(limit) - len(first),
                                where=lambda a: a.id not in in_title and shown(a))
        return dump_many([*first, *rest], *_SUMMARY)

    @read
    def list_categories(self) -> list[dict[str, Any]]:
        """The categories with how many published articles each has."""
        published = self.world.table("kb", "articles").key("published_in")
        counts = {c: len(published.ids(c)) for c in published.values() if c is not None}
        return [{"category": c, "articles": n} for c, n in sorted(counts.items())]

    @read
    def get_article(self, article_id: str) -> dict[str, Any]:
        """Read an article in full.

        Args:
            article_id: Article id, e.g. KB-12.
        """
        return dump(self._article(article_id))

    @write
    def create_article(
        self, title: str, body: str, category: str = "general", tags: list[str] | None = None, publish: bool = False,
    ) -> dict[str, Any]:
        """Write a new article (a draft unless published).

        Args:
            title: Title.
            body: Text.
            category: Category.
            tags: Tags.
            publish: Publish it now instead of saving a draft.
        """
        if not title.strip() or not body.strip():
            raise ToolError("an article needs a title and a body")
        article = Article(
            id=self.world.new_id("KB", "kb", "articles"), title=title, body=body, category=category, tags=tags or [],
            author=self.world.user or "", status="published" if publish else "draft", updated_at=self.world.now_iso,
        )
        self.put("articles", article)
        return dump(article, *_SUMMARY)

    @write
    def update_article(
        self, article_id: str, body: str | None = None, title: str | None = None,
        status: Literal["published", "draft", "archived"] | None = None,
    ) -> dict[str, Any]:
        """Edit an article's body or title, or publish, unpublish or archive it.

        Args:
            article_id: Article id.
            body: New body.
            title: New title.
            status: published, draft or archived.
        """
        article = self._article(article_id)
        update: dict[str, Any] = {"updated_at": self.world.now_iso}
        for key, value in (("body", body), ("title", title), ("status", status)):
            if value is not None:
                update[key] = value
        updated = article.model_copy(update=update)
        self.put("articles", updated)
        return dump(updated, *_SUMMARY)

    def _article(self, article_id: str) -> Article:
        return self.require("articles", article_id, "article", "use kb_search")  # type: ignore[no-any-return]


APP = AppDef("kb", KbState, KbTools, "knowledge base: policies, how-tos and runbooks", indexes={
    "articles": {
        "text": Words(lambda a: (a.title, a.body, " ".join(a.tags))),
        "title": Words(lambda a: (a.title,)),
        "category": Key(lambda a: a.category),
        "published_in": Key(lambda a: a.category if a.status == "published" else None),
        "id": Order(lambda a: a.id),
    },
})
