"""Directory: people, teams, managers, roles and time zones."""

from __future__ import annotations

from typing import Any

from coworkenv.apps._common import clamp, dump, dump_many
from coworkenv.tools import ToolError, Toolkit, read
from coworkenv.world import AppDef, AppState, Key, Record, Words


class Person(Record):
    name: str
    email: str
    team: str
    role: str
    manager: str | None = None
    timezone: str = "UTC"
    chat_handle: str = ""


class Team(Record):
    name: str
    lead: str | None = None  # a team may have no lead (a vacancy, a self-organised team)
    channel: str | None = None


class DirectoryState(AppState):
    people: list[Person] = []
    teams: list[Team] = []


def person_by_ref(kit: Toolkit, ref: str) -> Person:
    """Resolve a person by id, email or chat handle."""
    people = kit.world.table("directory", "people")
    found = people.get(ref)
    if found is not None:
        return found  # type: ignore[no-any-return]
    lowered = ref.lower().lstrip("@")
    ids = people.key("email").ids(lowered) | people.key("handle").ids(lowered)
    if ids:
        return people.select(sets=[ids], limit=1)[0]  # type: ignore[no-any-return]  # the first in table order
    raise ToolError(f"no person {ref!r} in the directory; use directory_search to find people")


class DirectoryTools(Toolkit):
    app = "directory"

    @read
    def search(self, query: str = "", team: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
        """Find people by name, email, role or team.

        Args:
            query: Words to match against name, email and role (empty matches everyone).
            team: Only people of this team id.
            limit: Maximum number of people returned.
        """
        people = self.world.table("directory", "people")
        sets = [people.key("team").ids(team) if team is not None else None]
        return dump_many(people.select(words=("text", query), sets=sets, limit=clamp(limit)))

    @read
    def get_person(self, person: str) -> dict[str, Any]:
        """Get one person with their manager and team.

        Args:
            person: Person id, email address or chat handle.
        """
        found = person_by_ref(self, person)
        return dump(found)

    @read
    def get_team(self, team_id: str) -> dict[str, Any]:
        """Get a team and its members.

        Args:
            team_id: Team id.
        """
        team = self.require("teams", team_id, "team", "use directory_search to see people's team ids")
        members = self.world.table("directory", "people").key("team").ids(team_id)
        return {**dump(team), "members": sorted(members)}


APP = AppDef("directory", DirectoryState, DirectoryTools, "people, teams, managers, roles and time zones", indexes={
    "people": {
        "text": Words(lambda p: (p.name, p.email, p.role, p.team)),
        "team": Key(lambda p: p.team),
        "email": Key(lambda p: p.email.lower()),
        "handle": Key(lambda p: p.chat_handle.lower()),
    },
})
