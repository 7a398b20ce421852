"""Seeded composition of a coherent organisation: the one place every procedural generator draws its world from.

An `Org` holds people (with teams, managers, roles, time zones), teams with chat channels, services with config
history, deployments and flags, and the records of every app (mail, events, files, chat, tickets, logs). Records
are plain dicts in the wire format; `Org.apps()` returns the `world.apps` of an EnvSpec. Ids the agent's tools
will create next are predictable (`next_id`), so reference solutions and checks can name them.
"""

from __future__ import annotations

import functools
import random
import re
from datetime import UTC, datetime, timedelta
from typing import Any

from coworkenv.apps.services import ConfigVersion
from coworkenv.synth import pools
from coworkenv.synth.entities import Person, Record, Service, Team
from coworkenv.world import format_time, zone

DAY = 86400


_NON_SLUG = re.compile(r"[^a-z0-9]+")


@functools.cache
def _slug(text: str) -> str:
    return _NON_SLUG.sub("-", text.lower()).strip("-")


def start_time(rng: random.Random) -> int:
    """A working-day morning in 2026 (UTC seconds): the world clock at reset."""
    day = datetime(2026, 1, 5, tzinfo=UTC) + timedelta(days=rng.randrange(0, 320))
    while day.weekday() > 3:  # Monday to Thursday, so "tomorrow" is a working day too
        day += timedelta(days=1)
    return int(day.timestamp()) + rng.choice((7, 8, 9, 10)) * 3600 + rng.choice((0, 15, 30)) * 60


class Org:
    """A seeded organisation and the records of its workspace."""

    def __init__(
        self,
        rng: random.Random,
        difficulty: int,
        n_teams: int | None = None,
        team_size: int | None = None,
        n_services: int | None = None,
    ) -> None:
        self.rng = rng
        self.difficulty = difficulty
        self.company, stem = rng.choice(pools.COMPANIES)
        self.domain = f"{stem}.test"
        self.business = rng.choice(pools.BUSINESSES)
        self.start = start_time(rng)
        self.people: dict[str, Person] = {}
        self.teams: dict[str, Team] = {}
        self.services: dict[str, Service] = {}
        self.messages: list[Record] = []
        self.events: list[Record] = []
        self.files: dict[str, Record] = {}
        self.channels: list[Record] = []
        self.chat: list[Record] = []
        self.tickets: list[Record] = []
        self.logs: list[Record] = []
        self.deployments: list[Record] = []
        self.ticket_prefix = rng.choice(("OPS", "ENG", "SUP", "PLAT", "INC", "DEV", "IT", "TKT"))
        # Numbering starts at a random base per kind so ids differ between worlds.
        self._next = {
            "msg": rng.randrange(100, 900),
            "evt": rng.randrange(100, 900),
            "chat": rng.randrange(10, 90),
            "log": rng.randrange(1000, 9000),
            "dep": rng.randrange(10, 90),
            self.ticket_prefix: rng.randrange(100, 900),
        }
        self._used_names: set[str] = set()
        self._handles: set[str] = set()
        self._used_reqs: set[str] = set()
        self._build_people(n_teams or 2 + (difficulty + 1) // 2, team_size or 2 + difficulty)
        for name in ("#general", "#incidents", "#releases"):
            self.add_channel(name, list(self.people), topic=f"{name[1:].capitalize()} of {self.company}")
        self._build_services(n_services or 2 + difficulty)

    # -- people and teams ------------------------------------------------------------------------------
    def _build_people(self, n_teams: int, team_size: int) -> None:
        director = self.add_person("t-leadership", "Director of Engineering", manager=None)
        self.teams["t-leadership"] = Team(
            "t-leadership", "Leadership", director.id, "c-general", "#general", [director.id]
        )
        for stem, name in self.rng.sample(pools.TEAMS, n_teams):
            self.add_team(stem, name, team_size, director.id)

    def add_team(self, stem: str, name: str, size: int, manager: str | None) -> Team:
        """A team with a lead reporting to `manager`, `size - 1` members and a chat channel."""
        team_id = f"t-{stem}"
        home = self.rng.choice(pools.TIMEZONES)[0]
        lead = self.add_person(team_id, self.rng.choice(pools.ROLES["lead"]).format(team=name), manager, home)
        team = Team(team_id, name, lead.id, f"c-{stem}", f"#{stem}", [lead.id])
        self.teams[team_id] = team
        for _ in range(size - 1):
            tz = home if self.rng.random() < 0.7 else self.rng.choice(pools.TIMEZONES)[0]
            self.add_person(team_id, self.rng.choice(pools.ROLES["member"]).format(team=name), lead.id, tz)
        self.add_channel(team.channel_name, team.members, topic=f"{name} team", channel_id=team.channel)
        return team

    def add_person(
        self,
        team: str,
        role: str,
        manager: str | None,
        timezone: str | None = None,
        first: str | None = None,
        last: str | None = None,
    ) -> Person:
        """A new person with a unique name, id, email and chat handle."""
        for _ in range(200):
            f = first or self.rng.choice(pools.FIRST_NAMES)
            surname = last or self.rng.choice(pools.LAST_NAMES)
            if f"{f} {surname}" not in self._used_names:
                break
        else:
            raise RuntimeError("ran out of distinct names")
        self._used_names.add(f"{f} {surname}")
        pid = f"u-{_slug(f)}"
        if pid in self.people:
            pid = f"u-{_slug(f)}-{_slug(surname)}"
        handle = _slug(f) if _slug(f) not in self._handles else _slug(f + surname)
        self._handles.add(handle)
        person = Person(
            id=pid,
            name=f"{f} {surname}",
            email=f"{_slug(f)}.{_slug(surname)}@{self.domain}",
            team=team,
            role=role,
            manager=manager,
            timezone=timezone or self.rng.choice(pools.TIMEZONES)[0],
            chat_handle=handle,
        )
        self.people[pid] = person
        if team in self.teams and pid not in self.teams[team].members:
            self.teams[team].members.append(pid)
        return person

    def add_automation(self, name: str) -> Person:
        """A bot account in the directory (it authors config changes and deploys)."""
        pid = f"u-{_slug(name)}"
        person = Person(id=pid, name=f"{name} (automation)", email=f"{_slug(name)}@{self.domain}",
                        team="t-leadership", role="Automation", manager=None, timezone="UTC", chat_handle=_slug(name))
        self._handles.add(person.chat_handle)
        self.people[pid] = person
        return person

    def members(self, team: str) -> list[Person]:
        """The people of a team."""
        return [self.people[p] for p in self.teams[team].members]

    def lead_of(self, team: str) -> Person:
        """The lead of a team."""
        return self.people[self.teams[team].lead]

    def working_teams(self) -> list[Team]:
        """Every team but the leadership team."""
        return [t for t in self.teams.values() if t.id != "t-leadership"]

    def pick_person(self, exclude: tuple[str, ...] | list[str] = (), team: str | None = None) -> Person:
        """A random human (no automation), optionally of one team and not in `exclude`."""
        pool = [
            p
            for p in self.people.values()
            if p.id not in exclude and p.role != "Automation" and (team is None or p.team == team)
        ]
        return self.rng.choice(pool)

    def add_channel(self, name: str, members: list[str], topic: str = "", channel_id: str | None = None) -> str:
        """A chat channel; returns its id (`c-<name>` unless given)."""
        cid = channel_id or f"c-{_slug(name)}"
        self.channels.append({"id": cid, "name": name, "members": sorted(members), "topic": topic, "is_dm": False})
        return cid

    # -- services ----------------------------------------------------------------------------------------
    def _build_services(self, n: int) -> None:
        teams = [t.id for t in self.working_teams()]
        for i, (stem, name, values) in enumerate(self.rng.sample(pools.SERVICES, min(n, len(pools.SERVICES)))):
            self.add_service(stem, name, values, teams[i % len(teams)])

    def add_service(self, stem: str, name: str, values: dict[str, Any], owner: str) -> Service:
        """A healthy service with 1-3 older config versions and a few deploys in its history."""
        sid = f"svc-{stem}"
        first = self.rng.randrange(1, 6)
        n_versions = self.rng.randrange(1, 4)
        major, minor = self.rng.randrange(1, 5), self.rng.randrange(0, 20)
        flags = {f: self.rng.random() < 0.4 for f in self.rng.sample(pools.FLAGS, self.rng.randrange(0, 3))}
        svc = Service(sid, name, owner, first + n_versions - 1, f"{major}.{minor}.{self.rng.randrange(0, 9)}", flags)
        for k in range(n_versions):
            varied = {key: self._vary(v) for key, v in values.items()} if k < n_versions - 1 else dict(values)
            author = self.rng.choice(self.teams[owner].members)
            svc.configs.append(
                ConfigVersion(
                    id=f"{sid}@{first + k}",
                    service=sid,
                    version=first + k,
                    values=varied,
                    author=author,
                    created_at=self.iso(-DAY * (40 - 12 * k) - self.rng.randrange(0, 20000)),
                    note=self.rng.choice(("baseline", "tune for peak", "capacity review", "cost review", "routine")),
                )
            )
        for k in range(self.rng.randrange(1, 3)):
            self.deployments.append(
                {
                    "id": self.new_id("dep"),
                    "service": sid,
                    "version": f"{major}.{minor - k - 1 if minor > k else 0}.{k}",
                    "at": self.iso(-DAY * (20 + 7 * k)),
                    "by": self.rng.choice(self.teams[owner].members),
                }
            )
        self.services[sid] = svc
        return svc

    def _vary(self, value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, int):
            return value
        return max(1, int(value * self.rng.choice((0.5, 0.75, 0.8, 1.25, 1.5))))

    # -- ids and time ------------------------------------------------------------------------------------
    def new_id(self, kind: str) -> str:
        """The next id of a kind for a record the world starts with."""
        self._next[kind] += 1
        return f"{kind}-{self._next[kind]}"

    def next_id(self, kind: str, ahead: int = 1) -> str:
        """The id the tools will give the `ahead`-th record of `kind` the agent creates (World.new_id numbering)."""
        return f"{kind}-{self._next[kind] + ahead}"

    def new_ticket_id(self) -> str:
        """The next ticket id for a ticket the world starts with."""
        return self.new_id(self.ticket_prefix)

    def next_ticket_id(self, ahead: int = 1) -> str:
        """The id tickets_create will give; the tracker takes its prefix from the first ticket (TKT if none)."""
        if not self.tickets:
            return f"TKT-{ahead}"
        return self.next_id(self.ticket_prefix, ahead)

    def request_id(self) -> str:
        """A fresh request id (`req-` and six hex digits), unique in this world."""
        while True:
            rid = f"req-{self.rng.getrandbits(24):06x}"
            if rid not in self._used_reqs:
                self._used_reqs.add(rid)
                return rid

    def iso(self, offset_s: int = 0) -> str:
        """The world start plus an offset, as ISO-8601 UTC."""
        return format_time(self.start + offset_s)

    def day_start(self, days_ahead: int = 0) -> int:
        """00:00 UTC of the start day plus `days_ahead` days."""
        return self.start - self.start % DAY + days_ahead * DAY

    @staticmethod
    def local_hhmm(t: int, tz: str) -> str:
        """UTC seconds as HH:MM in a time zone."""
        return datetime.fromtimestamp(t, zone(tz)).strftime("%H:%M")

    @staticmethod
    def local_iso(t: int, tz: str) -> str:
        """UTC seconds as ISO-8601 with the time zone's offset."""
        return datetime.fromtimestamp(t, zone(tz)).isoformat()

    # -- records -------------------------------------------------------------------------------------------
    def add_mail(
        self,
        sender: str,
        to: list[str],
        subject: str,
        body: str,
        at: int,
        folder: str = "inbox",
        read: bool = False,
        attachments: list[str] | None = None,
        cc: list[str] | None = None,
        thread: str | None = None,
        in_reply_to: str | None = None,
    ) -> str:
        """A message (times are offsets from the world start); returns its id."""
        mid = self.new_id("msg")
        self.messages.append(
            {
                "id": mid,
                "thread_id": thread or f"thr-{mid}",
                "folder": folder,
                "sender": sender,
                "to": to,
                "cc": cc or [],
                "subject": subject,
                "body": body,
                "sent_at": self.iso(at),
                "read": read,
                "attachments": attachments or [],
                "in_reply_to": in_reply_to,
            }
        )
        return mid

    def add_event(
        self,
        title: str,
        start: int,
        end: int,
        organizer: str,
        attendees: list[str],
        tz: str = "UTC",
        location: str = "",
        description: str = "",
        status: str = "confirmed",
    ) -> str:
        """A calendar event (start and end in UTC seconds); returns its id."""
        eid = self.new_id("evt")
        self.events.append(
            {
                "id": eid,
                "title": title,
                "start": format_time(start),
                "end": format_time(end),
                "timezone": tz,
                "organizer": organizer,
                "attendees": attendees,
                "location": location,
                "description": description,
                "status": status,
            }
        )
        return eid

    def add_file(self, path: str, content: str, owner: str, at: int = -DAY) -> str:
        """A document at `path` (its kind from the extension); returns the path."""
        kind = {"csv": "csv", "json": "json", "md": "markdown"}.get(path.rsplit(".", 1)[-1], "text")
        self.files[path] = {"id": path, "kind": kind, "content": content, "owner": owner, "modified_at": self.iso(at)}
        return path

    def add_chat(self, channel: str, sender: str, text: str, at: int) -> str:
        """A chat message in a channel; returns its id."""
        cid = self.new_id("chat")
        self.chat.append({"id": cid, "channel": channel, "sender": sender, "text": text, "ts": self.iso(at)})
        return cid

    def add_ticket(
        self,
        title: str,
        description: str,
        status: str = "open",
        priority: str = "p3",
        assignee: str | None = None,
        reporter: str = "",
        service: str | None = None,
        labels: list[str] | None = None,
        at: int = -DAY,
    ) -> str:
        """A ticket; returns its id."""
        tid = self.new_ticket_id()
        self.tickets.append(
            {
                "id": tid,
                "title": title,
                "description": description,
                "status": status,
                "priority": priority,
                "assignee": assignee,
                "reporter": reporter,
                "service": service,
                "labels": labels or [],
                "comments": [],
                "created_at": self.iso(at),
                "updated_at": self.iso(at),
            }
        )
        return tid

    def add_log(self, service: str, at: int, level: str, message: str, request_id: str = "") -> str:
        """A log line of a service; returns its id."""
        lid = self.new_id("log")
        self.logs.append(
            {
                "id": lid,
                "service": service,
                "ts": self.iso(at),
                "level": level,
                "request_id": request_id,
                "message": message,
            }
        )
        return lid

    def dm_channel(self, a: str, b: str) -> str:
        """The id chat_send_dm gives the direct conversation of two people."""
        return "dm-" + "-".join(sorted({a, b}))

    def apps(self) -> dict[str, Any]:
        """The `world.apps` wire state of everything built so far."""
        return {
            "directory": {
                "people": [p.model_dump() for p in self.people.values()],
                "teams": [t.record().model_dump() for t in self.teams.values()],
            },
            "mail": {"messages": self.messages},
            "calendar": {"events": self.events},
            "files": {"files": list(self.files.values())},
            "chat": {"channels": self.channels, "messages": self.chat},
            "tickets": {"tickets": self.tickets},
            "services": {
                "services": [s.record().model_dump() for s in self.services.values()],
                "configs": [c.model_dump() for s in self.services.values() for c in s.configs],
                "deployments": self.deployments,
            },
            "logs": {"lines": sorted(self.logs, key=lambda r: (r["ts"], r["id"]))},
        }
