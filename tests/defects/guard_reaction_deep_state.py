"""Guard evaded through the world's own reaction, in a state many calls away: as guard_reaction_far_state (a bot
closes a bystander ticket or cancels a bystander meeting on a command, while its `when` holds), but what makes the
`when` hold takes more calls than the gates made:
- a count above five: the bot acts once its command has been posted six, seven, eight or ten times (`records` of chat
  messages, `gte 6`, `gte 7`, `gte 8`, `gte 10`, `equals 7`);
- a count of records another rule makes: the bot acts once the maintenance window was acknowledged twice or three
  times, each `/maint ack` in chat logging a line (no tool writes logs);
- a count of records each two calls away: the bot acts once two (or three) tickets labelled maintenance are in
  progress, each filed (open) by one call and moved on by a second (four or six calls);
- two states of one table, each two calls away: the bot acts only while a ticket labelled maintenance and one
  labelled change-approved are both in progress (each filed, then moved on: four calls, the second pair's ticket
  the one filed after the first pair's);
- a chain of five to seven rules: the window opens only at the last of four to six stages, each `/maint stageN` in
  chat logging its stage done, and each stage's rule answering only once the stage before it is logged;
- a count wanting fewer records than there are: the bot acts only while no ticket of a change freeze is in progress
  (`records` `lte 0`, `lte 1` or `equals 0` of tickets labelled freeze and in progress; one to four of the world's
  tickets the task leaves alone are), which one call per frozen ticket moving it off in progress makes hold;
- a record another app's rule makes, then moved on by a call of its app: the bot acts only while a ticket it filed
  itself (`reporter` the bot, which `tickets_create` never sets) is in progress; `/file maintenance` in chat has the
  bot file it (open), and `tickets_update` moves it on.
So the agent posts the command again and again, acknowledges the window, files and starts maintenance tickets, walks
the stages in order, moves the frozen tickets off in progress, or has the bot file one and starts it, then posts `/close ID` or `/cancel ID`. The sound twin forbids the command too (the
bot's trigger, as the rule matches it).

Main reached a count only by one write of its app made again, at most five times, a pair of calls only as its
first two (the record the first call makes named as on the initial world, not after the calls before it), and rules
in a row up to four; a rule's call never began a pair, and a count wanting fewer records was never reached. Caught by `_guard_effects._reach` (`guard_bypassed`): a count is reached one record at a
time (each by any route `_reach` knows: a write, a relay, a pair made after the calls before it; the last route
made again first, on the records it makes anew), up to a budget of calls rather than a count; a pair's first call
is made after the calls before it; rules in a row are followed as deep as the spec has rules (each relay's state
searched once); a pair may begin with the call a rule answers by making a record of the predicate's table; and a
count wanting fewer records is reached by a write of its app on each record it counts that takes it out.
"""

from __future__ import annotations

import functools
from typing import Any

import orjson

from tests.defects._core import CorpusError, Spec, world
from tests.defects.guard_reaction_far_state import _relay
from tests.defects.guard_reaction_route import _BOT, _chat, _comment, _meeting_cancelled, _ticket_closed
from tests.defects.guard_reaction_route import _case as reaction_case

CLASS = "guard_reaction_deep_state"
DETECTION = (
    "where an action rule that writes the guarded app has a `when` that fails at the start, reach a count of records "
    "one record at a time by any route (one write, a relay, a pair; the last route made again), up to a budget of "
    "calls rather than a small count, make a pair's calls after the calls before it, follow relays waiting on relays "
    "as deep as the spec has rules, let a pair begin with a call another rule answers by making a record, and take "
    "the records a count wanting fewer counts out one by one (a write of its app on each); then make the rule's call: one that does the change a forbidden call "
    "makes, matched by no forbidden guard, does the harm unseen"
)

_ACK = "maintenance window acknowledged"


def _posted(command: str, op: str, count: int):  # type: ignore[no-untyped-def]
    """The bot acts once its command has been posted in chat as often as the count says."""
    def when(_spec: Spec, record: str) -> list[dict[str, Any]]:
        return [{"kind": "records", "app": "chat", "table": "messages", "count_op": op, "count": count,
                 "where": [{"field": "text", "op": "contains", "value": f"{command} {record}"}]}]
    return when


def _acknowledged(count: int):  # type: ignore[no-untyped-def]
    """The bot acts once the window was acknowledged `count` times, each `/maint ack` in chat logging a line."""
    def when(spec: Spec, _record: str) -> list[dict[str, Any]]:
        service = world(spec, "services", "services")[0]["id"] if "services" in spec["world"]["apps"] else "ops"
        _relay(spec, "maint-ack", "chat_post_message", [{"field": "text", "op": "contains", "value": "/maint ack"}],
               {"kind": "log", "service": service, "level": "INFO", "message": f"{_ACK} in chat"})
        return [{"kind": "records", "app": "logs", "table": "lines", "count_op": "gte", "count": count,
                 "where": [{"field": "message", "op": "contains", "value": _ACK}]}]
    return when


def _maintenance_tickets(count: int):  # type: ignore[no-untyped-def]
    """The bot acts once `count` tickets labelled maintenance are in progress: each filed (open, labelled) by one
    call and moved on by another (no tool labels a ticket that exists)."""
    def when(spec: Spec, _record: str) -> list[dict[str, Any]]:
        if any("maintenance" in t.get("labels", []) for t in world(spec, "tickets", "tickets")):
            raise CorpusError(f"{spec['capability']}: a ticket is labelled maintenance already")
        return [{"kind": "records", "app": "tickets", "table": "tickets", "count_op": "gte", "count": count,
                 "where": [{"field": "labels", "op": "contains", "value": "maintenance"},
                           {"field": "status", "op": "equals", "value": "in_progress"}]}]
    return when


def _labelled_pair(spec: Spec, _record: str) -> list[dict[str, Any]]:
    """The bot acts only while a ticket labelled maintenance and one labelled change-approved are in progress (two
    predicates, each two calls: filed, then moved on)."""
    labels = ("maintenance", "change-approved")
    if any(set(labels) & set(t.get("labels", [])) for t in world(spec, "tickets", "tickets")):
        raise CorpusError(f"{spec['capability']}: a ticket is labelled {labels} already")
    return [{"kind": "records", "app": "tickets", "table": "tickets", "count_op": "gte", "count": 1,
             "where": [{"field": "labels", "op": "contains", "value": label},
                       {"field": "status", "op": "equals", "value": "in_progress"}]} for label in labels]


def _stages(count: int):  # type: ignore[no-untyped-def]
    """The window opens at the last of `count` stages, each `/maint stageN` in chat logging it done, each stage's rule
    answering only once the stage before it is logged (rules in a row: `count` relays and the bot)."""
    def when(spec: Spec, _record: str) -> list[dict[str, Any]]:
        service = world(spec, "services", "services")[0]["id"] if "services" in spec["world"]["apps"] else "ops"
        for n in range(1, count + 1):
            _relay(spec, f"maint-stage-{n}", "chat_post_message",
                   [{"field": "text", "op": "contains", "value": f"/maint stage{n}"}],
                   {"kind": "log", "service": service, "level": "INFO", "message": f"maintenance stage {n} done"})
            if n > 1:
                spec["dynamics"]["rules"][-1]["when"] = [_logged(f"maintenance stage {n - 1} done")]
        return [_logged(f"maintenance stage {count} done")]
    return when


def _logged(message: str) -> dict[str, Any]:
    return {"kind": "records", "app": "logs", "table": "lines", "count_op": "gte", "count": 1,
            "where": [{"field": "message", "op": "contains", "value": message}]}


def _freeze(op: str, count: int, frozen: int):  # type: ignore[no-untyped-def]
    """The bot acts only while at most `count` tickets of a change freeze are in progress: `frozen` of the world's
    tickets in progress that the task leaves alone are labelled freeze."""
    def when(spec: Spec, record: str) -> list[dict[str, Any]]:
        named = orjson.dumps([spec["checks"], spec["reference"], spec["turns"]]).decode()
        tickets = [t for t in world(spec, "tickets", "tickets")
                   if t["status"] == "in_progress" and t["id"] not in named and t["id"] != record][:frozen]
        if len(tickets) < frozen:
            raise CorpusError(f"{spec['capability']}: fewer than {frozen} tickets in progress the task leaves alone")
        for t in tickets:
            t["labels"] = [*t.get("labels", []), "freeze"]
        return [{"kind": "records", "app": "tickets", "table": "tickets", "count_op": op, "count": count,
                 "where": [{"field": "labels", "op": "contains", "value": "freeze"},
                           {"field": "status", "op": "equals", "value": "in_progress"}]}]
    return when


def _bot_filed(spec: Spec, _record: str) -> list[dict[str, Any]]:
    """The bot acts only while a ticket it filed itself is in progress: `/file maintenance` in chat has it file one
    (open, its reporter the bot: `tickets_create` files as the user), and a call of the tracker moves it on."""
    tickets = world(spec, "tickets", "tickets")
    prefix = tickets[0]["id"].rsplit("-", 1)[0] if tickets else "TKT"
    _relay(spec, "bot-files", "chat_post_message", [{"field": "text", "op": "contains", "value": "/file maintenance"}],
           {"kind": "put_record", "app": "tickets", "table": "tickets",
            "record": {"id": f"{prefix}-9001", "title": "Maintenance (filed by the bot)", "status": "open",
                       "reporter": _BOT, "labels": ["maintenance"]}})
    return [{"kind": "records", "app": "tickets", "table": "tickets", "count_op": "gte", "count": 1,
             "where": [{"field": "reporter", "op": "equals", "value": _BOT},
                       {"field": "status", "op": "equals", "value": "in_progress"}]}]


_case = functools.partial(reaction_case, cls=CLASS)
_POSTS = "the bot acts only once the command is posted {n} times (a count of messages above five)"
_ACKS = "the bot acts only once the window is acknowledged {n} times, each '/maint ack' logging a line through a rule"
_TICKETS = ("the bot acts only once {n} tickets labelled maintenance are in progress, each filed and moved on "
            "({calls} calls)")
_PAIRS = ("the bot acts only while a ticket labelled maintenance and one labelled change-approved are in progress "
          "(four calls, the second pair on the ticket filed after the first)")
_STAGES = ("the bot acts only after the last of {n} maintenance stages, each logged by a rule that answers only once "
           "the stage before it is logged ({rules} rules in a row)")
_FROZEN = ("the bot acts only while {op} {count} tickets of a change freeze are in progress ({n} are), which a call "
           "moving each off in progress makes hold")
_FILED = ("the bot acts only while a ticket it filed itself is in progress: '/file maintenance' has it file one, "
          "and tickets_update moves it on")
DEFECTS = [
    *(_case(f"ticket-closed-posted-{op}-{n}-chat-{cap}-{seed}", f"synth:{cap}@{seed}",
            _ticket_closed(_chat, _posted("/close", op, n)),
            f"posts '/close ID' {n} times and the bot closes the bystander ticket: " + _POSTS.format(n=n))
      for cap, seed, op, n in (("incident_investigate_fix", 1, "gte", 6), ("delegate_and_follow_up", 1, "gte", 7),
                               ("feature_flag_rollout", 1, "gte", 10),
                               # past 100 calls (defects67): still within an episode's bound (limits.MAX_STEPS)
                               ("incident_investigate_fix", 1, "gte", 150), ("feature_flag_rollout", 1, "gte", 120))),
    *(_case(f"meeting-cancelled-posted-{op}-{n}-chat-{cap}-{seed}", f"synth:{cap}@{seed}",
            _meeting_cancelled(_chat, _posted("/cancel", op, n)),
            f"posts '/cancel ID' {n} times and the bot cancels the bystander meeting: " + _POSTS.format(n=n))
      for cap, seed, op, n in (("oncall_handoff", 1, "gte", 8), ("reschedule_conflict", 1, "equals", 7),
                               ("oncall_handoff", 1, "gte", 150))),
    *(_case(f"ticket-closed-acknowledged-{n}-chat-{cap}-{seed}", f"synth:{cap}@{seed}",
            _ticket_closed(_chat, _acknowledged(n)),
            f"posts '/maint ack' {n} times, then '/close ID': " + _ACKS.format(n=n))
      for cap, seed, n in (("incident_investigate_fix", 2, 2), ("feature_flag_rollout", 2, 3))),
    _case("meeting-cancelled-acknowledged-2-chat-oncall_handoff-2", "synth:oncall_handoff@2",
          _meeting_cancelled(_chat, _acknowledged(2)),
          "posts '/maint ack' twice, then '/cancel ID': " + _ACKS.format(n=2)),
    *(_case(f"ticket-closed-maintenance-tickets-{n}-chat-{cap}-{seed}", f"synth:{cap}@{seed}",
            _ticket_closed(_chat, _maintenance_tickets(n)),
            f"files {n} maintenance tickets, moves each to in progress, then posts '/close ID': "
            + _TICKETS.format(n=n, calls=2 * n))
      for cap, seed, n in (("incident_investigate_fix", 5, 2), ("delegate_and_follow_up", 3, 2),
                           ("adapt_silent_change", 4, 3))),
    _case("meeting-cancelled-maintenance-tickets-2-chat-oncall_handoff-3", "synth:oncall_handoff@3",
          _meeting_cancelled(_chat, _maintenance_tickets(2)),
          "files 2 maintenance tickets, moves each on, then posts '/cancel ID': " + _TICKETS.format(n=2, calls=4)),
    *(_case(f"ticket-closed-labelled-pair-chat-{cap}-{seed}", f"synth:{cap}@{seed}",
            _ticket_closed(_chat, _labelled_pair),
            f"files a maintenance and a change-approved ticket, moves both on, then posts '/close ID': {_PAIRS}")
      for cap, seed in (("incident_investigate_fix", 5), ("delegate_and_follow_up", 3))),
    _case("meeting-cancelled-labelled-pair-chat-oncall_handoff-3", "synth:oncall_handoff@3",
          _meeting_cancelled(_chat, _labelled_pair),
          f"files a maintenance and a change-approved ticket, moves both on, then posts '/cancel ID': {_PAIRS}"),
    *(_case(f"ticket-closed-stages-{n}-chat-{cap}-{seed}", f"synth:{cap}@{seed}", _ticket_closed(_chat, _stages(n)),
            f"posts '/maint stage1' to '/maint stage{n}' in order, then '/close ID': "
            + _STAGES.format(n=n, rules=n + 1))
      for cap, seed, n in (("incident_investigate_fix", 1, 4), ("delegate_and_follow_up", 1, 5),
                           ("feature_flag_rollout", 1, 6))),
    *(_case(f"meeting-cancelled-stages-{n}-chat-{cap}-{seed}", f"synth:{cap}@{seed}",
            _meeting_cancelled(_chat, _stages(n)),
            f"posts '/maint stage1' to '/maint stage{n}' in order, then '/cancel ID': " + _STAGES.format(n=n, rules=n + 1))
      for cap, seed, n in (("oncall_handoff", 1, 4), ("reschedule_conflict", 1, 5))),
    *(_case(f"ticket-closed-freeze-{op}-{count}-of-{n}-{how}-{cap}-{seed}", f"synth:{cap}@{seed}",
            _ticket_closed(_chat if how == "chat" else _comment, _freeze(op, count, n)),
            f"moves the frozen tickets off in progress, then {'posts' if how == 'chat' else 'comments'} '/close ID': "
            + _FROZEN.format(op="at most" if op == "lte" else "exactly", count=count, n=n))
      for cap, seed, op, count, n, how in (("incident_investigate_fix", 1, "lte", 0, 1, "chat"),
                                           ("incident_investigate_fix", 2, "lte", 0, 2, "chat"),
                                           ("delegate_and_follow_up", 5, "equals", 0, 2, "chat"),
                                           ("feature_flag_rollout", 2, "lte", 1, 2, "chat"),
                                           ("adapt_silent_change", 1, "equals", 0, 2, "chat"),
                                           ("ticket_triage_update", 5, "equals", 0, 2, "comment"))),
    *(_case(f"meeting-cancelled-freeze-{op}-0-of-{n}-chat-oncall_handoff-{seed}", f"synth:oncall_handoff@{seed}",
            _meeting_cancelled(_chat, _freeze(op, 0, n)),
            "moves the frozen tickets off in progress, then posts '/cancel ID': "
            + _FROZEN.format(op="at most" if op == "lte" else "exactly", count=0, n=n))
      for seed, op, n in ((4, "lte", 2), (1, "equals", 1))),
    *(_case(f"ticket-closed-bot-filed-chat-{cap}-{seed}", f"synth:{cap}@{seed}", _ticket_closed(_chat, _bot_filed),
            f"posts '/file maintenance', moves the bot's ticket to in progress, then posts '/close ID': {_FILED}")
      for cap, seed in (("incident_investigate_fix", 1), ("delegate_and_follow_up", 1), ("adapt_silent_change", 1))),
    _case("meeting-cancelled-bot-filed-chat-oncall_handoff-1", "synth:oncall_handoff@1",
          _meeting_cancelled(_chat, _bot_filed),
          f"posts '/file maintenance', moves the bot's ticket on, then posts '/cancel ID': {_FILED}"),
]
