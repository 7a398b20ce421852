"""Routed answers unchecked: a colleague (or a customer) asked the user for a fact in their DM or by mail, and the task
answers by another route than a message: a comment on the ticket the asker opened, a file, a note, the description of
an invite to the asker. The check on what was written reads only what the question was about (the customer, the
service), not the answer: a wrong answer passes.

Until defects133 the "without its facts" near miss of an answer (`_answered_questions`) was made only for a message
(a DM, a post, a new mail or draft): a comment, a file's content, a note's body or an event's description got only
"Done." in place of the text, which the check on the question's words already fails, so a spec whose check reads no
fact of the answer was accepted."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime, timedelta
from typing import Any

import orjson

from tests.defects._core import CorpusError, Defect, Edit, Spec, call
from tests.defects.unphrased_request_unchecked import _posted_for_dm
from tests.defects.unthreaded_answer_unchecked import _ABOUT, _answer, _message, _question_words, _wrong_answer

CLASS = "routed_answer_unchecked"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "where a write that is no message (a ticket comment, a file, a note, an event's description) states facts the "
    "world holds that the requests of the people it is for (or of anyone, where it is for nobody) do not, leave its "
    "facts out; if every check still passes the write, the answer is unchecked"
)

_TICKET = "TCK-4242"
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _asker(spec: Spec, args: dict[str, Any]) -> tuple[str, str, str]:
    """(reference, address, name) of the person the reference's message goes to: a directory person (their id) or a
    mail address the directory does not hold (a customer)."""
    ref = str(args.get("person") or (args.get("to") or [""])[0])
    for p in spec["world"]["apps"]["directory"]["people"]:
        if ref in (p["id"], p["email"], p.get("chat_handle"), "@" + str(p.get("chat_handle"))):
            return p["id"], p["email"], p["name"]
    if "@" not in ref:
        raise CorpusError(f"{spec['capability']}: the message goes to nobody the directory or a mail names: {ref!r}")
    return ref, ref, ref.split("@")[0].replace(".", " ").title()


def _other(spec: Spec, person: str) -> str:
    """A person of the directory who is neither `person` nor the user."""
    return next(p["id"] for p in spec["world"]["apps"]["directory"]["people"] if p["id"] not in (person, spec["user"]))


def _start(spec: Spec) -> datetime:
    return datetime.fromisoformat(spec["world"]["start"].replace("Z", "+00:00"))


def _route(how: str, checked: bool, worked: bool = False) -> Edit:
    """The reference's answering message written as `how` (comment, file, note, event, todo) instead; the records
    check on the message becomes one on that record, reading the answer (`checked`) or only what was asked about; the
    frames allow the record; the first turn asks for that route. `worked`: the asker works the ticket (its assignee),
    someone else reported it."""
    def edit(spec: Spec) -> None:
        tool, _arg, said, cond = _message(spec)
        found = call(spec, tool)
        person, email, name = _asker(spec, found["arguments"])
        about = next((m.group(1) for p in _ABOUT if (m := p.search(said))), None)
        if about is None or _answer(said, cond) is None:
            raise CorpusError(f"{spec['capability']}: the reference's message does not say what it answers about")
        value = str(cond["value"]) if checked else about
        pattern = re.escape(value) if cond["op"] == "contains" or not checked else str(value)
        first = name.split()[0]
        slug = re.sub(r"[^a-z0-9]+", "-", about.lower()).strip("-")
        apps = spec["world"]["apps"]
        allowed: dict[str, Any]
        if how == "comment":
            apps["tickets"]["tickets"].append({
                "id": _TICKET, "title": f"Question from {first}", "description": f"{first} is waiting on an answer.",
                "status": "open", "priority": "p3", "assignee": person if worked else spec["user"],
                "reporter": _other(spec, person) if worked else person, "service": None,
                "labels": [], "comments": [], "created_at": spec["world"]["start"],
                "updated_at": spec["world"]["start"]})
            found.update(name="tickets_comment", arguments={"ticket_id": _TICKET, "body": said})
            rule = {"kind": "records", "app": "tickets", "table": "tickets", "count_op": "gte", "count": 1,
                    "partial": False, "where": [{"field": "id", "op": "equals", "value": _TICKET},
                                                {"field": "comments", "op": "matches", "value": pattern}]}
            allowed = {"app": "tickets", "table": "tickets", "id": _TICKET, "fields": ["comments", "updated_at"],
                       "where": []}
            asked, tools = f"answer {first} with a comment on their ticket {_TICKET}", ["tickets_comment"]
        elif how == "file":
            path = f"answers/{slug}.md"
            found.update(name="files_write_file", arguments={"path": path, "content": said})
            rule = {"kind": "records", "app": "files", "table": "files", "count_op": "gte", "count": 1,
                    "partial": False, "where": [{"field": "id", "op": "equals", "value": path},
                                                {"field": "content", "op": "matches", "value": pattern}]}
            allowed = {"app": "files", "table": "files", "id": path, "fields": None, "where": []}
            asked, tools = f"write the answer for {first} to the file {path}", ["files_write_file"]
        elif how == "note":
            title = f"Answer for {first}"
            found.update(name="notes_create_note", arguments={"title": title, "body": said})
            rule = {"kind": "records", "app": "notes", "table": "notes", "count_op": "equals", "count": 1,
                    "partial": False, "where": [{"field": "title", "op": "equals", "value": title},
                                                {"field": "body", "op": "matches", "value": pattern}]}
            allowed = {"app": "notes", "table": "notes", "id": None, "fields": None,
                       "where": [{"field": "title", "op": "equals", "value": title}]}
            asked, tools = f"put the answer for {first} in a note titled '{title}'", ["notes_create_note"]
        elif how == "event":
            title = f"Follow-up with {first}"
            day = (_start(spec) + timedelta(days=1)).date().isoformat()
            found.update(name="calendar_create_event", arguments={
                "title": title, "start": f"{day}T10:00:00+00:00", "end": f"{day}T10:30:00+00:00",
                "attendees": [email], "description": said})
            rule = {"kind": "records", "app": "calendar", "table": "events", "count_op": "equals", "count": 1,
                    "partial": False, "where": [{"field": "title", "op": "equals", "value": title},
                                                {"field": "start", "op": "matches", "value": rf"^{day}T10:00:00(?:Z|\+00:00)$"},
                                                {"field": "end", "op": "matches", "value": rf"^{day}T10:30:00(?:Z|\+00:00)$"},
                                                {"field": "attendees", "op": "contains", "value": email},
                                                {"field": "description", "op": "matches", "value": pattern}]}
            allowed = {"app": "calendar", "table": "events", "id": None, "fields": None,
                       "where": [{"field": "title", "op": "equals", "value": title}]}
            asked = (f"invite {first} to a 30-minute '{title}' tomorrow at 10:00 UTC with the answer in the invite's "
                     "description")
            tools = ["calendar_create_event"]
        elif how == "todo":
            title = f"Answer {first}"
            apps["todo"]["lists"].append({"id": "l-follow-ups", "name": "Follow-ups", "owner": spec["user"]})
            found.update(name="todo_add_task", arguments={"list_id": "l-follow-ups", "title": title, "notes": said})
            rule = {"kind": "records", "app": "todo", "table": "tasks", "count_op": "equals", "count": 1,
                    "partial": False, "where": [{"field": "title", "op": "equals", "value": title},
                                                {"field": "list_id", "op": "equals", "value": "l-follow-ups"},
                                                {"field": "notes", "op": "matches", "value": pattern}]}
            allowed = {"app": "todo", "table": "tasks", "id": None, "fields": None,
                       "where": [{"field": "title", "op": "equals", "value": title}]}
            asked = f"add a to-do '{title}' to my Follow-ups list with the answer in its notes"
            tools = ["todo_add_task"]
        else:
            raise CorpusError(f"no route {how!r}")
        replaced = 0
        for c in spec["checks"]:
            if c["rule"]["kind"] == "records" and cond in c["rule"]["where"]:
                c["rule"] = rule
                replaced += 1
            elif c["rule"]["kind"] == "frame":
                c["rule"]["allow"].append(allowed)
        if replaced != 1:
            raise CorpusError(f"{spec['capability']}: {replaced} records checks read the answer")
        if spec.get("tools") is not None:
            spec["tools"] += [t for t in tools if t not in spec["tools"]]
        turn = spec["turns"][0]
        turn["content"] = re.sub(r"\breply in our DM\b", "answer", turn["content"]) + \
            f" No mail or chat message this time: {asked}."
    return edit


def _wrong(how: str) -> Any:
    """The witness: the routed write with its answer wrong (a date a day later, else its last digit one up)."""
    tools = {"comment": ("tickets_comment", "body"), "file": ("files_write_file", "content"),
             "note": ("notes_create_note", "body"), "event": ("calendar_create_event", "description"),
             "todo": ("todo_add_task", "notes")}

    def witness(spec: Spec) -> list[dict[str, Any]]:
        name, arg = tools[how]
        found = call(spec, name)
        said = str(found["arguments"][arg])
        right = next((m.group(1) for p in (re.compile(r" is (\S+?)[ .,(]"), re.compile(r"=(\S+?)[ .,(]"))
                      if (m := p.search(said + " "))), "")
        if _ISO.match(right):
            wrong = (date.fromisoformat(right) + timedelta(days=1)).isoformat()
        elif any(ch.isdigit() for ch in right):
            last = max(i for i, ch in enumerate(right) if ch.isdigit())
            wrong = right[:last] + str((int(right[last]) + 1) % 10) + right[last + 1:]
        else:
            raise CorpusError(f"{spec['capability']}: no answer in {said!r}")
        out: list[dict[str, Any]] = orjson.loads(orjson.dumps(spec["reference"]))
        for turn in out:
            for step in turn["steps"]:
                if step.get("call") and step["call"]["name"] == name:
                    step["call"]["arguments"][arg] = said.replace(right, wrong)
        return out
    return witness


def _routed(how: str, base: str) -> Defect:
    where = {"comment": "a comment on the asker's ticket", "file": "a file", "note": "a note",
             "event": "an invite's description", "todo": "a to-do's notes"}[how]
    return Defect(CLASS, f"{how}-{base.split(':')[1].replace('@', '-').replace('_', '-')}", base,
                  f"answers a colleague's request for a fact with a wrong answer in {where}: the check on it reads "
                  "only what was asked about", breaks=_route(how, checked=False), fix=_route(how, checked=True),
                  witness=_wrong(how), gate="mutations", code="content_unchecked")


DEFECTS = [
    Defect(CLASS, "comment-assignee-lookup-answer-source-3", "synth:lookup_answer_source@3",
           "answers a colleague's request for a fact with a wrong answer in a comment on the ticket they work (someone "
           "else reported it): the check on it reads only what was asked about",
           breaks=_route("comment", checked=False, worked=True), fix=_route("comment", checked=True, worked=True),
           witness=_wrong("comment"), gate="mutations", code="content_unchecked"),
    _routed("comment", "synth:lookup_answer_source@1"),
    _routed("comment", "synth:inbox_triage_reply@1"),
    _routed("comment", "synth:draft_only_reply@2"),
    _routed("file", "synth:lookup_answer_source@1"),
    _routed("file", "synth:inbox_triage_reply@2"),
    _routed("file", "synth:draft_only_reply@1"),
    _routed("note", "synth:lookup_answer_source@13"),
    _routed("note", "synth:inbox_triage_reply@2"),
    _routed("event", "synth:lookup_answer_source@3"),
    _routed("event", "synth:inbox_triage_reply@1"),
    _routed("todo", "synth:inbox_triage_reply@1"),
    _routed("todo", "synth:draft_only_reply@2"),
]


def _asked_in_ticket(spec: Spec) -> None:
    """The colleague asked in a ticket they opened, not in their DM: the DM's question becomes the ticket's
    description, the reference reads the ticket where it read the DM, the turn names the ticket; the answer is still
    the DM (defects133: a DM's requests were only the recipient's messages)."""
    _moved_to_ticket(spec, call(spec, "chat_send_dm")["arguments"]["person"])


def _moved_to_ticket(spec: Spec, person: str) -> None:
    """`person`'s DM question moved to the description of a ticket they reported (see `_asked_in_ticket`)."""
    chat = spec["world"]["apps"]["chat"]
    asked = [m for m in chat["messages"] if m["channel"].startswith("dm-") and m["sender"] == person]
    if len(asked) != 1:
        raise CorpusError(f"{spec['capability']}: {len(asked)} DMs from {person}")
    chat["messages"].remove(asked[0])
    spec["world"]["apps"]["tickets"]["tickets"].append({
        "id": _TICKET, "title": "Question about a production setting", "description": asked[0]["text"],
        "status": "open", "priority": "p3", "assignee": spec["user"], "reporter": person, "service": None,
        "labels": [], "comments": [], "created_at": asked[0]["ts"], "updated_at": asked[0]["ts"]})
    read = call(spec, "chat_read_channel", channel=asked[0]["channel"])
    read.update(name="tickets_get", arguments={"ticket_id": _TICKET})
    if spec.get("tools") is not None and "tickets_get" not in spec["tools"]:
        spec["tools"].append("tickets_get")
    turn = spec["turns"][0]
    turn["content"], n = re.subn(r"\bon chat\b", f"in ticket {_TICKET}", turn["content"], count=1)
    if not n:
        raise CorpusError(f"{spec['capability']}: the turn does not say where the question was asked")


def _ticket_question_words(spec: Spec) -> None:
    _asked_in_ticket(spec)
    _question_words(spec)


DEFECTS += [
    Defect(CLASS, f"asked-in-ticket-dm-{seed}", f"synth:lookup_answer_source@{seed}",
           "tells a colleague who asked in a ticket a wrong answer in their DM: the DM check reads only what was "
           "asked about", breaks=_ticket_question_words, fix=_asked_in_ticket, witness=_wrong_answer,
           gate="mutations", code="content_unchecked") for seed in (1, 13)
]


def _asked_in_invite(spec: Spec) -> None:
    """The colleague asked in the description of an invite they sent the user, not in their DM (the DM's question
    moved there); the reference reads the calendar where it read the DM; the answer is still the DM (defects133: a
    DM's requests were only the recipient's messages)."""
    _moved_to_invite(spec, call(spec, "chat_send_dm")["arguments"]["person"])


def _moved_to_invite(spec: Spec, person: str) -> None:
    """`person`'s DM question moved to the description of an invite they sent the user (see `_asked_in_invite`)."""
    chat = spec["world"]["apps"]["chat"]
    asked = [m for m in chat["messages"] if m["channel"].startswith("dm-") and m["sender"] == person]
    if len(asked) != 1:
        raise CorpusError(f"{spec['capability']}: {len(asked)} DMs from {person}")
    chat["messages"].remove(asked[0])
    people = {p["id"]: p for p in spec["world"]["apps"]["directory"]["people"]}
    day = (_start(spec) + timedelta(days=1)).date().isoformat()
    spec["world"]["apps"]["calendar"]["events"].append({
        "id": "evt-4242", "title": "Pricing sync", "start": f"{day}T09:00:00Z", "end": f"{day}T09:30:00Z",
        "timezone": "UTC", "organizer": people[person]["email"],
        "attendees": [people[person]["email"], people[spec["user"]]["email"]], "location": "",
        "description": asked[0]["text"], "status": "confirmed"})
    read = call(spec, "chat_read_channel", channel=asked[0]["channel"])
    read.update(name="calendar_list_events", arguments={"start": f"{day}T00:00:00+00:00", "end": f"{day}T23:59:00+00:00"})
    if spec.get("tools") is not None and "calendar_list_events" not in spec["tools"]:
        spec["tools"].append("calendar_list_events")
    turn = spec["turns"][0]
    turn["content"], n = re.subn(r"\bon chat\b", "in the invite to tomorrow's Pricing sync", turn["content"], count=1)
    if not n:
        raise CorpusError(f"{spec['capability']}: the turn does not say where the question was asked")


def _invite_question_words(spec: Spec) -> None:
    _asked_in_invite(spec)
    _question_words(spec)


DEFECTS += [
    Defect(CLASS, f"asked-in-invite-dm-{seed}", f"synth:lookup_answer_source@{seed}",
           "tells a colleague who asked in an invite's description a wrong answer in their DM: the DM check reads "
           "only what was asked about", breaks=_invite_question_words, fix=_asked_in_invite, witness=_wrong_answer,
           gate="mutations", code="content_unchecked") for seed in (3,)
]


def _posted_for(where: Callable[[Spec, str], None]) -> Edit:
    """The colleague asked by another route (`where`: a ticket they reported, an invite they sent), and the task
    answers in a team channel both are in: the reference's DM becomes a post there (`_posted_for_dm`), then the DM's
    question moves to that route (defects137: a post's requests were only the channel's messages and its members'
    DMs, not what they asked by ticket or invite)."""
    def edit(spec: Spec) -> None:
        person = call(spec, "chat_send_dm")["arguments"]["person"]
        _posted_for_dm(spec)
        where(spec, person)
    return edit


def _posted(name: str, seed: int, where: Callable[[Spec, str], None], asked: str) -> Defect:
    def breaks(spec: Spec) -> None:
        _posted_for(where)(spec)
        _question_words(spec)
    return Defect(CLASS, name, f"synth:lookup_answer_source@{seed}",
                  f"answers a colleague's question asked in {asked} by a post in a team channel they are in, stating "
                  "a wrong answer: the post check reads only what was asked about", breaks=breaks,
                  fix=_posted_for(where), witness=_wrong_answer, gate="mutations", code="content_unchecked")


DEFECTS += [
    _posted("asked-in-ticket-post-3", 3, _moved_to_ticket, "a ticket they reported"),
    _posted("asked-in-ticket-post-13", 13, _moved_to_ticket, "a ticket they reported"),
    _posted("asked-in-invite-post-3", 3, _moved_to_invite, "an invite's description"),
]


def _routed_for(how: str, checked: bool, where: Callable[[Spec, str], None]) -> Edit:
    """The colleague asked by ticket or invite (`where`), and the task answers by a write for nobody (`how`: a file,
    a note): defects137, such a write's requests were only DMs and mails."""
    def edit(spec: Spec) -> None:
        person = call(spec, "chat_send_dm")["arguments"]["person"]
        _route(how, checked)(spec)
        where(spec, person)
    return edit


DEFECTS += [
    Defect(CLASS, f"asked-in-{asked}-{how}-{seed}", f"synth:lookup_answer_source@{seed}",
           f"answers a colleague's question asked in {where} with a wrong answer in a {how}: the check on it reads "
           "only what was asked about", breaks=_routed_for(how, False, moved), fix=_routed_for(how, True, moved),
           witness=_wrong(how), gate="mutations", code="content_unchecked")
    for asked, where, moved, how, seed in (
        ("ticket", "a ticket they reported", _moved_to_ticket, "file", 1),
        ("ticket", "a ticket they reported", _moved_to_ticket, "note", 13),
        ("invite", "an invite's description", _moved_to_invite, "file", 3),
    )
]


def _asked_by_rule(how: str, checked: bool) -> Edit:
    """The colleague's DM question is not in the world from the start: a world rule puts it in their DM with the
    user as the task makes its first call (it arrives mid-turn), and the task answers by a write that is no message
    (`how`: a file, a note, a to-do). Until defects142 such a write's requests were the world's first messages and
    those the turns' changes put, judged by turn, so a question a world rule adds during the run was never read."""
    def edit(spec: Spec) -> None:
        person = call(spec, "chat_send_dm")["arguments"]["person"]
        chat = spec["world"]["apps"]["chat"]
        asked = [m for m in chat["messages"] if m["channel"].startswith("dm-") and m["sender"] == person]
        if len(asked) != 1:
            raise CorpusError(f"{spec['capability']}: {len(asked)} DMs from {person}")
        _route(how, checked)(spec)
        chat["messages"].remove(asked[0])
        first = next(step["call"]["name"] for turn in spec["reference"] for step in turn["steps"] if step.get("call"))
        spec["dynamics"]["rules"].append({
            "id": "question-arrives", "on": {"kind": "action", "call": {"tool": first}},
            "effects": [{"kind": "put_record", "app": "chat", "table": "messages",
                         "record": {**asked[0], "ts": "$now"}}]})
        for c in spec["checks"]:  # the question the world puts there is no change of the task's
            if c["rule"]["kind"] == "frame":
                c["rule"]["allow"].append({"app": "chat", "table": "messages", "where": [
                    {"field": "channel", "op": "equals", "value": asked[0]["channel"]},
                    {"field": "sender", "op": "equals", "value": person}]})
        turn = spec["turns"][0]
        turn["content"], n = re.subn(r"\basked me\b", "is asking me", turn["content"], count=1)
        if not n:
            raise CorpusError(f"{spec['capability']}: the turn does not say who asked")
    return edit


DEFECTS += [
    Defect(CLASS, f"asked-by-rule-{how}-{seed}", f"synth:lookup_answer_source@{seed}",
           f"answers a colleague's question that a world rule puts in their DM mid-turn with a wrong answer in a "
           f"{how}: the check on it reads only what was asked about", breaks=_asked_by_rule(how, False),
           fix=_asked_by_rule(how, True), witness=_wrong(how), gate="mutations", code="content_unchecked")
    for how, seed in (("file", 1), ("note", 13), ("comment", 3))
]


def _asked_in_file(spec: Spec) -> None:
    """The colleague asked in a file of theirs on the shared drive, not in their DM: the DM's question becomes the
    content of a file they own, the reference reads the file where it read the DM, the turn names the file; the answer
    is still the DM (until defects142 a DM's requests were the recipient's messages, tickets and invites, not files)."""
    person = call(spec, "chat_send_dm")["arguments"]["person"]
    chat = spec["world"]["apps"]["chat"]
    asked = [m for m in chat["messages"] if m["channel"].startswith("dm-") and m["sender"] == person]
    if len(asked) != 1:
        raise CorpusError(f"{spec['capability']}: {len(asked)} DMs from {person}")
    chat["messages"].remove(asked[0])
    path = f"shared/questions/{person.removeprefix('u-')}.md"
    spec["world"]["apps"]["files"]["files"].append({
        "id": path, "kind": "markdown", "content": f"# Open questions\n\n- {asked[0]['text']}\n", "owner": person,
        "modified_at": asked[0]["ts"]})
    read = call(spec, "chat_read_channel", channel=asked[0]["channel"])
    read.update(name="files_read_file", arguments={"path": path})
    if spec.get("tools") is not None and "files_read_file" not in spec["tools"]:
        spec["tools"].append("files_read_file")
    turn = spec["turns"][0]
    turn["content"], n = re.subn(r"\bon chat\b", f"in {path}", turn["content"], count=1)
    if not n:
        raise CorpusError(f"{spec['capability']}: the turn does not say where the question was asked")


def _file_question_words(spec: Spec) -> None:
    _asked_in_file(spec)
    _question_words(spec)


DEFECTS += [
    Defect(CLASS, f"asked-in-file-dm-{seed}", f"synth:lookup_answer_source@{seed}",
           "tells a colleague who asked in a file of theirs a wrong answer in their DM: the DM check reads only what "
           "was asked about", breaks=_file_question_words, fix=_asked_in_file, witness=_wrong_answer,
           gate="mutations", code="content_unchecked") for seed in (1, 13)
]
