"""Frames that allow a table's records by which they are not, or by what their ids look like (`frame_scope_open`,
hunt154).

A frame selector written as "every record of the table but these", `{table: tickets, where: [id != TCK-101, id !=
TCK-102]}` ("the old tickets stay as they are"), or as "the ids of the new ones", `id matches ^msg-82` (the id the
reference's run gave the reply, cut to a prefix), admits each record the agent makes: nothing in it says what a new
record may hold, and ids are handed out in order (a second message is msg-822). Beside a completion check that finds the right record ("at least one p1 ticket for svc-x"), an agent
that also files a wrong ticket (a p2 one, a copy at another path) passes, where a frame naming the made record (by
the id the reference's run gave it, or by the values it must hold) refuses the extra one. Found by the outsider's
hunt (`--family d154`, `scope_id_not_equals`, `scope_id_prefix`): accepted and witnessed on incident_rollback,
report_from_files, correct_bad_data, draft_only_reply and report_from_data. The mutation gate's harms
act on records there before the episode (`task_mutations._harm_to_keyed` takes the first one a selector admits), so a
selector that leaves out exactly those, or admits none of them, was never seen to admit anything.

Where a frame (a tier's too) holds such a selector, open by its ids alone (every condition one on `id` that lists
no records: `not_equals`, `not_contains`, `matches`, `contains`, a bound), each reference write of that app that makes a record (a creating tool) or names one
of that table by an id the agent gives (a file's path) is made once more right after it: with one of its near misses
(another value, person or path), and a write naming its record at a new id of its own (the file written at another
path too: a new record). A replay that passes every required check is reported as
`frame_scope_open` (name the made record in the frame by its values, or count the table's new records exactly). A
write refused at the new id (an update of a ticket that is not there) changes nothing: the replay ends as the
reference does and is not counted. Nor is a replay that passes with no record of the open selector's table made or
changed beyond the reference's (`lands_in_scope`, judged on the episode's signature): a second DM the frame admits by
its message selector beside an open one on `chat.channels`, a stock transfer from another item that the tools refuse
or that moves only what other selectors allow (defects156: three such false rejections of the hunt's
`scope_id_not_equals` on meeting_reschedule and restock_store_declared_tools, whose shipped frames pass the same
replays).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from coworkenv.spec import EnvSpec, FrameRule, ReferenceStep, ReferenceTurn, ToolCallSpec
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate._mutation_core import Mutation, turn_of

if TYPE_CHECKING:  # _episodes imports the mutations, which import this module
    from coworkenv.validate._episodes import Signature

_PINNING = ("equals", "in")  # conditions on `id` that list the records a selector admits
_KINDS = ("change_arg", "time_shift", "text_alter", "wrong_recipient")  # a record made with another value
_EXTRAS = 2  # near misses made beside the right record, per making write
# Writes that make a message or a record besides the creating tools (`mutations._CREATES`): each call is a new one.
_SENDS = frozenset({"mail_send", "mail_save_draft", "mail_send_draft", "chat_post_message", "chat_send_dm",
                    "contacts_send_message", "news_publish", "web_notify"})


def open_scope(spec: EnvSpec, app: str) -> str | None:
    """'table' of a frame selector of `app` admitting the table's records by open conditions on their ids alone
    (every record but those named, every id of a prefix or above a bound), else None."""
    for _, _, _, rule in spec_rules(spec.checks):
        if not isinstance(rule, FrameRule):
            continue
        for sel in rule.allow:
            if sel.app == app and sel.table is not None and sel.id is None and sel.where \
                    and all(c.field == "id" and c.op not in _PINNING for c in sel.where):
                return sel.table
    return None


def made_by(call: ToolCallSpec, op: str, creates: bool, table_of: dict[str, tuple[str, str]], app: str, table: str
            ) -> str | None:
    """How `call` (running `op`) makes a record of `app.table`, or could: "" where it creates one (`creates`, or a
    message sent or saved: the world gives the id), the argument naming a record of the table (`table_of`: the final
    world's ids) where the agent gives the id (a file's path: the same write at another path makes a new file);
    None where it names none."""
    if creates or op in _SENDS:
        return ""
    return next((a for a, v in call.arguments.items() if isinstance(v, str) and table_of.get(v) == (app, table)),
                None)


def _fresh(rid: str) -> str:
    """Another new id beside `rid`: `-2` before its extension (`reports/w14-2.csv`)."""
    stem, dot, ext = rid.rpartition(".")
    return f"{stem}-2.{ext}" if dot and "/" not in ext else f"{rid}-2"


def open_scope_mutations(reference: list[ReferenceTurn], t: int, s: int, call: ToolCallSpec, table: str, named: str,
                         arg_mutations: Iterable[tuple[str, str, dict[str, Any], str, bool]], app: str = ""
                         ) -> list[Mutation]:
    """The write at `reference[t].steps[s]` made once more right after it with one of its near misses from
    `arg_mutations` (`_argument_mutations`' (kind, path, arguments, what, core)): at most `_EXTRAS`, one per kind
    first; where the call names its record by an id the agent gives (`named`, its argument: a file's path), the
    first is the same write at a new id of its own (a copy at another path: a near miss of the path names a record
    there already)."""
    wrong = [(kind, new, what) for kind, _, new, what, core in arg_mutations if core and kind in _KINDS]
    extras = [w for i, w in enumerate(wrong) if w[0] not in {k for k, _, _ in wrong[:i]}]
    extras += [w for w in wrong if w not in extras]
    if named:
        rid = str(call.arguments[named])
        extras.insert(0, ("change_arg", {**call.arguments, named: _fresh(rid)}, f"{named} {rid!r} -> {_fresh(rid)!r}"))
    where = f"reference[{t}].steps[{s}]"
    out = []
    for kind, new, what in extras[:_EXTRAS]:
        steps = list(reference[t].steps)
        steps.insert(s + 1, ReferenceStep(call=ToolCallSpec(name=call.name, arguments=new)))
        out.append(Mutation("duplicate_write", where, f"{call.name} at {where} made once more with {what} ({kind}) "
                            f"beside the right record, where a frame allows the {table} records by their ids alone "
                            "(every one but those it names, or by the ids' form): the extra record stays",
                            [*reference[:t], turn_of(steps), *reference[t + 1:]], code="frame_scope_open",
                            targets=(app, table)))
    return out


def lands_in_scope(mutation: Mutation, changed: Signature | None, oracle: Signature | None) -> bool:
    """Whether a `frame_scope_open` replay's world (`changed`, its signature) holds a record of the open selector's
    table (`mutation.targets`: app, table) that the reference's run (`oracle`) does not: the extra write made or
    changed one there. Where it did not (a message the frame admits by another selector, a write refused at a new
    id, a change to another table), the open selector admitted nothing and the replay says nothing of it."""
    if len(mutation.targets) != 2 or changed is None or oracle is None:
        return True
    app, table = mutation.targets
    before = {c for c in oracle[0] if c[0] == app and c[1] == table}
    return any(c[0] == app and c[1] == table and c not in before for c in changed[0])
