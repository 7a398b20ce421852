"""List order pinned: the reference's reply or message lists several records of one kind in the order its run met
them ("I fixed the roster rows of Dario Adeyemi, Viktor Kowalski", "Fixed svc-payments, svc-orders: region is now
eu-west-1", "Paused payments-log-rotate (...); payments-nightly-export (...)", "Moved 15 x GLOVE-96, 57 x WRAP-43"), and
the writer's check wants that order: one regex `dario adeyemi.*viktor kowalski` on the reply, or a `matches` on the
DM. The user never asked for an order (no "sorted", "first", "by priority"), so an honest agent that lists the same
records the other way round fails. The sound twin wants each record on its own (a term or a condition each).

Caught by the list replay (`list_order_pinned`, `_list_order`): each reply or written text of a turn that words no
order holding a list of records of one table (cut at ", ", "; ", " and "), replayed with the list in reverse.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, reference

CLASS = "list_order_pinned"
DETECTION = (
    "replay the reference with each list of records of one kind its replies and messages write (in a turn that words "
    "no order nor sort) in reverse, each item with what it says about its record; where a check the reference "
    "passes then fails, it pins the order the reference listed them in"
)

# Where the list is: (turn, tool and its text argument, or None for the turn's reply).
Site = tuple[int, str | None, str]
REPLY: Site = (0, None, "say")
DM: Site = (0, "chat_send_dm", "text")


def _step(spec: Spec, site: Site) -> dict[str, Any]:
    turn, tool, _ = site
    steps = spec["reference"][turn]["steps"]
    for step in reversed(steps) if tool is None else steps:
        if (tool is None and step.get("say")) or (tool is not None and (step.get("call") or {}).get("name") == tool):
            return step  # type: ignore[no-any-return]
    raise CorpusError(f"{spec['capability']}: turn {turn} of the reference has no {tool or 'reply'}")


def _text(step: dict[str, Any], arg: str) -> str:
    return step["say"] if step.get("say") else step["call"]["arguments"][arg]  # type: ignore[no-any-return]


def _listed(spec: Spec, site: Site, pattern: str) -> list[str]:
    """The records the reference's text lists, in its order (the pattern's group, found again and again)."""
    names = re.findall(pattern, _text(_step(spec, site), site[2]))
    if len(names) < 2:
        raise CorpusError(f"{spec['capability']}: the reference lists fewer than two records at {site}")
    return names  # type: ignore[no-any-return]


def _pin(site: Site, pattern: str, defect: bool, gap: str) -> Callable[[Spec], None]:
    """A check that the list is given: in the reference's order (the defect: one pattern with every record in
    turn, `gap` between two), or each record on its own (the twin)."""
    turn, tool, arg = site

    def edit(spec: Spec) -> None:
        names = _listed(spec, site, pattern)
        ordered = gap.join(re.escape(n.lower()) for n in names)
        rule: dict[str, Any]
        if tool is None:
            rule = ({"kind": "text", "scope": "final", "turn": turn, "regex": ordered} if defect else
                    {"kind": "text", "scope": "final", "turn": turn, "all_of": [n.lower() for n in names]})
        else:
            where = ([{"field": arg, "op": "matches", "value": f"(?is){ordered}"}] if defect else
                     [{"field": arg, "op": "contains", "value": n} for n in names])
            rule = {"kind": "records", "app": "chat", "table": "messages", "where": where, "count_op": "gte",
                    "count": 1}
        spec["checks"].append({"id": "list-given", "description": "every record is listed", "rule": rule})
    return edit


def _reversed(site: Site, pattern: str, item: str | None) -> Callable[[Spec], list[dict[str, Any]]]:
    """The reference with the list written the other way round, each record with what the text says of it (the
    whole `item` where given, else the record's name alone)."""

    def witness(spec: Spec) -> list[dict[str, Any]]:
        ref = reference(spec)
        view = {"reference": ref, "capability": spec["capability"]}
        step = _step(view, site)
        text = _text(step, site[2])
        parts = [m[0] for m in re.finditer(item, text)] if item else [m[1] for m in re.finditer(pattern, text)]
        if len(parts) < 2:
            raise CorpusError(f"{spec['capability']}: no list to reverse at {site}")
        swapped = dict(zip(parts, reversed(parts), strict=True))
        new = re.sub("|".join(map(re.escape, parts)), lambda m: swapped[m[0]], text)
        if "say" in step and step.get("say"):
            step["say"] = new
        else:
            step["call"]["arguments"][site[2]] = new
        return ref
    return witness


def _pair(name: str, base: str, site: Site, pattern: str, away: str, item: str | None = None,
          gap: str = ".*") -> Defect:
    """The defect and its twin; `item` matches a whole item where the text says more of each record than its name
    ("15 x GLOVE-96", "payments-log-rotate (last run ...)"); `gap`: what the defect's pattern allows between two
    records (within the sentence, where a later one names them again)."""
    return Defect(CLASS, name, base, away, breaks=_pin(site, pattern, True, gap), fix=_pin(site, pattern, False, gap),
                  witness=_reversed(site, pattern, item), witness_kind="honest", gate="mutations",
                  code="list_order_pinned")


_PEOPLE_DM = r"(?:of |, )([A-Z][a-z]+ [A-Z][a-z]+)"
_PEOPLE_REPLY = r"(?:\(|, )([A-Z][a-z]+ [A-Z][a-z]+)"
_SERVICES = r"(?:Fixed |, )(svc-[a-z-]+)"
_ROSTER = "fails the agent that names the fixed rows' people in another order in the DM to the roster's owner"
_ROSTER_REPLY = "fails the agent whose reply names the fixed rows' people in another order"
_CONFIG = "fails the agent whose reply names the corrected services in another order"
_JOBS = r"(?:Paused |; )([a-z][\w-]+) \(last run"
_JOB_ITEM = r"[a-z][\w-]+ \(last run [^)]*\)"
_STOCK = r"\d+ x ([A-Z]+-\d+)"
_STOCK_ITEM = r"\d+ x [A-Z]+-\d+"
_PAUSED = "fails the agent whose reply names the paused jobs, each with its last run, in another order"
_MOVED = "fails the agent whose reply names the restocked items, each with its units, in another order"
_CBD = "synth:correct_bad_data@"
_SPJ = "synth:scheduler_pause_failing_jobs@"
_IRP = "synth:inventory_restock_policy@"

DEFECTS = [
    *(_pair(f"roster-dm-{n}", f"{_CBD}{n}", DM, _PEOPLE_DM, _ROSTER) for n in (2, 12, 8)),
    _pair("roster-reply-10", f"{_CBD}10", REPLY, _PEOPLE_REPLY, _ROSTER_REPLY),
    *(_pair(f"config-reply-{n}", f"{_CBD}{n}", REPLY, _SERVICES, _CONFIG) for n in (3, 4)),
    # The reply's next sentence names the jobs again (the config value): the pattern keeps to the first sentence.
    *(_pair(f"paused-jobs-reply-{n}", f"{_SPJ}{n}", REPLY, _JOBS, _PAUSED, _JOB_ITEM, "[^.]*") for n in (4, 2, 7)),
    *(_pair(f"restock-reply-{n}", f"{_IRP}{n}", REPLY, _STOCK, _MOVED, _STOCK_ITEM) for n in (1, 7)),
]
