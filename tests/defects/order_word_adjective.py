"""Order word adjective: a check pins the order in which the reference happened to do two independent writes of a
turn (reassigning one ticket before another, fixing one config value before another, archiving one mail before
another) though the task never orders them; the turn's only `next` is an adjective, "here is the next thing on my
list", "to whoever is on call next", "the next on-call engineer", so an honest agent doing them the other way round
ends in the same state and fails. The twin's turn asks for that order in a sentence naming the first record.

The order probe (`_unasked_order.order_probes`) is left out where the turn words an order (`states_order`), and main
took `next` for an order word wherever it stood (the generators' opening "here is the next thing on my list", every
oncall_handoff turn), so it accepted every case here: the probe never ran.

Caught once `next` orders steps only as an adverb (`_unasked_order.words_order`: before a comma or a colon, or opening
a clause where no noun it qualifies follows): the probe then runs and the check fails it (`order_unasked`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.defects._core import Defect, Spec
from tests.defects.order_unasked import _nth, _pin

CLASS = "order_word_adjective"
DETECTION = (
    "read `next` as an order word only as an adverb (`Next, mail Jun`, `and next post it`), never the adjective "
    "(`the next thing on my list`, `on call next`); then replay the reference with two independent writes of a turn "
    "the other way round: a check the replay fails pins an order the task does not ask for"
)

_ID_ARGS = ("ticket_id", "message_id", "service", "item_id")


def _first_arg(call: dict[str, Any]) -> str:
    for key in _ID_ARGS:
        if isinstance(call["arguments"].get(key), str):
            return str(call["arguments"][key])
    raise AssertionError(f"{call['name']} names no record by {_ID_ARGS}")


def _asked(tool: str, edit: Callable[[Spec], None], then_tool: str | None = None) -> Callable[[Spec], None]:
    """The twin: the same check, and the first turn asks for the reference's order, naming both records."""
    def fix(spec: Spec) -> None:
        edit(spec)
        a, b = _nth(spec, tool, 0), _nth(spec, then_tool or tool, 0 if then_tool else 1)
        spec["turns"][0]["content"] += f" Do {_first_arg(a)} first and only then {_first_arg(b)}."
    return fix


def _defect(name: str, base: str, tool: str, keys: tuple[str, ...], away: str) -> Defect:
    edit = _pin((tool, 0, keys), (tool, 1, keys), "first-record-first", "the first record was written before the second")
    return Defect(CLASS, name, base, away, breaks=edit, fix=_asked(tool, edit), gate="mutations",
                  code="order_unasked")


_HANDOFF = ("is failed for handing the second ticket over before the first, though the task (\"whoever is on call "
            "next\") orders nothing")
_TRIAGE = ("is failed for triaging the second ticket before the first; the turn opens \"here is the next thing on my "
           "list\", which orders nothing")
_CONFIG = ("is failed for fixing the second config value before the first; the turn's \"next thing on my list\" orders "
           "nothing")
_ARCHIVE = "is failed for archiving the second outside mail before the first; \"the next thing on my list\" orders nothing"

DEFECTS = [
    *(_defect(f"handoff-ticket-order-{n}", f"synth:oncall_handoff@{n}", "tickets_update", ("ticket_id",), _HANDOFF)
      for n in (1, 3, 4, 7, 9, 10, 12, 14)),
    _defect("triage-ticket-order-12", "synth:ticket_triage_update@12", "tickets_update", ("ticket_id",), _TRIAGE),
    *(_defect(f"config-fix-order-{n}", "synth:correct_bad_data@" + str(n), "services_update_config", ("service",),
              _CONFIG) for n in (3, 5)),
    _defect("archive-order-24", "synth:inbox_triage_reply@24", "mail_move", ("message_id",), _ARCHIVE),
]
