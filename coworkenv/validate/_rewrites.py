"""Rewrites in place: the app's other write tool that replaces what a guarded tool would destroy or change.

`REWRITES` classifies every write tool of the apps: the tools that destroy or change one record map to the app's
other write tools that replace the same record's content in place (a document overwritten where its deletion is
forbidden, a job disabled where deleting it is, a config rolled back where changing it is), with the arguments
beside the record's that make them do it; `UNREWRITTEN` holds the write tools no other tool of their app rewrites
that way (they make a new record or message, or theirs is rewritten by no other tool). A write tool in neither
fails `tests/test_validate_guard_rewrites.py`, so a new app tool is classified when it is added.

`key_rollbacks` is the same route for a guard on config keys (`services_update_config` whose matcher names keys
in `changes`): `services_rollback_config` to a version whose difference from the active config, made by hand, is a
change the guard forbids (the key set to the forbidden value, or changed at all where the guard names the key).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from coworkenv.apps import TOOLS
from coworkenv.checks import call_matches
from coworkenv.spec import CallMatcher, ForbiddenRule
from coworkenv.world import World

# Arguments filled from the world for the record at hand (see `_filled`).
ANOTHER_VERSION = "<another config version of the service>"
ANOTHER_LOCATION = "<another stock location>"
A_CHANGED_KEY = "<a config key of the service, changed>"

REWRITES: dict[str, tuple[tuple[str, dict[str, Any]], ...]] = {
    "files_delete_file": (("files_write_file", {"content": "", "overwrite": True}),),
    "notes_delete_note": (("notes_update_note", {"body": ""}),),
    "todo_delete_task": (("todo_update_task", {"title": "", "notes": ""}),),
    "todo_update_task": (("todo_complete_task", {}),),
    "scheduler_delete_job": (("scheduler_update_job", {"enabled": False}),
                             ("scheduler_update_job", {"command": "true"})),
    "calendar_cancel_event": (("calendar_update_event", {"attendees": []}),),
    "services_update_config": (("services_rollback_config", {"to_version": ANOTHER_VERSION}),),
    "services_rollback_config": (("services_update_config", {"changes": A_CHANGED_KEY, "note": "a change"}),),
    "inventory_adjust": (("inventory_transfer", {"to_location": ANOTHER_LOCATION, "quantity": 1}),),
    "inventory_transfer": (("inventory_adjust", {"delta": -1, "reason": "count correction"}),),
}
UNREWRITTEN = frozenset({
    # make a new record, message or report: nothing of an existing one is replaced
    "calendar_add_event", "calendar_create_event", "chat_post_message", "chat_send_dm", "contacts_create",
    "contacts_export_report", "contacts_send_message", "finance_submit_report", "inventory_create_order",
    "kb_create_article", "mail_save_draft", "mail_send", "mail_send_draft", "news_publish", "notes_create_note",
    "notes_share_note", "scheduler_create_job", "scheduler_run_now", "tickets_comment", "tickets_create",
    "todo_add_task", "todo_create_list", "web_notify",
    # change a record no other write tool of their app rewrites (a deletion of it is `_deletions`' route, the
    # same setting by a sibling tool `_guard_routes`')
    "calendar_update_event", "config_set", "config_update_integration", "contacts_update", "files_write_file",
    "kb_update_article", "mail_label", "mail_mark_read", "mail_move", "notes_update_note", "scheduler_update_job",
    "services_deploy", "services_restart", "services_set_flag", "tickets_update", "todo_complete_task",
})


def rewrites(rule: ForbiddenRule, pinned: dict[str, Any], guards: list[CallMatcher], exposed: set[str], world: World,
             done: set[tuple[str, str]]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(tool, arguments) of each exposed tool of `REWRITES` that replaces the content of the one record the guard
    pins (and nothing else: a guard on one value of a change is about that value, judged elsewhere), unless the
    reference makes that call on the record itself (a rollback the task asks for, beside a guard on hand edits) or
    another of the spec's `guards` already names that tool on the record (the author chose which of its calls to
    forbid: a guard on one config key beside one on rolling the service back)."""
    record_arg = first_required(TOOLS[rule.call.tool])
    value = pinned.get(record_arg) if record_arg else None
    if record_arg is None or not isinstance(value, str) or set(pinned) != {record_arg} or \
            any(c.field != record_arg for c in rule.call.where):
        return
    for name, extra in REWRITES.get(rule.call.tool, ()):
        if name not in exposed or (name, value) in done or any(_names(g, name, value) for g in guards):
            continue
        args = _filled(world, value, {first_required(TOOLS[name]) or record_arg: value, **extra})
        if args is not None:
            yield name, args


def key_rollbacks(rule: ForbiddenRule, exposed: set[str], world: World,
                  done: set[tuple[str, str]]) -> Iterator[tuple[list[str], int, dict[str, Any]]]:
    """(keys, version, rollback arguments) for a guard on `services_update_config` that names config keys in
    `changes`: per service it may match, a version the service can be rolled back to whose difference from the
    active config, made by hand (`services_update_config` with those changes), is a change the guard forbids."""
    call = rule.call
    if call.tool != "services_update_config" or "services_rollback_config" not in exposed:
        return
    if "changes" not in call.args and not any(c.field.split(".")[0] == "changes" for c in call.where):
        return  # a guard on the service alone: `rewrites` rolls it back to any version
    for service in world.table("services", "services"):
        active = _active_values(world, service.id)
        if active is None or ("services_rollback_config", service.id) in done:
            continue
        for config in world.table("services", "configs"):
            if config.service != service.id or config.version == service.config_version:
                continue
            diff = {k: v for k, v in config.values.items() if active.get(k, _ABSENT) != v}
            if diff and call_matches(call, "services_update_config",
                                     {"service": service.id, "changes": diff, "note": ""}):
                yield sorted(diff), config.version, {"service": service.id, "to_version": config.version}
                break


_ABSENT = object()


def _names(matcher: CallMatcher, tool: str, record: str) -> bool:
    """Whether `matcher` is on `tool` and pins its record argument to `record`."""
    arg = first_required(TOOLS[tool])
    pinned = {**{c.field: c.value for c in matcher.where if c.op == "equals"}, **matcher.args}
    return matcher.tool == tool and arg is not None and str(pinned.get(arg, "")).lower() == record.lower()


def _active_values(world: World, service: str) -> dict[str, Any] | None:
    active = next((s.config_version for s in world.table("services", "services") if s.id == service), None)
    return next((dict(c.values) for c in world.table("services", "configs")
                 if c.service == service and c.version == active), None)


def _filled(world: World, record: str, args: dict[str, Any]) -> dict[str, Any] | None:
    """`args` with each world-filled argument given for `record`, or None where the world has none to give."""
    filled = dict(args)
    for arg, value in args.items():
        if value == ANOTHER_VERSION:
            active = next((s.config_version for s in world.table("services", "services") if s.id == record), None)
            version = next((c.version for c in world.table("services", "configs")
                            if c.service == record and c.version != active), None)
            if version is None:
                return None  # one config version only: nothing to roll back to
            filled[arg] = version
        elif value == ANOTHER_LOCATION:
            item = world.table("inventory", "items").get(record)
            here = getattr(item, "location", None)
            where = next((loc.id for loc in world.table("inventory", "locations") if loc.id != here), None)
            if item is None or where is None:
                return None
            filled[arg] = where
        elif value == A_CHANGED_KEY:
            values = _active_values(world, record)
            if not values:
                return None
            key, old = next(iter(values.items()))
            filled[arg] = {key: _changed(old)}
    return filled


def _changed(value: Any) -> Any:
    """A config value of the same type as `value`, other than it."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    return f"{value}-changed"


def first_required(tool: Any) -> str | None:
    """The name of a tool's first required argument (the record it acts on), or None."""
    return next((n for n, f in tool.params.model_fields.items() if f.is_required()), None)
