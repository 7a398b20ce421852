"""The people, teams and services of a generated organisation (the Org's building blocks).

People are the directory app's typed records; config versions are the services app's records; teams and
services carry what generators need beyond their record (members, channel name, the config history, changes
made while a fault is planted) and write the record.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from coworkenv.apps import directory, services

Record = dict[str, Any]


class Person(directory.Person):
    """A person in the directory: the directory app's own typed record, with the first name generators write."""

    @property
    def first(self) -> str:
        """The first name."""
        return self.name.split(" ", 1)[0]


@dataclass
class Team:
    """A team, its lead, its members and its chat channel."""

    id: str
    name: str
    lead: str
    channel: str  # channel id, e.g. c-payments
    channel_name: str  # e.g. #payments
    members: list[str] = field(default_factory=list)

    def record(self) -> directory.Team:
        """The directory app's record of the team."""
        return directory.Team(id=self.id, name=self.name, lead=self.lead, channel=self.channel)


@dataclass
class Service:
    """A production service with its config history (the active version is `config_version`)."""

    id: str
    name: str
    owner_team: str
    config_version: int
    deployed_version: str
    flags: dict[str, bool]
    configs: list[services.ConfigVersion] = field(default_factory=list)
    status: Literal["healthy", "degraded", "down"] = "healthy"

    @property
    def values(self) -> dict[str, Any]:
        """The active config values."""
        return next(c.values for c in self.configs if c.version == self.config_version)

    def record(self) -> services.Service:
        """The services app's record of the service as it stands."""
        return services.Service(id=self.id, name=self.name, owner_team=self.owner_team, status=self.status,
                                config_version=self.config_version, deployed_version=self.deployed_version,
                                flags=dict(self.flags))

__all__ = ["Person", "Record", "Service", "Team"]
