"""A written identifier checked loosely where another value collides: an `equals` on an id or a config value the
agent writes loosened to a case-, space- and punctuation-blind regex (`(?i)^[\\W_]*m[\\W_]*s[\\W_]*g...`) or to its
digits (`in_reply_to contains "391"`, and `contains` folds case), where the tool stores another value that the
loose reading admits: a draft replying to `MSG-391` (the mail tool keeps a draft's unknown reply-to as written,
unthreaded), a paused-jobs entry in capitals that names no job, a to-do on `list-997` beside `list-97`, a draft
replying to `ext-391`, another message with the same digits.

The sound twins compare exactly; the world-collision twins hold the same colliding record and pin the written id.
"""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, base_spec, calls, reference, world

CLASS = "loose_value_admitted"
DETECTION = (
    "for each written argument that names what the world holds (an id, or names records hold) and that a "
    "condition of a check reads loosely (a regex, `contains`, its digits), write the values the loose reading "
    "admits too (the value in capitals or lower case, its `-` and `_` exchanged, the other ids of its table): a "
    "near miss that still passes means the check admits a value the tool stores and the task does not want"
)
GATE, CODE = "mutations", "loose_value_accepted"


def loose_rx(value: str) -> str:
    """A regex for `value` blind to case, spaces and punctuation (the outsider's `norm_loose`)."""
    return "(?i)^[\\W_]*" + "[\\W_]*".join(ch for ch in value if ch.isalnum()) + "[\\W_]*$"


def digits(value: str) -> str:
    """The longest run of digits of `value` (the outsider's `id_substring`)."""
    runs = [run for run in "".join(ch if ch.isdigit() else " " for ch in value).split() if run]
    if not runs:
        raise CorpusError(f"{value!r} has no digits")
    return max(runs, key=len)


def _conditions(spec: Spec, field: str) -> list[dict[str, Any]]:
    """Every `equals` condition of a records check on `field`, and every `field` check on it, as edit targets."""
    out: list[dict[str, Any]] = []
    for c in spec["checks"]:
        rule = c["rule"]
        if rule["kind"] == "records":
            out += [w for w in rule["where"] if w["field"] == field and w.get("op", "equals") == "equals"]
        elif rule["kind"] == "field" and rule["target"]["field"] == field and rule.get("op", "equals") == "equals" \
                and isinstance(rule.get("value"), str):
            out.append(rule)
    if not out:
        raise CorpusError(f"{spec['capability']}: no exact check on {field!r}")
    return out


def _loosened(field: str, how: str):  # type: ignore[no-untyped-def]
    """The exact checks on `field` loosened: `regex` (case-, space- and punctuation-blind) or `digits`."""
    def edit(spec: Spec) -> None:
        for cond in _conditions(spec, field):
            value = cond["value"]
            cond["op"], cond["value"] = ("matches", loose_rx(value)) if how == "regex" else ("contains", digits(value))
    return edit


def _written(tool: str, arg: str, change: Any):  # type: ignore[no-untyped-def]
    """The reference with every `tool` call's `arg` rewritten by `change`."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        ref = reference(spec)
        hits = [c for _, _, c in calls({"reference": ref, "capability": spec["capability"]}, tool) if arg in c["arguments"]]
        if not hits:
            raise CorpusError(f"{spec['capability']}: the reference never passes {arg} to {tool}")
        for c in hits:
            c["arguments"][arg] = change(c["arguments"][arg])
        return ref
    return witness


def _defect(name: str, base: str, breaks: Any, away: str, witness: Any, fix: Any = None) -> Defect:
    base_spec(base)
    return Defect(CLASS, name, base, away, breaks=breaks, fix=fix, witness=witness, witness_kind="cheat",
                  gate=GATE, code=CODE)


# -- a second message whose id has the reply's digits --------------------------------------------------------
def _reply_target(spec: Spec) -> str:
    for turn in spec["reference"]:
        for step in turn["steps"]:
            c = step.get("call")
            if c and c["name"] == "mail_save_draft" and c["arguments"].get("in_reply_to"):
                return str(c["arguments"]["in_reply_to"])
    raise CorpusError(f"{spec['capability']}: no draft replying to a message")


def _namesake_id(record_id: str) -> str:
    """An id with the same digits after a 9: `list-97` -> `list-997`."""
    d = digits(record_id)
    return record_id.replace(d, "9" + d, 1)


def _imported_id(record_id: str) -> str:
    """An imported message's id with the same digits: `msg-391` -> `ext-391` (another numbering, so the ids the
    mail tool gives new messages stay the reference's)."""
    return "ext-" + digits(record_id)


def _with_other_message(spec: Spec) -> None:
    """The mailbox also holds an unrelated imported message whose id has the reply's digits."""
    target = _reply_target(spec)
    messages = world(spec, "mail", "messages")
    original = next(m for m in messages if m["id"] == target)
    messages.append({**original, "id": _imported_id(target), "thread_id": f"th-{_imported_id(target)}",
                     "subject": "Parking garage access cards", "body": "New access cards are at the front desk.",
                     "read": True})


def _with_other_message_and(breaks: Any):  # type: ignore[no-untyped-def]
    def edit(spec: Spec) -> None:
        _with_other_message(spec)
        breaks(spec)
    return edit


# -- a second to-do list whose id has the checked list's digits ----------------------------------------------
def _checked_list(spec: Spec) -> str:
    for c in spec["checks"]:
        for w in c["rule"].get("where", []) if c["rule"]["kind"] == "records" else []:
            if w["field"] == "list_id" and w.get("op", "equals") == "equals":
                return str(w["value"])
    raise CorpusError(f"{spec['capability']}: no check on a to-do's list")


def _with_other_list(spec: Spec) -> None:
    list_id = _checked_list(spec)
    lists = world(spec, "todo", "lists")
    original = next(x for x in lists if x["id"] == list_id)
    lists.append({**original, "id": _namesake_id(list_id), "name": "Website (archive 2024)"})


def _list_loosened(spec: Spec) -> None:
    """The to-do checks and the frame's selector read the list by its digits."""
    _with_other_list(spec)
    list_id = _checked_list(spec)
    for c in spec["checks"]:
        rule = c["rule"]
        conds = rule.get("where", []) if rule["kind"] == "records" else []
        if rule["kind"] == "frame":
            conds = [w for sel in rule["allow"] for w in sel.get("where", [])]
        for w in conds:
            if w["field"] == "list_id" and w.get("value") == list_id and w.get("op", "equals") == "equals":
                w["op"], w["value"] = "contains", digits(list_id)


def _on_other_list(spec: Spec) -> list[dict[str, Any]]:
    list_id = _checked_list(spec)
    return _written("todo_add_task", "list_id", lambda v: _namesake_id(list_id) if v == list_id else v)(spec)


DEFECTS = [
    *(_defect(f"draft-reply-regex-{seed}", f"synth:draft_only_reply@{seed}", _loosened("in_reply_to", "regex"),
              "saves the draft replying to the message's id in capitals, which the mail tool keeps as written and "
              "unthreaded", _written("mail_save_draft", "in_reply_to", str.upper))
      for seed in (1, 2, 3)),
    *(_defect(f"draft-reply-digits-{seed}", f"synth:draft_only_reply@{seed}", _loosened("in_reply_to", "digits"),
              "saves the draft replying to the message's id in capitals (`contains` folds case), kept unthreaded",
              _written("mail_save_draft", "in_reply_to", str.upper))
      for seed in (4, 5)),
    *(_defect(f"paused-jobs-regex-{seed}", f"synth:scheduler_pause_failing_jobs@{seed}", _loosened("value", "regex"),
              "records the paused jobs in capitals, names no job the scheduler runs",
              _written("config_set", "value", str.upper))
      for seed in (1, 2, 3)),
    *(_defect(f"draft-reply-namesake-{seed}", f"synth:draft_only_reply@{seed}",
              _with_other_message_and(_loosened("in_reply_to", "digits")),
              "saves the draft in the thread of another message whose id holds the same digits",
              _written("mail_save_draft", "in_reply_to", _imported_id), fix=_with_other_message)
      for seed in (1, 2)),
    *(_defect(f"todo-list-namesake-{seed}", f"synth:web_page_audit@{seed}", _list_loosened,
              "files the to-dos on another list whose id holds the checked list's digits", _on_other_list,
              fix=_with_other_list)
      for seed in (1, 2)),
]
