"""Reply checks bound to a turn that read a value the world changes after that turn.

`reply_states` and a text check's `number.source` read the final state, whatever turn they judge. Where the check
is bound to turn t and a later turn's `changes` (the world's own change between turns: a person goes on leave, a
release is rolled out again) set the field it reads to another value, the reply of turn t is judged against a value
that did not exist when the agent gave it: the honest answer fails, and only a reference that knew the future passes.
A check bound to no turn (`reply_states`, or a text check on `replies` or `all`) judges every reply of a task of
several turns against the final state: it is judged as bound to the last turn whose reference reply states the value
it wants (where the reference answers), so the answer given before a later change is caught the same way.
Judged on the spec alone where the turns' changes name what they set; the world's rules (on the clock or on an
action) and the reference's own later writes change it too, which only an episode shows: the reference is replayed up
to the end of turn t (`turn_end_reads`) and the field compared with the reference's final value.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from coworkenv.agents import OraclePolicy
from coworkenv.checks import MISSING, render_value, resolve, states_number, states_value
from coworkenv.checks.text import number_is_bound, number_names_label
from coworkenv.env import Env
from coworkenv.rollout import run_episode
from coworkenv.spec import DeleteRecord, EnvSpec, FieldRef, PutRecord, ReplyStatesRule, TextRule, UpdateRecord
from coworkenv.validate._check_reads import spec_rules

_MISSING = object()


def later_state_reads(spec: EnvSpec) -> Iterator[tuple[int, FieldRef, int, int]]:
    """(check index, the field it reads, the turn it judges, the later turn whose changes set that field)."""
    for i, source, turn in turn_bound_reads(spec, lambda ref: _after_changes(spec, ref)):
        before = _initial(spec, source)
        for later in range(turn + 1, len(spec.turns)):
            if any(_sets(change, source, before) for change in spec.turns[later].changes):
                yield i, source, turn, later
                break


def _initial(spec: EnvSpec, ref: FieldRef) -> Any:
    for rec in getattr(getattr(spec.world.apps, ref.app, None), ref.table, None) or []:
        if rec.id == ref.id:
            return getattr(rec, ref.field, _MISSING)
    return _MISSING


def _sets(change: Any, ref: FieldRef, before: Any) -> bool:
    """Whether a turn's change gives the field another value than the world started with."""
    if getattr(change, "app", None) != ref.app or getattr(change, "table", None) != ref.table:
        return False
    if isinstance(change, UpdateRecord):
        return change.id == ref.id and ref.field in change.set and change.set[ref.field] != before
    if isinstance(change, PutRecord):
        return change.record.get("id") == ref.id and change.record.get(ref.field, _MISSING) != before
    return isinstance(change, DeleteRecord) and getattr(change, "id", None) == ref.id


def _after_changes(spec: EnvSpec, ref: FieldRef) -> Any:
    """The field's value once every turn's changes are applied to the world's (the rules and the agent aside)."""
    value = _initial(spec, ref)
    for turn in spec.turns:
        for change in turn.changes:
            if getattr(change, "app", None) != ref.app or getattr(change, "table", None) != ref.table:
                continue
            if isinstance(change, UpdateRecord) and change.id == ref.id and ref.field in change.set:
                value = change.set[ref.field]
            elif isinstance(change, PutRecord) and change.record.get("id") == ref.id:
                value = change.record.get(ref.field, _MISSING)
            elif isinstance(change, DeleteRecord) and getattr(change, "id", None) == ref.id:
                value = _MISSING
    return value


def _states(rule: ReplyStatesRule | TextRule, text: str, value: Any) -> bool:
    """Whether `text` states `value` as the check would read it."""
    if value is _MISSING or value is MISSING:
        return False
    if isinstance(rule, ReplyStatesRule):
        wanted = [w.lower() for w in render_value(value, rule.format) if w.strip()]
        return bool(wanted) and all(states_value(text, w) for w in wanted)
    assert rule.number is not None
    try:
        expected = float(value)
    except (TypeError, ValueError):
        return False
    return states_number(text, expected, rule.number, number_is_bound(rule), number_names_label(rule))


def answering_turn(spec: EnvSpec, rule: ReplyStatesRule | TextRule, value: Any) -> int | None:
    """For a reply check bound to no turn that reads every reply of a task of several turns: the last turn whose
    reference reply states `value` (where the reference answers); None where the check reads the last reply only, or
    no reply states it."""
    if len(spec.turns) < 2 or (isinstance(rule, TextRule) and rule.scope == "final"):
        return None
    answered = [t for t, turn in enumerate(spec.reference[:len(spec.turns)])
                if _states(rule, "\n".join(step.say for step in turn.steps if step.say), value)]
    return answered[-1] if answered else None


def turn_bound_reads(spec: EnvSpec, final: Callable[[FieldRef], Any] | None = None,
                     ) -> Iterator[tuple[int, FieldRef, int]]:
    """(check index, the field it reads, the turn it judges) of each reply check bound to a turn, and, given the
    field's `final` value, of each bound to none, judged at the turn that answers it (`answering_turn`)."""
    for i, _, _, rule in spec_rules(spec.checks):  # a tier's rule too
        source: FieldRef | None = None
        if isinstance(rule, ReplyStatesRule):
            source = rule.source
        elif isinstance(rule, TextRule) and rule.number is not None:
            source = rule.number.source
        turn = getattr(rule, "turn", None)
        if source is not None and turn is None and final is not None:
            assert isinstance(rule, ReplyStatesRule | TextRule)
            turn = answering_turn(spec, rule, final(source))
        if source is not None and turn is not None:
            yield i, source, turn


def turn_end_reads(spec: EnvSpec, final: Callable[[FieldRef], Any]) -> Iterator[tuple[int, FieldRef, int, Any, Any]]:
    """(check index, field, turn, the value when turn t ended, the final value) of each reply check bound to a turn
    before the last whose field the reference's replay up to the end of that turn leaves at another value than
    `final` gives: something after the reply (a rule due on the clock or answering an action, a later turn's change,
    the reference's own later write) set it. One replay per judged turn."""
    bound: dict[int, list[tuple[int, FieldRef]]] = {}
    for i, source, turn in turn_bound_reads(spec, final):
        if turn < min(len(spec.turns), len(spec.reference)) - 1:
            bound.setdefault(turn, []).append((i, source))
    for turn, reads in sorted(bound.items()):
        cut = spec.model_copy(update={"turns": spec.turns[:turn + 1], "reference": spec.reference[:turn + 1]})
        env = Env(cut)
        try:
            run_episode(env, OraclePolicy(cut))
        except Exception:  # the full reference's own failure is the oracle gate's to report
            continue
        for i, source in reads:
            then, last = resolve(env.state, source), final(source)
            if then != last:
                yield i, source, turn, then, last


def later_literals(spec: EnvSpec) -> Iterator[tuple[int, int, str, str, Any, Any]]:
    """(check index, turn, term, the changed field's path, its value when turn t ended, its final value) for each term
    of a text check bound to a turn before the last that states a record field's final value, which the field's value
    at the end of that turn does not hold: the writer took the answer from the final world, which the agent could not see when it replied. One
    replay of the whole reference and one cut after each judged turn, only for specs with such checks."""
    last = min(len(spec.turns), len(spec.reference)) - 1
    bound: dict[int, list[tuple[int, list[str]]]] = {}
    for i, _, _, rule in spec_rules(spec.checks):
        if isinstance(rule, TextRule) and rule.turn is not None and rule.turn < last:
            terms = [t for term in [*rule.all_of, *rule.any_of] for t in ([term] if isinstance(term, str) else term)]
            if terms:
                bound.setdefault(rule.turn, []).append((i, terms))
    if not bound:
        return
    final = _replayed(spec)
    if final is None:
        return
    for turn, judged in sorted(bound.items()):
        then = _replayed(spec.model_copy(update={"turns": spec.turns[:turn + 1],
                                                 "reference": spec.reference[:turn + 1]}))
        if then is None:
            continue
        for path, before, after in _moved_fields(then, final):
            for i, terms in judged:
                for term in terms:
                    if _states_only_later(term, before, after):
                        yield i, turn, term, path, before, after


def _replayed(spec: EnvSpec) -> Any:
    """The world the reference leaves (None where it cannot run: the oracle gate's to report)."""
    env = Env(spec)
    try:
        run_episode(env, OraclePolicy(spec))
    except Exception:
        return None
    return env.state


def _moved_fields(then: Any, final: Any) -> Iterator[tuple[str, Any, Any]]:
    """(app.table[id].field, value in `then`, value in `final`) of each scalar field that differs, clock stamps aside."""
    seen: set[tuple[str, str, str]] = set()
    for change in [*then.changes(), *final.changes()]:
        key = (change.app, change.table, change.id)
        if key in seen:
            continue
        seen.add(key)
        old, new = (w.table(change.app, change.table).get(change.id) for w in (then, final))
        if old is None or new is None:
            continue
        a, b = old.model_dump(mode="json"), new.model_dump(mode="json")
        for name, value in b.items():
            if name in _CLOCK_FIELDS or isinstance(value, dict | list) or value == a.get(name):
                continue
            yield f"{change.app}.{change.table}[{change.id}].{name}", a.get(name), value


def _states_only_later(term: str, before: Any, after: Any) -> bool:
    """Whether `term` states the later value, which the earlier one does not hold in its words (a role that gains
    "(on leave until ...)" is still stated by a term wanting only the old role)."""
    wanted = [w.lower() for w in render_value(after, "raw") if w.strip()]
    if before is None or not wanted or not all(states_value(term, w) for w in wanted):
        return False  # (a field the turn's end did not hold at all, a note or a stamp, is no answer it could give)
    earlier = " ".join(render_value(before, "raw"))
    return not all(states_value(earlier, w) for w in wanted)


_CLOCK_FIELDS = frozenset({"ts", "sent_at", "created_at", "updated_at", "modified_at", "at"})
