"""Defects whose tools are the spec's own, under names that say other than the op they run.

A spec may give the agent its own tools (`tool_decls`), named as the service it imports names them: Jira's
`jira_open_issue` bound to `tickets_create`, Google Calendar's `gcal_book_event` to `calendar_create_event`, Gmail's
`gmail_create_draft` to `mail_save_draft`. A validator that tells what a write does by its tool's name reads these
wrong both ways: a declared tool that makes a record without saying `create` or `add` is never repeated, so a count
of tickets or events checked "at least one" passes the agent that files the ticket or books the meeting twice
(`duplicate_tolerant`'s defects, accepted); and a declared drafting tool named `create` is taken for one that makes
a record, so a sound spec whose agent may save a draft more than once (saving, then sending, a reply) is rejected
`duplicate_unchecked` (declared_draft_unseen's twins under Gmail's own name, a twin here). Likewise, with the mail
tools declared Gmail's way (`gmail_send_message`, `gmail_save_draft`, a comma-list `to`: not the op renamed, so no
view makes them their ops), a validator that knows the messaging tools by name never tries another route to a person
a guard on the declared send keeps out (a contact message, a shared note: `guard_bypassed`), nor sees that the
request asks for the declared reply that no check reads (`asked_message_unchecked`). Each defect is an existing
class's defect (its gate and code) with the tools declared so (the checks' and rules' matchers following); the twin
is that defect's twin, declared alike.
"""

from __future__ import annotations

from typing import Any

from coworkenv.apps import TOOLS
from tests.defects import (
    answer_read_not_written,
    asked_fact_unread,
    attempt_forbidden_by_user,
    attempt_reserved_by_user,
    created_instead,
    declared_draft_unseen,
    duplicate_tolerant,
    guard_other_channel,
)
from tests.defects._core import CorpusError, Defect, Edit, Spec
from tests.defects.declared_draft_credited import _ARGS, _decl, _declared_args, matcher_args
from tests.defects.declared_write_as_read import _call_names, _renamed, _witness, declare_as
from tests.defects.guard_phrase_respelled import _bystander_ticket
from tests.defects.guard_wrong_app import _phrase_guarded, _phrase_said

CLASS = "declared_name_misread"
DETECTION = (
    "judge what a write does by the op it runs, not by its tool's name (a declared tool counts as the op it is bound "
    "to): repeat every call of a record-making op, whatever the declared tool is called, and none of an op that "
    "makes no record; make the record anew through any tool bound to a record-making op; read the act a user forbids "
    "trying in the op's words too: a name read instead misses a duplicate made through a tool not named `create`, a "
    "copy made through a declared `tickets_open`, a refused try at a declared `mail_deliver`, and rejects a sound "
    "spec whose drafting tool is"
)

# op -> the name an imported service gives its tool (none says what the op's own name says)
NAMES = {"tickets_create": "jira_open_issue", "calendar_create_event": "gcal_book_event",
         "todo_add_task": "todoist_new_task", "mail_send": "gmail_deliver_message", "chat_send_dm": "slack_dm_person",
         "chat_post_message": "slack_say_in_channel", "tickets_comment": "jira_reply_on_issue"}


def declare_named(spec: Spec, names: dict[str, str] = NAMES) -> None:
    """Every built-in write tool the reference calls that `names` names declared under that name (the op's own
    schema and arguments), the built-in one no longer given; the reference, the checks' matchers, the dynamics rules
    and the turns follow."""
    called = {st["call"]["name"] for turn in spec["reference"] for st in turn["steps"] if st.get("call")}
    ops = sorted(n for n in called if n in names and n in spec["tools"])
    if not ops:
        raise CorpusError(f"{spec['capability']}: the reference calls none of {sorted(names)}")
    declare_as(spec, {n: names[n] for n in ops})


def _then_named(edit: Edit | None) -> Edit:
    def both(spec: Spec) -> None:
        if edit is not None:
            edit(spec)
        declare_named(spec)
    return both


def _named(module: Any, name: str) -> Defect:
    """`module`'s defect `name`, its spec and twin with their writes declared under the service's names."""
    found = next((d for d in module.DEFECTS if d.name == name), None)
    if found is None:
        raise CorpusError(f"{module.CLASS}: no defect {name!r}")
    return Defect(CLASS, f"{module.CLASS}-{name}", found.base,
                  f"{found.gets_away_with} (through {', '.join(NAMES.values())}, declared)",
                  breaks=_then_named(found.breaks), fix=_then_named(found.fix),
                  witness=_witness(found.witness, lambda n: n in NAMES.values()) if found.witness is not None else None,
                  witness_kind=found.witness_kind, gate=found.gate or "mutations", code=found.code)


def _create_draft(name: str) -> Defect:
    """declared_draft_unseen's gmail defect `name` with the saving tool called `gmail_create_draft` (Gmail's own
    name): its twin, which may save two drafts and send one, must pass."""
    found = next(d for d in declared_draft_unseen.DEFECTS if d.name == name)
    names = {"gmail_save_draft": "gmail_create_draft"}

    def named(edit: Edit | None) -> Edit:
        def both(spec: Spec) -> None:
            if edit is not None:
                edit(spec)
            for d in spec["tool_decls"]:
                d["name"] = names.get(d["name"], d["name"])
            _call_names(spec["reference"], names)
            for key in ("checks", "dynamics", "turns"):
                _renamed(spec.get(key), names)
        return both

    return Defect(CLASS, f"create-draft-{name}", found.base, f"{found.gets_away_with} (the saving tool gmail_create_draft)",
                  breaks=named(found.breaks), fix=named(found.fix), witness=found.witness, witness_kind=found.witness_kind,
                  gate=found.gate, code=found.code)


# mutations.near_miss_mutations: a record made twice tried for the tools named `create` or `add`, not by the op
# (also measured, outside the corpus for test time: customer-ticket-twice and meeting-booked-twice declared alike,
# accepted on main, rejected `duplicate_unchecked` on the branch, twins kept)
DEFECTS = [
    _named(duplicate_tolerant, "audit-task-twice"),
    _named(duplicate_tolerant, "review-ticket-twice"),
    # the same piece the other way: a declared `gmail_create_draft` (bound to mail_save_draft) taken for a record
    # made, so the twin (which may save a draft twice and send one) was rejected `duplicate_unchecked` on main (also
    # measured: the mail_ticket_chat_coordination 2 case, the same on main and on the branch)
    _create_draft("gmail-first-version-sent-report-from-data-2"),
]


_GMAIL = {"mail_send": "gmail_send_message", "mail_save_draft": "gmail_save_draft"}


def _gmail_matchers(node: Any) -> None:
    """Every call matcher in `node` on `mail_send` or `mail_save_draft` moved to the declared gmail tool (its arguments
    as the declared tool takes them: a comma-list `to`; its `where` fields renamed)."""
    if isinstance(node, dict):
        if node.get("tool") in _GMAIL:
            node["tool"] = _GMAIL[node["tool"]]
            for cond in node.get("where") or []:
                if cond["field"] in ("to", "cc"):
                    raise CorpusError(f"a condition on {cond['field']} of a comma list")
                cond["field"] = {v: k for k, v in _ARGS.items()}[cond["field"]]
            if node.get("args"):  # recipients by `contains` on the comma list (its exact text misses a batch)
                matcher_args(node, split=True)
        for value in node.values():
            _gmail_matchers(value)
    elif isinstance(node, list):
        for value in node:
            _gmail_matchers(value)


def _gmail_send(edit: Edit | None) -> Edit:
    """`edit`, then `mail_send` and `mail_save_draft` declared as Gmail's `gmail_send_message` and `gmail_save_draft`
    (a comma-list `to`), the built-in ones no longer given; the reference, the checks, the dynamics rules and the
    turns follow."""
    def both(spec: Spec) -> None:
        if edit is not None:
            edit(spec)
        given = [op for op in _GMAIL if op in spec["tools"]]
        if "mail_send" not in given:
            raise CorpusError(f"{spec['capability']}: no mail_send given")
        for op in given:
            spec["tools"].remove(op)
            spec.setdefault("tool_decls", []).append(_decl(_GMAIL[op], op, split=True))
        for turn in spec["reference"]:
            for st in turn["steps"]:
                if st.get("call") and st["call"]["name"] in given:
                    st["call"]["name"] = _GMAIL[st["call"]["name"]]
                    st["call"]["arguments"] = _declared_args(st["call"]["arguments"], split=True)
        for key in ("checks", "dynamics", "turns"):
            _gmail_matchers(spec.get(key))
    return both


def _gmail(module: Any, name: str) -> Defect:
    """`module`'s defect `name` with the mail tools declared Gmail's way."""
    found = next(d for d in module.DEFECTS if d.name == name)
    return Defect(CLASS, f"gmail-{name}", found.base, f"{found.gets_away_with} (mail sent and drafted through "
                  "gmail_send_message and gmail_save_draft, declared with a comma-list `to`)", breaks=_gmail_send(found.breaks), fix=_gmail_send(found.fix),
                  gate=found.gate, code=found.code)


# _guard_evasions: the other routes to a person (a shared note, a contact message) tried for guards on the built-in
# messaging tools by name only, a declared one skipped (also measured, outside the corpus: contact seeds 1 and 2,
# accepted on main, rejected on the branch, twins kept)
DEFECTS += [_gmail(guard_other_channel, "namesake-messaged-on-contact-3"), _gmail(guard_other_channel, "namesake-shared-a-note")]
# _asked_messages.asked_recipient: a reply the request asks for known by the built-in messaging tools' names (the
# matchers view makes a declared one its op only where it is the op renamed; Gmail's comma-list `to` is not) (also
# measured, outside the corpus: read-for-answer-2 and -3, accepted on main, rejected on the branch, twins kept)
DEFECTS += [_gmail(answer_read_not_written, "inbox_triage_reply-read-for-answer-1")]
# _asked_facts._written_instants: the times the reference's writes pass found for built-in writes only, so the time
# a declared `gcal_book_event` booked was never left out of the answer asked for it
DEFECTS += [_named(asked_fact_unread, "booking-time-unread-1")]


# Verbs as imported services say them: none of these is the word the op's own name uses.
_VERBS = {"create": "open", "add": "new", "delete": "drop", "cancel": "call_off", "remove": "drop", "send": "deliver",
          "post": "say", "save": "keep", "submit": "file", "publish": "release", "notify": "alert", "export": "dump",
          "share": "give"}
_SERVICE = "svc_"


def service_name(op: str) -> str:
    """The op under a service's name with its verb said another way (`tickets_create` -> `svc_tickets_open`)."""
    return _SERVICE + "_".join(_VERBS.get(w, w) for w in op.split("_"))


def _then_serviced(edit: Edit | None) -> Edit:
    """`edit`, then every built-in write tool the agent is given declared under its `service_name` (the op's own
    schema and arguments), the built-in one no longer given; the reference, the checks, the dynamics rules and the
    turns follow."""
    def both(spec: Spec) -> None:
        if edit is not None:
            edit(spec)
        writes = {n: service_name(n) for n in spec["tools"] if n in TOOLS and TOOLS[n].kind == "write"}
        if not writes:
            raise CorpusError(f"{spec['capability']}: no built-in write tool given")
        declare_as(spec, writes)
    return both


def _serviced(module: Any, name: str) -> Defect:
    """`module`'s defect `name`, its spec and twin with every write tool given declared under its service name."""
    found = next((d for d in module.DEFECTS if d.name == name), None)
    if found is None:
        raise CorpusError(f"{module.CLASS}: no defect {name!r}")
    return Defect(CLASS, f"{module.CLASS}-{name}", found.base,
                  f"{found.gets_away_with} (every write tool declared under a service's verb: tickets_open, "
                  "mail_deliver, ...)", breaks=_then_serviced(found.breaks), fix=_then_serviced(found.fix),
                  witness=_witness(found.witness, lambda n: n.startswith(_SERVICE)) if found.witness is not None
                  else None, witness_kind=found.witness_kind, gate=found.gate or "mutations", code=found.code)


# _created_instead: the creating tools found by a name saying `create` or `add`, so a ticket, a contact or a meeting
# made anew through a declared `svc_tickets_open` (`svc_contacts_open`, `svc_calendar_open_event`) in place of the
# update was never tried; _attempt_words.forbidden_attempts: the act a user forbids even trying read in the guarded
# tool's name only, so "don't even try to send it" never named a declared `svc_mail_deliver`
DEFECTS += [_serviced(created_instead, "ticket-triaged-1-1"), _serviced(created_instead, "contact-phone-1"),
            _serviced(created_instead, "meeting-moved-1"),
            _serviced(attempt_forbidden_by_user, "send-tried-draft_only_reply-1"),
            _serviced(attempt_reserved_by_user, "leave-sending-draft_only_reply-1")]


def _gmail_phrase(base: str) -> Defect:
    """guard_wrong_app's phrase defect with the guard on the mail, the mail tools declared Gmail's way: the ticket kept
    out of `gmail_send_message` (and its draft), said in the reference's channel post; the twin keeps it out of every
    kind of message the reference sends."""
    return Defect(CLASS, f"gmail-phrase-kept-out-of-mail-{base.split(':')[1].replace('@', '-')}", base,
                  "says the ticket it must not send in the task's own channel post: the guard keeps it out of the "
                  "declared gmail_send_message only", breaks=_gmail_send(_phrase_guarded("mail_send", _bystander_ticket, False)),
                  fix=_gmail_send(_phrase_guarded("mail_send", _bystander_ticket, True)), witness=_phrase_said,
                  gate="mutations", code="harm_unguarded")


# task_mutations._said_elsewhere: a phrase guard known by the built-in messaging tool's name, so one on a declared
# gmail_send_message (not its op renamed: no view makes it mail_send) never had its phrase said in the reference's other
# messages; and the draft route of a declared send (_guard_routes._drafted) found no text for a `matches` condition
# on a declared argument (its annotation is Any, not str), so it saved an empty draft no guard matched and the twin,
# its draft guarded too, was rejected `guard_bypassed`
DEFECTS += [_gmail_phrase("synth:mail_ticket_chat_coordination@1"), _gmail_phrase("synth:incident_investigate_fix@1")]
