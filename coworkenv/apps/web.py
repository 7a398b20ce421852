"""Web: a simulated intranet and internet of static pages. Nothing leaves the machine; pages are world records."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from coworkenv.apps._common import clamp, dump, shape_many
from coworkenv.tools import ToolError, Toolkit, read, service_args, write
from coworkenv.world import AppDef, AppState, Key, Order, Record, Words

_REASONS = {200: "OK", 301: "Moved Permanently", 302: "Found", 403: "Forbidden", 404: "Not Found",
            410: "Gone", 500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable"}
_NO_PAGE = "Page not found or unavailable"  # a fetch of a URL no page has


class Page(Record):
    """A page; id is its URL."""

    title: str = ""
    body: str = ""
    status: int = 200  # HTTP status code the page answers with
    location: str | None = None  # target of a redirect (3xx)
    links: list[str] = []


class SearchEntry(Record):
    """A search engine's entry for a page: what a search shows, and the keywords it is found by (ids in rank order
    of ties: `r-0001` before `r-0002`)."""

    url: str
    title: str = ""
    snippet: str = ""
    source: str = ""
    published_at: str = ""
    keywords: list[str] = []


class Notification(Record):
    """A notification sent to a channel (email, slack, sms...)."""

    channel: str
    message: str
    recipients: list[str] = []
    at: str


class WebState(AppState):
    pages: list[Page] = []
    results: list[SearchEntry] = []
    notifications: list[Notification] = []


def _found(p: Page) -> dict[str, Any]:
    return {**dump(p, "title", "status"), "url": p.id}


class WebTools(Toolkit):
    app = "web"

    @read
    @service_args("any_url")
    def fetch(self, url: str, any_url: bool = False) -> dict[str, Any]:
        """Fetch a page: its HTTP status, title and body (redirects are reported, not followed). A page that fails
        (status 400 or more, or no page at the URL) has an empty body and says why in `error`.

        Args:
            url: Full URL, e.g. https://status.example.test/
            any_url: Any text is a URL no page has (a 404), not only an http(s) one, as a web service that looks
                every URL up in its pages answers.
        """
        if not any_url and not url.startswith(("http://", "https://")):
            raise ToolError(f"{url!r} is not an http(s) URL")
        page = self.world.table("web", "pages").get(url) or self.world.table("web", "pages").get(url.rstrip("/"))
        if page is None:
            return {"url": url, "status": 404, "reason": _REASONS[404], "title": "", "body": "", "error": _NO_PAGE}
        out = {"url": page.id, "status": page.status, "reason": _REASONS.get(page.status, "")}
        if 300 <= page.status < 400:
            return {**out, "location": page.location}
        if page.status >= 400:  # the page's text is its error message (an error page's, or a fixture's `error`)
            error = page.body or f"HTTP {page.status}"
            return {**out, "title": page.title, "body": "", "links": page.links, "error": error}
        return {**out, "title": page.title, "body": page.body, "links": page.links}

    @read
    def search(self, query: str, limit: int = 10) -> list[dict[str, Any]]:
        """Search pages (answering 200) by words in URL, title or body.

        Args:
            query: Words that must all occur.
            limit: Maximum number of results.
        """
        table = self.world.table("web", "pages")
        rows = table.select("url", words=("text", query), sets=[table.key("status").ids(200)], limit=clamp(limit))
        return shape_many(rows, _found)

    @read
    def rank_results(self, query: str, max_results: int = 10) -> list[dict[str, Any]]:
        """Search the search engine's entries: those sharing a keyword token with the query, most shared first.

        Tokens are the lowercase words (punctuation stripped at their ends), each CJK character and each pair of
        adjacent CJK characters.

        Args:
            query: Search words.
            max_results: Maximum number of results.
        """
        wanted = keyword_tokens(query)
        scored = []
        for entry in self.world.table("web", "results"):
            found: set[str] = set()
            for keyword in entry.keywords:
                found |= keyword_tokens(keyword)
            if shared := len(wanted & found):
                scored.append((-shared, entry.id, entry))
        scored.sort(key=lambda s: s[:2])
        return [dump(e, "url", "title", "snippet", "source", "published_at") for _, _, e in scored[:max(0, max_results)]]

    @write
    def notify(self, channel: str, message: str, recipients: list[str] | None = None) -> dict[str, Any]:
        """Send a notification to a channel.

        Args:
            channel: email, slack, sms...
            message: The notification's text.
            recipients: Who gets it, as written.
        """
        note = Notification(id=self.world.new_id("ntf", "web", "notifications"), channel=channel, message=message,
                            recipients=list(recipients or []), at=self.world.now_iso)
        self.put("notifications", note)
        return {"status": "sent", "record": dump(note, "channel", "message", "recipients", "at")}


_STRIP = ",.!?;:\"'()[]{}\u3002\uff0c\uff01\uff1f\uff1b\uff1a\uff08\uff09\u3010\u3011\u300a\u300b"  # what a word loses at its ends


def _cjk(char: str) -> bool:
    return "一" <= char <= "鿿"


def keyword_tokens(text: str) -> set[str]:
    """Lowercase words (punctuation stripped at their ends), CJK characters and adjacent CJK pairs of a text."""
    out = {clean for word in text.lower().split() if (clean := word.strip(_STRIP))}
    out |= {c for c in text if _cjk(c)}
    out |= {a + b for a, b in pairwise(text) if _cjk(a) and _cjk(b)}
    return out


APP = AppDef("web", WebState, WebTools, "static web pages (simulated, offline): URL, title, body, HTTP status", indexes={
    "pages": {
        "text": Words(lambda p: (p.id, p.title, p.body)),
        "status": Key(lambda p: p.status),
        "url": Order(lambda p: p.id),
    },
})
