"""Order unasked: a check pins the order in which the reference happened to do two independent writes (two
transfers, a to-do then a mail label, a reply then a channel post) though the task never orders them, so an honest
agent that does them the other way round ends in the same state and fails. The twin asks for that order."""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, calls

CLASS = "order_unasked"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "replay the reference with two independent writes of a turn (no dependency, different records, the later not "
    "a report of the earlier) the other way round; if only order-sensitive checks (order rules, Python checks on "
    "the audit) fail while the turn states no order, the check pins an order the task does not ask for"
)


def _matcher(call: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {"tool": call["name"], "args": {k: call["arguments"][k] for k in keys if k in call["arguments"]}}


def _nth(spec: Spec, tool: str, n: int) -> dict[str, Any]:
    found = list(calls(spec, tool))
    if len(found) <= n:
        raise CorpusError(f"{spec['capability']}: the reference calls {tool} fewer than {n + 1} times")
    return found[n][2]


def _pin(first: tuple[str, int, tuple[str, ...]], then: tuple[str, int, tuple[str, ...]], check_id: str,
         description: str):  # type: ignore[no-untyped-def]
    """An order check on the reference's n-th call of one tool before its m-th call of another."""

    def edit(spec: Spec) -> None:
        a, b = _nth(spec, first[0], first[1]), _nth(spec, then[0], then[1])
        spec["checks"].append({"id": check_id, "description": description, "rule": {
            "kind": "order", "first": _matcher(a, first[2]), "then": _matcher(b, then[2])}})
    return edit


def _asked(words: str, edit):  # type: ignore[no-untyped-def]
    """The twin: the same order check, and the first user turn asks for that order."""

    def fix(spec: Spec) -> None:
        edit(spec)
        spec["turns"][0]["content"] += " " + words
    return fix


def _audit_order(first_tool: str, then_tool: str, check_id: str):  # type: ignore[no-untyped-def]
    """A Python check that every `first_tool` call precedes every `then_tool` call in the audit."""
    code = (
        "def check(state, audit, messages):\n"
        f"    firsts = [i for i, a in enumerate(audit) if a['tool'] == {first_tool!r} and a['ok']]\n"
        f"    thens = [i for i, a in enumerate(audit) if a['tool'] == {then_tool!r} and a['ok']]\n"
        "    return bool(firsts) and bool(thens) and max(firsts) < min(thens)\n"
    )

    def edit(spec: Spec) -> None:
        spec["checks"].append({"id": check_id, "description": f"{first_tool} calls come before {then_tool}",
                               "rule": {"kind": "python", "code": code, "entrypoint": "check", "apps": []}})
    return edit


def _audit_order_by_prefix(first_prefix: str, then_suffix: str, check_id: str):  # type: ignore[no-untyped-def]
    """A Python check on the audit that names its tools by prefix and suffix, never by their full names (a search
    for the tool's name in the code's text does not find them)."""
    code = (
        "def check(state, audit, messages):\n"
        "    # filed before anything is labelled\n"
        f"    firsts = [i for i, a in enumerate(audit) if a['tool'].startswith({first_prefix!r}) and a['ok']]\n"
        f"    thens = [i for i, a in enumerate(audit) if a['tool'].endswith({then_suffix!r}) and a['ok']]\n"
        "    return bool(firsts) and bool(thens) and max(firsts) < min(thens)\n"
    )

    def edit(spec: Spec) -> None:
        spec["checks"].append({"id": check_id, "description": "tasks are filed before the mails are labelled",
                               "rule": {"kind": "python", "code": code, "entrypoint": "check", "apps": []}})
    return edit


def _defect(name: str, base: str, edit, words: str, gets_away_with: str) -> Defect:  # type: ignore[no-untyped-def]
    return Defect(CLASS, name, base, gets_away_with, breaks=edit, fix=_asked(words, edit), gate="mutations",
                  code="order_unasked")


_TRANSFERS = _pin(("inventory_transfer", 0, ("item_id",)), ("inventory_transfer", 1, ("item_id",)),
                  "first-item-first", "the first low item was transferred before the second")
_TASK_THEN_LABEL = _pin(("todo_add_task", 0, ("list_id",)), ("mail_label", 0, ()), "task-before-label",
                        "a task was filed before the mails were labelled")
_REPLY_THEN_POST = _pin(("mail_send", 0, ("in_reply_to",)), ("chat_post_message", 0, ()),
                        "reply-before-post", "Astrid got her reply before the team channel heard of the ticket")
_MOVES = _pin(("mail_move", 0, ("message_id",)), ("mail_move", 1, ("message_id",)), "moves-in-inbox-order",
              "the newsletters were filed in inbox order")


DEFECTS = [
    _defect("transfer-order-copied", "synth:inventory_restock_policy@1", _TRANSFERS,
            "Do the transfers one at a time, in the order the low-stock search lists them.",
            "is failed for restocking the second low item before the first, though the shelf ends the same"),
    _defect("task-before-label", "synth:todo_track_mail_requests@1", _TASK_THEN_LABEL,
            "Label a mail only once its task exists.",
            "is failed for labelling the mails before filing their tasks, though nothing asks for that order"),
    _defect("reply-before-post", "synth:mail_ticket_chat_coordination@2", _REPLY_THEN_POST,
            "Answer Astrid before you post anything in the channel.",
            "is failed for posting the ticket id in the channel before replying to the reporter"),
    _defect("audit-task-before-label", "synth:todo_track_mail_requests@3",
            _audit_order("todo_add_task", "mail_label", "tasks-then-labels"),
            "Label the mails only after every task is filed.",
            "is failed (by a Python check on the audit) for labelling the mails before filing their tasks"),
    _defect("transfer-order-copied-2", "synth:inventory_restock_policy@3", _TRANSFERS,
            "Do the transfers one at a time, in the order the low-stock search lists them.",
            "is failed for restocking the items in another order than the reference"),
    _defect("archive-before-reply", "synth:inbox_triage_reply@1",
            _pin(("mail_move", 0, ("message_id",)), ("mail_send", 0, ("in_reply_to",)), "archive-before-reply",
                 "the inbox was cleaned up before the question was answered"),
            "Clean up the inbox first; answer the question after that.",
            "is failed for answering the colleague's question before archiving the outside mail"),
    _defect("archive-in-inbox-order", "synth:inbox_triage_reply@2", _MOVES,
            "Archive them in the order they sit in the inbox.",
            "is failed for archiving the outside mails in another order than the inbox lists them"),
    _defect("audit-order-by-prefix", "synth:todo_track_mail_requests@5",
            _audit_order_by_prefix("todo_add", "_label", "filed-then-labelled"),
            "Label the mails only after every task is filed.",
            "is failed (by a Python check on the audit naming the tools by prefix) for labelling the mails before "
            "filing their tasks"),
]


# -- a Python check pinning a later pair of writes, behind pairs it does not pin ----------------------------------
def _audit_in_reference_order(tool: str, arg: str, check_id: str, last: int | None = None):  # type: ignore[no-untyped-def]
    """A Python check that the successful `tool` calls name their `arg` in the order the reference did (with
    `last`, only the reference's last `last` records, found by their ids, keep their order)."""

    def edit(spec: Spec) -> None:
        wanted = [c["arguments"][arg] for _, _, c in calls(spec, tool)]
        if last is None:
            test = f"done == {wanted!r}"
        else:
            test = f"all(w in done for w in {wanted[-last:]!r}) and [d for d in done if d in {wanted[-last:]!r}] == " \
                   f"{wanted[-last:]!r}"
        code = (
            "def check(state, audit, messages):\n"
            f"    done = [a['args'].get({arg!r}) for a in audit if a['tool'] == {tool!r} and a['ok']]\n"
            f"    return {test}\n"
        )
        spec["checks"].append({"id": check_id, "description": f"the {tool} calls come in the reference's order",
                               "rule": {"kind": "python", "code": code, "entrypoint": "check", "apps": []}})
    return edit


_IN_ORDER = "Handle them one at a time, in the order you find them."

DEFECTS += [
    _defect("audit-archive-in-reference-order", "synth:inbox_triage_reply@1",
            _audit_in_reference_order("mail_move", "message_id", "archived-in-order"), _IN_ORDER,
            "is failed (by a Python check on the audit) for archiving the outside mails in another order than the "
            "reference"),
] + [
    _defect(f"audit-last-two-{tool.split('_')[0]}-{seed}", f"synth:{cap}@{seed}",
            _audit_in_reference_order(tool, arg, "last-two-in-order", last=2), _IN_ORDER,
            f"is failed (by a Python check on the audit) for doing the last two {tool} calls the other way round; "
            "the two pairs of writes the gates probed came before them")
    for cap, seed, tool, arg in (("inbox_triage_reply", 4, "mail_move", "message_id"),
                                 ("inbox_triage_reply", 5, "mail_move", "message_id"),
                                 ("ticket_triage_update", 2, "tickets_update", "ticket_id"),
                                 ("ticket_triage_update", 4, "tickets_update", "ticket_id"),
                                 ("ticket_triage_update", 6, "tickets_update", "ticket_id"))
]


# -- a Python check pinning a later pair it tells apart by what the records say, not by an id or a tool -----------
def _audit_last_two_by_title(tool: str, arg: str, app: str, table: str, field: str):  # type: ignore[no-untyped-def]
    """A Python check that the reference's last two `tool` calls keep their order, telling their records apart by
    `field` (a subject, a title) read from the state: the code names neither record's id."""

    def edit(spec: Spec) -> None:
        from tests.defects._core import record
        wanted = [c["arguments"][arg] for _, _, c in calls(spec, tool)]
        if len(wanted) < 4:
            raise CorpusError(f"{spec['capability']}: fewer than four {tool} calls")
        titles = [record(spec, app, table, w)[field] for w in wanted[-2:]]
        code = (
            "def check(state, audit, messages):\n"
            f"    said = {{r['id']: r[{field!r}] for r in state['apps'][{app!r}][{table!r}]}}\n"
            f"    done = [said.get(a['args'].get({arg!r})) for a in audit if a['tool'] == {tool!r} and a['ok']]\n"
            f"    return [t for t in done if t in {titles!r}] == {titles!r}\n"
        )
        spec["checks"].append({"id": "last-two-by-title", "description": f"the last two {tool} calls in order",
                               "rule": {"kind": "python", "code": code, "entrypoint": "check", "apps": [app]}})
    return edit


DEFECTS += [
    _defect(f"audit-last-two-by-{field}-{seed}", f"synth:{cap}@{seed}",
            _audit_last_two_by_title(tool, arg, app, table, field), _IN_ORDER,
            f"is failed (by a Python check on the audit that tells the records apart by their {field}) for doing the "
            f"last two {tool} calls the other way round; every pair of those calls names the same tool and none by id")
    for cap, seed, tool, arg, app, table, field in (
        ("inbox_triage_reply", 4, "mail_move", "message_id", "mail", "messages", "subject"),
        ("inbox_triage_reply", 5, "mail_move", "message_id", "mail", "messages", "subject"),
        ("ticket_triage_update", 2, "tickets_update", "ticket_id", "tickets", "tickets", "title"),
        ("ticket_triage_update", 4, "tickets_update", "ticket_id", "tickets", "tickets", "title"),
        ("ticket_triage_update", 6, "tickets_update", "ticket_id", "tickets", "tickets", "title"))
]
