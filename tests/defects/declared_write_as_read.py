"""Defects of other classes in specs whose task writes through the spec's own declared tools.

A spec may give the agent its own tools (`tool_decls`: an imported `gmail_send_message` bound to `mail_send`), under
names no built-in catalogue knows. A validator that tells writes from reads by the built-in catalogue takes every
declared write for a read: it never moves the write a turn early (`acts_before_answer`), never paces the turn it is
in (`pace_pinned`), never replays the time a declared mail or chat message gives in another zone (`zone_pinned`) or
the values it tells as the user wrote them (`format_pinned`, `unit_pinned`, `case_pinned`, `list_order_pinned`),
never looks for the write's text already in the world or its computed rows in the prompt (an `isolation` leak), and
never sees that the task writes at all (`presolved`), never tries a harm only a declared write can do (a frame or
guard letting it through: `harm_unguarded`); a validator that reads a guard's or a check's call matcher by the
built-in tools never judges a declared guard's other routes (the record deleted, overwritten or closed by another
value, the person told by another app or in a batch: `guard_bypassed`), a turn condition's spelling of a declared
DM's person (`spelling_pinned`), a declared write taken back under a `called` check (`undone_unchecked`), or a
declared reply the request asks for (`asked_message_unchecked`); and an agent that only reads keeps the declared
writes, so the world alone seems to do the work and a sound spec is rejected (`solved_by_world`). Each defect here is an existing class's defect (its witness, gate and
code) with every write tool its reference calls declared under another name (bound to the same op, the same
arguments, the checks' and rules' matchers following); the sound twin is that defect's twin, declared alike.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from coworkenv.apps import TOOLS
from tests.defects import (
    answer_read_not_written,
    case_pinned,
    early_turn_unchecked,
    format_pinned,
    frame_blind,
    frame_key_shared,
    guard_batch_evades,
    guard_deletion_evades,
    guard_wrong_app,
    isolation_leak,
    list_order_pinned,
    news_window_pinned,
    pace_pinned,
    presolved,
    spelling_pinned,
    undone_write,
    unit_pinned,
    zone_pinned,
)
from tests.defects._core import CorpusError, Defect, Edit, Spec

CLASS = "declared_write_as_read"
DETECTION = (
    "tell a spec's writes from its reads by the spec's catalogue (a declared tool counts as the op it is bound to), in "
    "every validator that moves, paces, drops or looks for the reference's writes, and try harms, guard routes, "
    "take-backs and respellings through the declared writes (the spec seen through its bindings, its matchers on "
    "declared writes on their ops; each replay's calls written back through the bindings): a declared write taken "
    "for a read hides the defect, or keeps the writes in a reads-only agent and rejects a sound spec"
)

_PREFIX = "acme_"


def _renamed(node: Any, names: dict[str, str]) -> None:
    """Every call matcher's tool in `node` (checks, rules, turns) renamed to its declared name."""
    if isinstance(node, dict):
        for key in ("tool", "first", "then"):
            if isinstance(node.get(key), str) and node[key] in names:
                node[key] = names[node[key]]
        for value in node.values():
            _renamed(value, names)
    elif isinstance(node, list):
        for value in node:
            _renamed(value, names)


def _call_names(reference: list[dict[str, Any]], names: dict[str, str]) -> None:
    for turn in reference:
        for st in turn["steps"]:
            if st.get("call") and st["call"]["name"] in names:
                st["call"]["name"] = names[st["call"]["name"]]


def declare_writes(spec: Spec, every: bool = False, reads: bool = False) -> None:
    """Every built-in write tool the reference calls (`every`: every one the agent is given; `reads`: its read tools
    too) declared as `acme_<name>` (the op's own schema and arguments), the built-in one no longer given; the
    reference, the checks' matchers (Python checks' quoted names too), the dynamics rules and the turns follow."""
    called = {st["call"]["name"] for turn in spec["reference"] for st in turn["steps"] if st.get("call")}
    writes = sorted(n for n in (spec["tools"] if every else called) if n in spec["tools"] and n in TOOLS
                    and (reads or TOOLS[n].kind == "write"))
    if not writes:
        raise CorpusError(f"{spec['capability']}: the reference writes through no built-in tool")
    declare_as(spec, {n: _PREFIX + n for n in writes})


def declare_as(spec: Spec, names: dict[str, str]) -> None:
    """Each built-in tool `names` names declared under that name (the op's own schema and arguments), the built-in
    one no longer given; the reference, the checks' matchers (Python checks' quoted names too), the dynamics rules
    and the turns follow."""
    for n in names:
        params = TOOLS[n].openai_schema()["function"]["parameters"]
        spec.setdefault("tool_decls", []).append({
            "name": names[n], "description": f"Calls {n} in the service's own words.", "parameters": params,
            "bind": {"op": n, "args": {p: p for p in params.get("properties", {})}}})
        spec["tools"].remove(n)
    _call_names(spec["reference"], names)
    for key in ("checks", "dynamics", "turns"):
        _renamed(spec.get(key), names)
    for c in spec["checks"]:
        if c["rule"].get("kind") == "python":
            for n, m in names.items():
                c["rule"]["code"] = c["rule"]["code"].replace(f'"{n}"', f'"{m}"').replace(f"'{n}'", f"'{m}'")


def _witness(witness: Callable[[Spec], list[dict[str, Any]]],
             ours: Callable[[str], bool] = lambda name: name.startswith(_PREFIX)) -> Callable[[Spec], list[dict[str, Any]]]:
    """`witness` played on the declared spec: built on the spec with its declared writes (those `ours` names) back
    under their built-in names (the witnesses tell writes by those), its calls then renamed to the declared names."""
    def declared(spec: Spec) -> list[dict[str, Any]]:
        back = {d["name"]: d["bind"]["op"] for d in spec.get("tool_decls", []) if ours(d["name"])}
        plain = copy.deepcopy(spec)
        plain["tool_decls"] = [d for d in plain["tool_decls"] if d["name"] not in back]
        plain["tools"].extend(back.values())
        _call_names(plain["reference"], back)
        for key in ("checks", "dynamics", "turns"):
            _renamed(plain.get(key), back)
        ref = witness(plain)
        _call_names(ref, {op: name for name, op in back.items()})
        return ref
    return declared


def _then_declared(edit: Edit | None, every: bool) -> Edit:
    def both(spec: Spec) -> None:
        if edit is not None:
            edit(spec)
        declare_writes(spec, every)
    return both


def _declared(module: Any, name: str, gate: str | None = None, code: str | None = None, every: bool = False) -> Defect:
    """`module`'s defect `name`, its spec and twin with their writes (`every`: every write tool given) declared
    (`gate`/`code` where it names none)."""
    found = next((d for d in module.DEFECTS if d.name == name), None)
    if found is None:
        raise CorpusError(f"{module.CLASS}: no defect {name!r}")
    witness = _witness(found.witness) if found.witness is not None else None
    return Defect(CLASS, f"{module.CLASS}-{name}", found.base, f"{found.gets_away_with} (its writes declared tools)",
                  breaks=_then_declared(found.breaks, every), fix=_then_declared(found.fix, every), witness=witness,
                  witness_kind=found.witness_kind, gate=found.gate or gate, code=found.code or code)


DEFECTS = [
    # _early_action: a declared write never moved a turn early
    _declared(early_turn_unchecked, "grant-before-approval"),
    _declared(news_window_pinned, "backup-told-window-at-pace"),
    # _pace: a turn whose only writes are declared never paced (the twins of these three and format_pinned's: the
    # reads-only agent of _episodes kept the declared writes, so the world alone seemed to do the work)
    _declared(pace_pinned, "errors-stopped-1", "mutations", "pace_pinned"),
    # _user_zones: a declared mail or chat message's times never replayed in the zone asked
    _declared(zone_pinned, "booking-mail-in-user-zone-1", "mutations", "zone_pinned"),
    _declared(zone_pinned, "moved-dm-in-utc-1", "mutations", "zone_pinned"),
    # _paraphrased_leaks: a declared write's text already in the world not looked for
    _declared(isolation_leak, "reply-body-in-drafts"),
    _declared(isolation_leak, "report-in-scratch-file"),
    # _answer_keys: a declared write's computed rows, written out in the user's message, not looked for
    _declared(isolation_leak, "expected-rows-in-prompt"),
    # _user_formats, _user_spelling, _list_order: a declared message's told values never written as the user wrote them
    _declared(format_pinned, "dm-due-date-day-month"),
    _declared(unit_pinned, "config-value-converted-in-dm-1"),
    _declared(case_pinned, "label-title-cased"),
    _declared(list_order_pinned, "roster-dm-2"),
    # episode_gates._presolved: a task writing only through declared tools taken for a read-and-answer task
    _declared(presolved, "triage-already-done", "noop", "presolved"),
    # task_mutations._harmful_actions: a harm reachable only through a declared write never tried, so a frame or
    # guard that lets it through was never seen (the overreach, a frame allowing a record whole or by a shared key,
    # a guarded person messaged by another route, a guarded phrase said in another kind of message)
    _declared(frame_blind, "handoff-frame-allows-all-tickets"),
    _declared(frame_blind, "phone-contact-allowed-whole-1"),
    _declared(frame_blind, "silent-alert-ticket-allowed-whole-1"),
    _declared(frame_key_shared, "triage-by-status-5"),
    _declared(frame_key_shared, "pause-by-schedule-1"),
    _declared(guard_wrong_app, "namesake-dm-guard-1"),
    _declared(guard_wrong_app, "namesake-contact-guard-1"),
    _declared(guard_wrong_app, "phrase-kept-out-of-chat_send_dm-incident_investigate_fix-1"),
    # every write tool given declared, so a guard's tool and its other routes are declared too (the spec seen through
    # its bindings with its matchers on their ops: `as_builtin(spec, matchers=True)`):
    # _guard_evasions: a declared guard's record deleted (also measured, outside the corpus for test time: overwritten,
    # closed by another value, its person told by another app, its config rolled back; docs/verifier.md, defects97)
    _declared(guard_deletion_evades, "healthy-job-deleted", every=True),
    # _guard_routes: a declared guard's person reached by a batch (one more recipient beside them)
    _declared(guard_batch_evades, "mail-to-two-inbox-1", every=True),
    # _spelling: a turn condition on a declared DM matching only the reference's spelling of the person
    _declared(spelling_pinned, "delegate-answers-only-by-handle", every=True),
    # _undone: a `called` check crediting a declared write taken back
    _declared(undone_write, "triage-assignee-undone", every=True),
    # task_mutations._said_elsewhere: a phrase a guard on a declared message tool keeps out of it, said in another kind
    # of message the reference sends (also measured, outside the corpus: the other five phrase defects of the class)
    _declared(guard_wrong_app, "phrase-kept-out-of-contacts_send_message-contact_phone_update-2", every=True),
    # mutation_gate's asked_recipient: a declared reply the request asks for, checked as a read of the conversation
    _declared(answer_read_not_written, "lookup_answer_source-read-for-answer-1", "mutations", "asked_message_unchecked",
              every=True),
]
