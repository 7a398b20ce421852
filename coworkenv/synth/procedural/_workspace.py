"""An Org that also holds the records of the productivity apps: todo, notes, kb, contacts, config, scheduler,
inventory and web. Ids follow the same rule as the Org's: a random base per kind, `next_id` predicts the tools'."""

from __future__ import annotations

import random
from typing import Any

from coworkenv.synth.world_builder import Org

Record = dict[str, Any]

# fmt: off
DELIVERABLES = (
    "budget forecast", "hiring plan", "vendor shortlist", "launch checklist", "security review", "onboarding guide",
    "pricing proposal", "capacity report", "release notes", "board slides", "audit evidence", "migration plan",
    "customer survey summary", "training schedule", "travel policy draft", "contract renewal memo", "risk register",
    "quarterly metrics", "partner brief", "support rota",
)
PRODUCTS = (
    ("USB-C dock", "DOCK"), ("27in monitor", "MON27"), ("laptop stand", "STAND"), ("wireless mouse", "MOUSE"),
    ("keyboard", "KBD"), ("headset", "HSET"), ("webcam", "CAM"), ("HDMI cable", "HDMI"), ("power adapter", "PWR"),
    ("label printer roll", "LROLL"), ("barcode scanner", "SCAN"), ("shipping box M", "BOXM"), ("shipping box L", "BOXL"),
    ("packing tape", "TAPE"), ("thermal paper", "TPAPER"), ("safety gloves", "GLOVE"), ("hand scanner battery", "BATT"),
    ("pallet wrap", "WRAP"), ("desk lamp", "LAMP"), ("whiteboard marker", "MARK"),
)
JOB_KINDS = (
    ("nightly-export", "export --all --to s3://exports/"), ("invoice-run", "billing invoice --batch"),
    ("cache-warmup", "cache warm --all"), ("report-digest", "reports send --digest"), ("log-rotate", "logs rotate --keep 14"),
    ("db-vacuum", "db vacuum --analyze"), ("sync-crm", "crm sync --full"), ("backup-snapshot", "backup snapshot --daily"),
    ("cert-renew", "certs renew --all"), ("index-rebuild", "search reindex"), ("metrics-rollup", "metrics rollup --hourly"),
    ("stale-branch-cleanup", "git prune --older 30d"), ("email-bounce-scan", "mail bounces --scan"),
)
WEB_PATHS = (
    "pricing", "docs/getting-started", "blog/launch", "careers", "status", "support/contact", "docs/api",
    "legal/privacy", "partners", "changelog", "download", "about/team", "docs/faq", "events", "security",
)
# fmt: on
SCHEDULES = ("0 2 * * *", "30 3 * * *", "0 * * * *", "15 6 * * 1-5", "0 22 * * 0", "*/30 * * * *", "45 1 * * 1,3,5")


class Workspace(Org):
    """An Org plus the productivity apps' records (plain wire dicts), returned by `apps()` with the rest."""

    def __init__(self, rng: random.Random, difficulty: int, **kwargs: Any) -> None:
        super().__init__(rng, difficulty, **kwargs)
        self.extra: dict[str, dict[str, list[Record]]] = {}
        for kind in ("list", "task", "note", "KB", "ct", "job", "mv"):
            self._next[kind] = rng.randrange(10, 900)

    def add(self, app: str, table: str, record: Record) -> str:
        """Add a record to `app.table` (the record carries its id); returns the id."""
        self.extra.setdefault(app, {}).setdefault(table, []).append(record)
        return str(record["id"])

    def rows(self, app: str, table: str) -> list[Record]:
        """The records added so far to `app.table`."""
        return self.extra.get(app, {}).get(table, [])

    def add_list(self, name: str, owner: str) -> str:
        """A to-do list; returns its id."""
        return self.add("todo", "lists", {"id": self.new_id("list"), "name": name, "owner": owner})

    def add_task(self, list_id: str, title: str, due: int | None = None, done: bool = False, notes: str = "") -> str:
        """A to-do task (due in UTC seconds); returns its id."""
        return self.add("todo", "tasks", {
            "id": self.new_id("task"), "list_id": list_id, "title": title, "notes": notes,
            "due": self.iso(due - self.start) if due is not None else None, "done": done,
            "done_at": self.iso(-3600) if done else None, "created_at": self.iso(-86400 * self.rng.randrange(1, 9)),
        })

    def add_note(self, title: str, body: str, tags: list[str], at: int = -86400) -> str:
        """A note of the user's; returns its id."""
        return self.add("notes", "notes", {"id": self.new_id("note"), "title": title, "body": body, "tags": tags,
                                           "created_at": self.iso(at), "updated_at": self.iso(at)})

    def add_article(self, title: str, body: str, category: str, author: str, status: str = "published") -> str:
        """A knowledge-base article; returns its id."""
        return self.add("kb", "articles", {
            "id": self.new_id("KB"), "title": title, "body": body, "category": category, "tags": [], "author": author,
            "status": status, "updated_at": self.iso(-86400 * self.rng.randrange(2, 200)),
        })

    def add_contact(self, name: str, company: str, email: str, phone: str, notes: str = "") -> str:
        """An external contact; returns its id."""
        return self.add("contacts", "contacts", {
            "id": self.new_id("ct"), "name": name, "company": company, "email": email, "phone": phone, "notes": notes,
            "tags": [], "updated_at": self.iso(-86400 * self.rng.randrange(5, 300)),
        })

    def add_config(self, key: str, values: list[str], author: str) -> None:
        """A config-store key with its history: `values` oldest first, the last one current."""
        for version, value in enumerate(values, 1):
            at = self.iso(-86400 * (len(values) - version + 1) * self.rng.randrange(2, 9))
            self.add("config", "revisions", {"id": f"{key}@{version}", "key": key, "version": version, "value": value,
                                             "author": author, "at": at})
        self.add("config", "entries", {"id": key, "value": values[-1], "version": len(values), "updated_by": author,
                                       "updated_at": self.rows("config", "revisions")[-1]["at"]})

    def add_job(self, name: str, command: str, owner: str, status: str, last_run: int | None, enabled: bool = True) -> str:
        """A scheduled job (last run as an offset from the world start); returns its id."""
        return self.add("scheduler", "jobs", {
            "id": self.new_id("job"), "name": name, "schedule": self.rng.choice(SCHEDULES), "command": command,
            "owner": owner, "enabled": enabled, "last_run": self.iso(last_run) if last_run is not None else None,
            "last_status": status, "last_output": "exit 1: " + self.rng.choice(("timeout", "connection refused",
                                                                                 "disk full", "permission denied"))
            if status == "failed" else ("done" if status == "ok" else ""),
        })

    def add_page(self, url: str, title: str, body: str, status: int = 200, location: str | None = None) -> str:
        """A web page; returns its URL."""
        return self.add("web", "pages", {"id": url, "title": title, "body": body, "status": status,
                                         "location": location, "links": []})

    def apps(self) -> dict[str, Any]:
        """The Org's apps plus the productivity apps' tables."""
        return {**super().apps(), **{app: dict(tables) for app, tables in self.extra.items()}}
