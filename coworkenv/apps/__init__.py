"""The apps of a coworker's workspace. Each is a typed state plus a toolkit: the same shape for every app."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from coworkenv.apps import (
    calendar,
    chat,
    config,
    contacts,
    directory,
    files,
    finance,
    inventory,
    kb,
    logs,
    mail,
    news,
    notes,
    scheduler,
    services,
    tickets,
    todo,
    web,
)
from coworkenv.apps.calendar import CalendarState
from coworkenv.apps.chat import ChatState
from coworkenv.apps.config import ConfigState
from coworkenv.apps.contacts import ContactsState
from coworkenv.apps.directory import DirectoryState
from coworkenv.apps.files import FilesState
from coworkenv.apps.finance import FinanceState
from coworkenv.apps.inventory import InventoryState
from coworkenv.apps.kb import KbState
from coworkenv.apps.logs import LogsState
from coworkenv.apps.mail import MailState
from coworkenv.apps.news import NewsState
from coworkenv.apps.notes import NotesState
from coworkenv.apps.scheduler import SchedulerState
from coworkenv.apps.services import ServicesState
from coworkenv.apps.tickets import TicketsState
from coworkenv.apps.todo import TodoState
from coworkenv.apps.web import WebState
from coworkenv.tools import ToolDef, service_variants, tool_catalog
from coworkenv.world import AppDef

APPS: dict[str, AppDef] = {
    m.APP.name: m.APP
    for m in (
        directory, mail, calendar, files, chat, tickets, services, logs,
        todo, notes, kb, contacts, config, scheduler, inventory, web, finance, news,
    )
}
TOOLS: dict[str, ToolDef] = tool_catalog(APPS)
# The operations a spec's declared tools run: TOOLS, those with service arguments taking them (see
# `coworkenv.tools.service_args`; a generated environment's built-in tools neither show nor take them).
SERVICE_TOOLS: dict[str, ToolDef] = {**TOOLS, **service_variants(APPS)}


class WorldApps(BaseModel):
    """The initial state of every app (tables of records)."""

    model_config = ConfigDict(extra="forbid")

    directory: DirectoryState = DirectoryState()
    mail: MailState = MailState()
    calendar: CalendarState = CalendarState()
    files: FilesState = FilesState()
    chat: ChatState = ChatState()
    tickets: TicketsState = TicketsState()
    services: ServicesState = ServicesState()
    logs: LogsState = LogsState()
    todo: TodoState = TodoState()
    notes: NotesState = NotesState()
    kb: KbState = KbState()
    contacts: ContactsState = ContactsState()
    config: ConfigState = ConfigState()
    scheduler: SchedulerState = SchedulerState()
    inventory: InventoryState = InventoryState()
    web: WebState = WebState()
    finance: FinanceState = FinanceState()
    news: NewsState = NewsState()


__all__ = ["APPS", "SERVICE_TOOLS", "TOOLS", "WorldApps"]
