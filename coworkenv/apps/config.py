"""Config store: shared key/value settings with a version per key and the history of every value, and the
third-party integrations (their service, status, usage and error rate)."""

from __future__ import annotations

from typing import Any

from coworkenv.apps._common import clamp, dump, dump_many, shape_many
from coworkenv.tools import ToolError, Toolkit, read, write
from coworkenv.world import AppDef, AppState, Key, Order, Record, prefix_range


class ConfigEntry(Record):
    """The current value of a key; id is the key (e.g. `billing/retry_limit`)."""

    value: str
    version: int = 1
    updated_by: str = ""
    updated_at: str = ""


class ConfigRevision(Record):
    """One past or present value of a key; id is `<key>@<version>`."""

    key: str
    version: int
    value: str
    author: str = ""
    at: str = ""


class Integration(Record):
    """A connection to a third-party service, as the platform team tracks it."""

    name: str
    service: str = ""
    status: str = ""  # e.g. active, degraded, expired, disabled
    last_verified: str = ""
    monthly_calls: int | float = 0
    error_rate: int | float = 0  # share of failed calls, 0..1
    notes: str = ""  # free text: endpoints, credentials and settings as the team wrote them down


_INTEGRATION_SUMMARY = ("id", "name", "service", "status", "last_verified", "monthly_calls", "error_rate")


class ConfigState(AppState):
    entries: list[ConfigEntry] = []
    revisions: list[ConfigRevision] = []
    integrations: list[Integration] = []


def _listed(e: ConfigEntry) -> dict[str, Any]:
    return {"key": e.id, "value": e.value, "version": e.version}


class ConfigTools(Toolkit):
    app = "config"

    @read
    def list_keys(self, prefix: str = "", limit: int = 100) -> list[dict[str, Any]]:
        """List keys (sorted) with their current value and version.

        Args:
            prefix: Only keys starting with this prefix, e.g. `billing/`.
            limit: Maximum number of keys.
        """
        rows = self.world.table("config", "entries").select("key", between=prefix_range(prefix), limit=clamp(limit))
        return shape_many(rows, _listed)

    @read
    def get(self, key: str) -> dict[str, Any]:
        """Get a key's current value and version.

        Args:
            key: The key.
        """
        entry = self._entry(key)
        return {"key": entry.id, **{k: v for k, v in dump(entry).items() if k != "id"}}

    @read
    def history(self, key: str) -> list[dict[str, Any]]:
        """Every value a key has had, newest version first.

        Args:
            key: The key.
        """
        self._entry(key)
        revisions = self.world.table("config", "revisions")
        rows = revisions.select("version", sets=[revisions.key("key").ids(key)], reverse=True)
        return dump_many(rows, "version", "value", "author", "at")

    @write
    def set(self, key: str, value: str, expected_version: int | None = None) -> dict[str, Any]:
        """Set a key's value (a new version). With expected_version, refuse if someone changed it since.

        Args:
            key: The key (an existing one, or a new key).
            value: The new value, as text.
            expected_version: The version you read; the write fails if the current version differs.
        """
        if not key.strip() or " " in key:
            raise ToolError(f"{key!r} is not a valid key; keys look like area/name")
        entry = self.world.table("config", "entries").get(key)
        current = entry.version if entry is not None else 0
        if expected_version is not None and expected_version != current:
            raise ToolError(f"{key} is at version {current}, not {expected_version}; read it again with config_get")
        if entry is not None and entry.value == value:
            return {"key": key, "version": current, "unchanged": True}
        version, now, author = current + 1, self.world.now_iso, self.world.user or ""
        self.put("entries", ConfigEntry(id=key, value=value, version=version, updated_by=author, updated_at=now))
        self.put("revisions", ConfigRevision(id=f"{key}@{version}", key=key, version=version, value=value,
                                             author=author, at=now))
        return {"key": key, "value": value, "version": version}

    @read
    def list_integrations(self, status: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
        """List integrations by id (an overview without their notes).

        Args:
            status: Only integrations with exactly this status.
            limit: Maximum number of integrations.
        """
        table = self.world.table("config", "integrations")
        sets = [table.key("status").ids(status) if status else None]
        return dump_many(table.select("id", sets=sets, limit=clamp(limit)), *_INTEGRATION_SUMMARY)

    @read
    def get_integration(self, integration_id: str) -> dict[str, Any]:
        """Get an integration with its notes (which may hold its endpoints and credentials).

        Args:
            integration_id: Integration id.
        """
        return dump(self._integration(integration_id))

    @write
    def update_integration(self, integration_id: str, status: str | None = None,
                           notes: str | None = None) -> dict[str, Any]:
        """Set an integration's status or replace its notes (an empty value leaves the field as it is).

        Args:
            integration_id: Integration id.
            status: New status.
            notes: New notes.
        """
        integration = self._integration(integration_id)
        update = {k: v for k, v in (("status", status), ("notes", notes)) if v}
        updated = integration.model_copy(update=update)
        self.put("integrations", updated)
        return dump(updated)

    def _integration(self, integration_id: str) -> Integration:
        return self.require("integrations", integration_id, "integration",  # type: ignore[no-any-return]
                            "use config_list_integrations")

    def _entry(self, key: str) -> ConfigEntry:
        return self.require("entries", key, "config key", "use config_list_keys")  # type: ignore[no-any-return]


APP = AppDef("config", ConfigState, ConfigTools, "shared key/value settings with versions and history", indexes={
    "entries": {"key": Order(lambda e: e.id)},
    "revisions": {"key": Key(lambda r: r.key), "version": Order(lambda r: r.version)},
    "integrations": {"id": Order(lambda i: i.id), "status": Key(lambda i: i.status or None)},
})
