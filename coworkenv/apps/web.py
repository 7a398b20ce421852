"""Web: a simulated intranet and internet of static pages. Nothing leaves the machine; pages are world records."""

from __future__ import annotations

from typing import Any

from coworkenv.apps._common import clamp, dump
from coworkenv.tools import ToolError, Toolkit, read
from coworkenv.world import AppDef, AppState, Key, Order, Record, Words

_REASONS = {200: "OK", 301: "Moved Permanently", 302: "Found", 403: "Forbidden", 404: "Not Found",
            410: "Gone", 500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable"}


class Page(Record):
    """A page; id is its URL."""

    title: str = ""
    body: str = ""
    status: int = 200  # HTTP status code the page answers with
    location: str | None = None  # target of a redirect (3xx)
    links: list[str] = []


class WebState(AppState):
    pages: list[Page] = []


class WebTools(Toolkit):
    app = "web"

    @read
    def fetch(self, url: str) -> dict[str, Any]:
        """Fetch a page: its HTTP status, title and body (redirects are reported, not followed).

        Args:
            url: Full URL, e.g. https://status.example.test/
        """
        if not url.startswith(("http://", "https://")):
            raise ToolError(f"{url!r} is not an http(s) URL")
        page = self.world.table("web", "pages").get(url) or self.world.table("web", "pages").get(url.rstrip("/"))
        if page is None:
            return {"url": url, "status": 404, "reason": _REASONS[404], "title": "", "body": ""}
        out = {"url": page.id, "status": page.status, "reason": _REASONS.get(page.status, "")}
        if 300 <= page.status < 400:
            return {**out, "location": page.location}
        return {**out, "title": page.title, "body": page.body if page.status < 400 else "", "links": page.links}

    @read
    def search(self, query: str, limit: int = 10) -> list[dict[str, Any]]:
        """Search pages (answering 200) by words in URL, title or body.

        Args:
            query: Words that must all occur.
            limit: Maximum number of results.
        """
        table = self.world.table("web", "pages")
        rows = table.select("url", words=("text", query), sets=[table.key("status").ids(200)], limit=clamp(limit))
        return [{**dump(p, "title", "status"), "url": p.id} for p in rows]


APP = AppDef("web", WebState, WebTools, "static web pages (simulated, offline): URL, title, body, HTTP status", indexes={
    "pages": {
        "text": Words(lambda p: (p.id, p.title, p.body)),
        "status": Key(lambda p: p.status),
        "url": Order(lambda p: p.id),
    },
})
