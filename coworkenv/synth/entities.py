"""The people, teams and services of a generated organisation (the Org's building blocks)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Record = dict[str, Any]


@dataclass
class Person:
    """A person in the directory."""

    id: str
    name: str
    email: str
    team: str
    role: str
    manager: str | None
    timezone: str
    handle: str

    @property
    def first(self) -> str:
        """The first name."""
        return self.name.split(" ", 1)[0]

    def wire(self) -> Record:
        """The record in the app's wire format."""
        return {
            "id": self.id,
            "name": self.name,
            "email": self.email,
            "team": self.team,
            "role": self.role,
            "manager": self.manager,
            "timezone": self.timezone,
            "chat_handle": self.handle,
        }


@dataclass
class Team:
    """A team, its lead, its members and its chat channel."""

    id: str
    name: str
    lead: str
    channel: str  # channel id, e.g. c-payments
    channel_name: str  # e.g. #payments
    members: list[str] = field(default_factory=list)


@dataclass
class Service:
    """A production service with its config history (the active version is `config_version`)."""

    id: str
    name: str
    owner_team: str
    config_version: int
    deployed_version: str
    flags: dict[str, bool]
    configs: list[Record] = field(default_factory=list)
    status: str = "healthy"

    @property
    def values(self) -> dict[str, Any]:
        """The active config values."""
        return next(c["values"] for c in self.configs if c["version"] == self.config_version)

    def wire(self) -> Record:
        """The record in the app's wire format."""
        return {
            "id": self.id,
            "name": self.name,
            "owner_team": self.owner_team,
            "status": self.status,
            "config_version": self.config_version,
            "deployed_version": self.deployed_version,
            "flags": dict(self.flags),
            "restarts": 0,
        }


__all__ = ["Person", "Record", "Service", "Team"]
