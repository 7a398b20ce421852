"""Gate 6: every task-relevant mutant of the reference fails; guards fire; incidental writes are found.

A mutant whose outcome equals the reference's (same records modulo clock stamps, same replies) is equivalent:
reported, not counted, except for order mutants (the records may end the same; the order is the mistake).
Surviving context mutants (an optional link to another record changed) are reported as `unchecked_context`.
A dropped write that no check misses is incidental when no check concerns what it changed: it is listed in
`details.incidental` (the strict policy trims it from the reference); otherwise its survival is an error.
A forbidden guard that its own probe does not fire, and a frame guard no harmful mutant fires while some
harmful mutant changed the world, protect nothing (`guard_never_fires`).
An order probe (independent writes the task does not order, done the other way round) must pass: when it fails
only order-sensitive checks (`order`, Python), a check pins an order the task never asks for (`order_unasked`);
where a dynamics rule answers one of the two writes, any check it fails pins the order (`order_pinned_by_rule`).
A completion check naming a new record by the id the reference's run gave it is `created_id_pinned`; a
dynamics rule, turn condition or `called`/`order` check matcher that misses the reference's call once a person or
channel is spelled another way the tool accepts is `spelling_pinned`; so is a forbidden guard whose matcher misses
that other spelling, and one whose mail reaches the person through the other recipient field is
`guard_bypassed` (see `_guard_routes`). A write done by the app's destructive tool instead (the task's record
deleted or cancelled) that still passes is `wrong_route`. A write the reference makes after the user
answered a question that still passes when made before the answer is `acts_before_answer`. A state check on a record
the task leaves alone that still holds once the record is deleted (a negation, a count of 0), where the agent is given
the app's delete tool, is `guard_holds_deleted` (see `_deleted_guards`). A `count 0` check picking its records by a
value the agent can write, which a harmed record leaves by a second write (reassigned, moved to another list), is
`guard_scope_left` (see `_scope_exits`); a guard's count of as many as there are picked alike, which a record moved in
makes up for a harmed one leaving, is `guard_scope_refilled` (the same module).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable
from itertools import chain
from typing import Any

from coworkenv.checks import MISSING, compare
from coworkenv.env import base_world
from coworkenv.spec import CalledRule, FieldRule, ForbiddenRule, OrderRule, PythonRule, RecordsRule
from coworkenv.spec_regex import PatternRefused, PatternTimeout
from coworkenv.validate._asked_facts import ASKED_GROUP
from coworkenv.validate._asked_messages import asked_link, asked_recipient
from coworkenv.validate._check_reads import nested_rules, rule_kind, spec_rules
from coworkenv.validate._claimed_writes import claimed_write
from coworkenv.validate._created_ids import pinned_created_ids
from coworkenv.validate._declared_calls import Builtin, as_builtin
from coworkenv.validate._declared_routes import declared_respellings
from coworkenv.validate._deleted_guards import deleted_guards
from coworkenv.validate._early_action import early_actions, slow_early_actions
from coworkenv.validate._emptied_values import EMPTIED_GROUP, emptied_reads
from coworkenv.validate._episodes import EpisodeOutcome
from coworkenv.validate._guard_effects import same_effect_guards
from coworkenv.validate._guard_evasions import evaded_guards
from coworkenv.validate._guard_phrases import respelled_phrases
from coworkenv.validate._guard_routes import bypassed_guards
from coworkenv.validate._late_turn import late_turns
from coworkenv.validate._like_writes import like_writes_unchecked
from coworkenv.validate._list_order import reordered_lists
from coworkenv.validate._made_edits import made_edits_unchecked
from coworkenv.validate._named_writes import named_write
from coworkenv.validate._note_values import NOTE_GROUP, moved_reads
from coworkenv.validate._nulled_values import NULLED_GROUP, nulled_reads
from coworkenv.validate._numerals import digit_counts, spelled_numbers
from coworkenv.validate._open_scopes import lands_in_scope
from coworkenv.validate._other_values import other_value_guards
from coworkenv.validate._pace import Paced, slower_agents
from coworkenv.validate._paced_counts import paced_counts
from coworkenv.validate._padded_values import PADDED_GROUP, padded_reads
from coworkenv.validate._python_tolerance import python_admitted_numbers
from coworkenv.validate._refused_calls import (
    credited_attempts,
    credited_drafts,
    credited_elsewhere,
    sent_drafts_unchecked,
)
from coworkenv.validate._scope_exits import scope_exits
from coworkenv.validate._spelling import respelled_writes
from coworkenv.validate._subject_moves import SUBJECT_GROUP, subject_read
from coworkenv.validate._undone import created_writes, inverse_writes, undone_writes
from coworkenv.validate._units import converted_units
from coworkenv.validate._user_formats import UserFormatted, shown_text, user_formats
from coworkenv.validate._user_spelling import UserSpelled, told_spellings, user_spellings
from coworkenv.validate._user_zones import stale_offsets, user_zones
from coworkenv.validate.episode_gates import _blocked, is_guard
from coworkenv.validate.gates import GateContext, GateError, GateResult, gate_result
from coworkenv.validate.mutations import Mutation, step_of
from coworkenv.world import World


def mutations_gate(ctx: GateContext) -> GateResult:
    """Gate 6: every core mutant fails a required check (mutation score 1.0) and every guard can fire."""
    blocked = _blocked("mutations", ctx)
    if blocked is not None:
        return blocked
    episodes = ctx.episodes()
    assert episodes is not None
    oracle = episodes.oracle()
    results = ctx.mutation_outcomes()
    errors: list[GateError] = []
    equivalent: list[str] = []
    unchecked_context: list[str] = []
    incidental: list[str] = []
    killed = 0
    by_kind: dict[str, list[int]] = {}
    kinds_by_id = {c.id: rule_kind(c.rule) for c in ctx.spec.checks}  # an `order` check's failure is the order probe's to judge
    probes: dict[str, list[tuple[Mutation, bool]]] = {}
    dropped_passes = {m.path for m, o in results if m.kind == "drop_write" and o.result is not None and o.passed}
    view = as_builtin(ctx.spec, matchers=True)  # declared writes as their ops, for the pieces that know built-ins only
    seen = ctx.spec if view is None else view.spec
    for mutation, outcome in results:
        if mutation.kind == "guard_probe":
            dead = _dead_target(ctx, mutation, outcome)
            if dead is not None:
                errors.append(GateError("mutations", "guard_never_fires", mutation.path,
                                        f"{mutation.description} fails on its own ({dead}): the guard forbids harm "
                                        "to something that does not exist"))
            elif not _fires(outcome, mutation.targets):
                errors.append(GateError("mutations", "guard_never_fires", mutation.path,
                                        f"{mutation.description} does not make the guard fail"))
            continue
        if mutation.code == "order_pinned_by_rule":
            undone = [c for c in _failed_anew(oracle, outcome) if kinds_by_id.get(c) != "order"]
            if undone:
                errors.append(GateError("mutations", mutation.code, mutation.path,
                                        f"{mutation.description} fails {', '.join(undone)}: a dynamics rule the one "
                                        "write sets off undoes the other, so the verdict pins the reference's order, "
                                        "which the task does not ask for"))
            continue
        if mutation.kind == "order_probe":
            pinned = _order_only_failures(ctx, outcome)
            if pinned:
                errors.append(GateError("mutations", "order_unasked", mutation.path,
                                        f"{mutation.description} fails {', '.join(pinned)}: the checks pin an order "
                                        "the task does not ask for, so an honest agent doing it the other way fails"))
            continue
        if mutation.kind in ("wrong_route", "created_instead") and (any(not e.ok for e in outcome.audit if e.tool in mutation.targets)
                                               or mutation.path in dropped_passes):
            continue  # the other tool refused the call, or the write is not needed: drop_write judges those
        survived = outcome.result is not None and outcome.passed
        if survived and mutation.code == "frame_scope_open" and not lands_in_scope(mutation, outcome.signature,
                                                                                   oracle.signature):
            continue  # the extra write made no record of the open selector's table: another selector allowed it
        if mutation.group:  # one item of a list left out: judged with the list's other items below
            probes.setdefault(mutation.group, []).append((mutation, survived))
            continue
        overwritten: int | None = None
        if survived and mutation.equivalence and outcome.signature == oracle.signature:
            overwritten = _turn_left_otherwise(outcome, oracle)
            if overwritten is None:
                equivalent.append(mutation.description)
                continue
        if not mutation.core:
            link = asked_link(ctx.spec, mutation.path) if survived else None
            if link is not None:
                errors.append(GateError("mutations", "asked_link_unchecked", mutation.path,
                                        f"{mutation.description} passes every required check, and the request asks "
                                        f"for the {link}: check which record is linked"))
            elif survived:
                unchecked_context.append(f"{mutation.path}: {mutation.description}")
            continue
        if survived and mutation.kind == "drop_write" and not _concerned(ctx, outcome, oracle, mutation):
            t, s = step_of(mutation.path)
            call = seen.reference[t].steps[s].call  # a declared write as the op call it makes
            asked = asked_recipient(ctx.spec, t, call) if call is not None else None
            kept = _kept_by_guard(ctx, outcome, oracle, call) if asked is None and call is not None else None
            if kept is not None:
                errors.append(GateError("mutations", "guarded_write_unchecked", mutation.path, kept))
                continue
            named = _named_by_instructions(ctx, outcome, oracle, call) if asked is None and call is not None else None
            if named is not None:
                errors.append(GateError("mutations", "named_write_unchecked", mutation.path, named))
                continue
            claimed = claimed_write(ctx.spec, call, _changed(outcome, oracle)) if asked is None and call else None
            if claimed is not None:
                errors.append(GateError("mutations", "claimed_write_unchecked", mutation.path, claimed))
                continue
            if asked is None:
                incidental.append(mutation.path)
                continue
            errors.append(GateError("mutations", "asked_message_unchecked", mutation.path,
                                    f"{mutation.description}: the request asks for a message to {asked}, and no "
                                    "check reads what it says (a check that the conversation was read is not one): "
                                    "check the message's content"))
            continue
        tally = by_kind.setdefault(mutation.kind, [0, 0])
        tally[1] += 1
        if not survived:
            killed += 1
            tally[0] += 1
        elif overwritten is not None and mutation.code != "harm_erased_by_world":  # its own hint: forbid the call
            errors.append(GateError("mutations", "overwritten_turn_unchecked", mutation.path,
                                    f"near miss ({mutation.kind}) passes every required check: "
                                    f"{mutation.description}; it ends in the reference's final state, but turn "
                                    f"{overwritten} ends otherwise and a later turn overwrites it, so no check reads "
                                    "that turn's result: check it as the turn leaves it (e.g. a rule that marks the "
                                    "turn's result while the next turn's news is not there, and a check on the mark)"))
        else:
            errors.append(GateError("mutations", mutation.code, mutation.path,
                                    f"near miss ({mutation.kind}) passes every required check: "
                                    f"{mutation.description}"))
    killed_drops = [m.path for m, o in results if m.kind == "drop_write" and not (o.result is not None and o.passed)]
    like = like_writes_unchecked(ctx.spec, incidental, killed_drops)  # one of like writes left unchecked
    errors += like
    incidental = [p for p in incidental if p not in {e.path for e in like}]
    answered = {m.path for m, o in results if m.kind == "text_drop" and not m.group and m.path.endswith(".say")
                and o.result is not None and not o.passed}  # the `no answer` near misses that fail a check
    initial = base_world(ctx.spec)  # the world before the episode, for the rewrites below

    def routes() -> list[GateError]:
        # the guards' routes judged on the calls alone, on the spec seen through its bindings (a declared write's
        # guard as its op's; `declared_respellings` reads a declared guard's own spellings)
        found = _once([*bypassed_guards(seen, episodes.env.state), *declared_respellings(ctx.spec, episodes.env.state),
                       *evaded_guards(seen, initial)])  # the world before any episode: its active configs, not a mutant's
        return found + same_effect_guards(seen, found)

    # The rest of the gate's findings, each part played (its own replays) in turn: a validation that stops at an error
    # (`GateContext.stop`) leaves the parts after the one that gives it, and reports what the parts before gave.
    parts: list[Callable[[], Iterable[GateError]]] = [
        lambda: _unread_items({g: ms for g, ms in probes.items()
                               if not g.startswith((ASKED_GROUP, SUBJECT_GROUP, NOTE_GROUP, PADDED_GROUP, EMPTIED_GROUP,
                                                     NULLED_GROUP))}),
        lambda: [GateError("mutations", m.code, m.path, why)  # a body's facts admitted from the subject (hunt146)
                 for m, why in subject_read({g: ms for g, ms in probes.items() if g.startswith(SUBJECT_GROUP)})],
        lambda: [GateError("mutations", m.code, m.path, why)  # a written value read from the call's note (hunt149)
                 for m, why in moved_reads({g: ms for g, ms in probes.items() if g.startswith(NOTE_GROUP)})],
        lambda: [GateError("mutations", m.code, m.path, why)  # a written value read as a substring (defects151)
                 for m, why in padded_reads({g: ms for g, ms in probes.items() if g.startswith(PADDED_GROUP)})],
        lambda: [GateError("mutations", m.code, m.path, why)  # a written value admitted or empty (hunt157)
                 for m, why in emptied_reads({g: ms for g, ms in probes.items() if g.startswith(EMPTIED_GROUP)})],
        lambda: [GateError("mutations", m.code, m.path, why)  # a written value admitted or null (hunt159)
                 for m, why in nulled_reads(results, oracle)],
        lambda: _unread_asked({g: ms for g, ms in probes.items() if g.startswith(ASKED_GROUP)}, answered),
        lambda: _silent_frames(ctx, results, oracle),
        lambda: pinned_created_ids(ctx.spec, episodes.created),
        lambda: _pinned_spellings(ctx, view),
        lambda: _pinned_cases(ctx, initial),
        lambda: _pinned_formats(ctx, initial),
        lambda: _pinned_zones(ctx, initial),
        lambda: _pinned_seasons(ctx, initial),
        lambda: _pinned_pace(ctx),
        lambda: _pinned_lists(ctx, initial),
        lambda: _pinned_numerals(ctx),
        lambda: _pinned_digits(ctx),
        lambda: _pinned_units(ctx),
        routes,
        lambda: respelled_phrases(seen),
        lambda: deleted_guards(ctx.spec, initial, episodes.touched, episodes.created),  # a check a deletion meets
        lambda: other_value_guards(ctx.spec, initial, episodes.oracle_entities.changed if episodes.oracle_entities
                                   else {}, episodes.touched, episodes.created),  # a kept field's check naming one value
        lambda: scope_exits(ctx.spec, initial, episodes.touched, episodes.created),  # a none-count left by a write
        lambda: _early_acts(ctx),
        lambda: _late_acts(ctx),
        lambda: _undone(ctx, initial, dropped_passes, view),
        lambda: credited_attempts(ctx.spec, episodes, results),  # a refused call credited (`_refused_calls`)
        lambda: credited_elsewhere(ctx.spec, episodes),  # a read of another record credited as the source's
        lambda: credited_drafts(ctx.spec, episodes, results),  # a message saved as a draft credited as sent
        lambda: made_edits_unchecked(ctx.spec, episodes),  # a made record checked only by the call that made it
        lambda: sent_drafts_unchecked(ctx.spec, episodes),  # a draft's words credited as the sent mail's
        lambda: python_admitted_numbers(ctx.spec, episodes),  # a Python check's tolerance admits another number
    ]
    stopped = ctx.stop is not None and any(map(ctx.stop, errors))
    for k, part in enumerate(parts):
        if stopped:
            break
        errors += part()
        stopped = ctx.stop is not None and any(map(ctx.stop, errors)) and k + 1 < len(parts)
    total = sum(t[1] for t in by_kind.values())
    score = killed / total if total else 1.0
    stop = {"stopped": True} if stopped else {}
    return gate_result("mutations", errors, score=round(score, 6), total=total, killed=killed,
                        by_kind={k: {"killed": v[0], "total": v[1]} for k, v in by_kind.items()},
                        equivalent=equivalent, unchecked_context=unchecked_context, incidental=incidental, **stop)


def _unread_items(probes: dict[str, list[tuple[Mutation, bool]]]) -> list[GateError]:
    """A list's items each left out (a Python grader's reads are unknown): where leaving one item out fails a check,
    the grader reads the list, so an item whose leaving out passes every check is unchecked. A list no probe of
    which fails is not what the checks grade (a summary's incidental names): nothing is said."""
    errors: list[GateError] = []
    for group in probes.values():
        read = [m for m, survived in group if not survived]
        if not read:
            continue
        for m, survived in group:
            if survived:
                errors.append(GateError("mutations", m.code, m.path,
                                        f"near miss ({m.kind}) passes every required check: {m.description}, "
                                        f"while {read[0].description.split(': ', 1)[-1]} fails one: the checks read "
                                        "the list but not this item"))
    return errors


def _unread_asked(probes: dict[str, list[tuple[Mutation, bool]]], answered: set[str]) -> list[GateError]:
    """An answer without what its request asks for (`_asked_facts.asked_probes`): where no answer at all fails a
    check, the checks read the answer, so asked facts whose leaving out passes every check are unchecked. Where no
    answer passes too, `content_unchecked` already names the answer."""
    return [GateError("mutations", m.code, m.path,
                      f"near miss ({m.kind}) passes every required check: {m.description}, while no answer fails "
                      "one: the checks read the answer but none of what the request asks for")
            for group in probes.values() for m, survived in group if survived and m.path in answered]


def _fires(outcome: EpisodeOutcome, targets: tuple[str, ...]) -> bool:
    if outcome.result is None:
        return False
    return any(not c.passed for c in outcome.result.checks if c.id in targets)


def _early_acts(ctx: GateContext) -> list[GateError]:
    """`acts_before_answer` for each write the reference makes after the user answered a question, where the
    reference with that write made before the answer still passes (the checks reward a right guess); also where it
    passes only made after more reads, still before the answer (a window on the write's stamp that ends at the
    reference's pace, not at the answer: `slow_early_actions`)."""
    episodes = ctx.episodes()
    assert episodes is not None
    errors: list[GateError] = []
    found_at: set[str] = set()
    oracle = episodes.oracle()
    for found in chain(early_actions(ctx.spec), slow_early_actions(ctx.spec, oracle.audit)):
        if found.path in found_at:
            continue  # one finding a write: its plain early replay already passed
        if found.plain is not None:
            at_pace = episodes.mutant(found.plain, lazy=True)
            if at_pace.result is None or at_pace.result.passed:
                continue  # passes early at any pace (or not at all): not a window pinned to the pace
        outcome = episodes.mutant(found.reference, keep_reads=found.plain is not None,  # the reads move the clock
                                   lazy=True)
        if outcome.result is not None and outcome.result.passed:
            found_at.add(found.path)
            errors.append(GateError("mutations", "acts_before_answer", found.path,
                                    f"{found.description} still passes: an agent that guesses and acts before the "
                                    "answer is rewarded; add a check that the write waited for the answer (a later "
                                    "turn, or a state the answer's turn makes), and end a window on the write's stamp "
                                    "when the answer comes, not when the reference's earlier turn ended"))
    return errors


def _late_acts(ctx: GateContext) -> list[GateError]:
    """`acts_late` for each turn whose writes the world puts back before the next turn, where the reference with those
    writes made once, at the start of the next turn (`late_turns`), still passes: the turn's result is unchecked."""
    episodes = ctx.episodes()
    assert episodes is not None
    errors: list[GateError] = []
    for found in late_turns(ctx.spec):
        outcome = episodes.mutant(found.reference, lazy=True)
        if outcome.result is not None and outcome.result.passed:
            errors.append(GateError("mutations", "acts_late", found.path,
                                    f"{found.description} still passes: the turn's result is checked only once a "
                                    "later turn has redone it; add a check of the earlier turn's own writes (a called "
                                    "check wanting the fix once per turn, or a trace the world leaves only then)"))
    return errors


def _once(errors: list[GateError]) -> list[GateError]:
    """`errors` with one error a code and path (a declared guard's respelling found on the view and on its own)."""
    out, kept = [], set()
    for e in errors:
        if (e.code, e.path) not in kept:
            kept.add((e.code, e.path))
            out.append(e)
    return out


def _on_spec(view: Builtin | None, found: Any) -> Any:
    """A finding built on the view with its reference written back through the bindings (None: it cannot be made)."""
    if view is None:
        return found
    reference = view.reference_back(found.reference)
    return None if reference is None else dataclasses.replace(found, reference=reference)


def _undone(ctx: GateContext, initial: World, dropped_passes: set[str], view: Builtin | None) -> list[GateError]:
    """`undone_unchecked` for each write a completion `called`/`order` check credits where the reference with that
    write taken back at the end (its fields put back, the tool taking them) still passes, and for each write taken
    back by its inverse (a config rolled back, a label taken off, a transfer sent back), and for each record the
    reference creates, removed (an event cancelled, a to-do or file deleted, a ticket closed) or put out of force (a
    to-do ticked off, a job disabled, an article archived), where the reference still passes: a check reads a trace the undo leaves, not the effect (`_undone`)."""
    episodes = ctx.episodes()
    assert episodes is not None
    oracle = episodes.oracle()
    errors = []
    closed: set[str] = set()  # records a closing replay closed: their other closing values are not tried
    seen = ctx.spec if view is None else view.spec  # a declared write as its op (its matchers too)
    for found in chain(undone_writes(seen, initial), inverse_writes(seen, initial),
                       created_writes(seen, episodes.created, episodes.made, episodes.created_values)):
        found = _on_spec(view, found)
        if found is None:
            continue
        if found.path in dropped_passes or found.write_path in dropped_passes or found.record in closed:
            continue
        outcome = episodes.mutant(found.reference, lazy=True)  # its checks' results are not read
        if found.record and outcome.audit and outcome.audit[-1].ok:
            closed.add(found.record)
        if outcome.result is None or not outcome.passed or not outcome.audit or not outcome.audit[-1].ok:
            continue
        if outcome.signature is not None and outcome.signature == oracle.signature:
            continue  # the take-back changed nothing (an assignee of None the tool reads as "leave it"): nothing undone
        errors.append(GateError("mutations", "undone_unchecked", found.path,
                                f"{found.description} still passes: a check credits the call, not its effect, so "
                                "an agent that makes the change and takes it back passes; check the record's field "
                                "in the final state instead"))
    return errors


def _pinned_spellings(ctx: GateContext, view: Builtin | None) -> list[GateError]:
    """`spelling_pinned` (`instant_pinned` for a date-time argument) for each dynamics rule or turn condition the
    reference's write only matches as spelled, where the respelled reference fails a check on the state or the replies
    (not only a call-matcher check), and for each `called`/`order` check whose own matcher misses the respelled write,
    where that check then fails."""
    episodes = ctx.episodes()
    assert episodes is not None
    errors = []
    kinds = {c.id: rule_kind(c.rule) for c in ctx.spec.checks}
    for found in respelled_writes(ctx.spec if view is None else view.spec, episodes.env.state):
        found = _on_spec(view, found)
        if found is None:
            continue
        outcome = episodes.mutant(found.reference)
        if outcome.result is None:
            continue
        failed = [c.id for c in outcome.result.checks if not c.passed and (
            c.id == found.check if found.check is not None else kinds.get(c.id) not in ("called", "order"))]
        if failed and found.what == "time":
            reacts = "the check credits" if found.check is not None else "the world reacts to"
            errors.append(GateError("mutations", "instant_pinned", found.path,
                                    f"{found.description} no longer matches, and the replay fails {', '.join(failed)}: "
                                    f"{reacts} only the reference's spelling of the time, compared as a string; check "
                                    "the record's time in the final state (the tool stores it in UTC) instead"))
        elif failed:
            reacts = "the check credits" if found.check is not None else "the world reacts to"
            errors.append(GateError("mutations", "spelling_pinned", found.path,
                                    f"{found.description} no longer matches, and the replay fails {', '.join(failed)}: "
                                    f"{reacts} only the reference's spelling; match every form (a `where` condition "
                                    "with `in`, or `matches` on every spelling) instead"))
    return errors


def _pinned_cases(ctx: GateContext, initial: World) -> list[GateError]:
    """`case_pinned` for each written value the user spelled in another case or spacing, and each answer or message
    stating a checked value the user or a source read spelled so, where the reference replayed with that spelling,
    taken by the tool, fails a check the reference passes (`_user_spelling`)."""
    episodes = ctx.episodes()
    assert episodes is not None
    told = told_spellings(ctx.spec, shown_text(episodes.oracle().audit, initial))
    return _pinned_user_forms(ctx, [*user_spellings(ctx.spec), *told], "case_pinned",
                              "the check wants the reference's letter case or spacing, not the user's; compare "
                              "case-insensitively (`matches` with `(?i)`) or write the value as the user did")


def _pinned_formats(ctx: GateContext, initial: World) -> list[GateError]:
    """`format_pinned` for each reply or written text holding a date, time, duration, amount, number or phone number
    the user (or a document read) wrote in another format, where the reference replayed with that format fails a check the
    reference passes (`_user_formats`)."""
    episodes = ctx.episodes()
    assert episodes is not None
    shown = shown_text(episodes.oracle().audit, initial)
    return _pinned_user_forms(ctx, user_formats(ctx.spec, initial, shown), "format_pinned",
                              "the check wants the date, time, duration, amount, number or phone number in the "
                              "reference's format, not in the one the user or the source wrote; accept both (a term of "
                              "alternatives, or `matches` on either format)")


def _pinned_zones(ctx: GateContext, initial: World) -> list[GateError]:
    """`zone_pinned` for each reply or message giving a known instant's clock time in another time zone than the
    turn asks that output in (or than its reader's own, where the turn names none), where the reference replayed with
    the time in that zone fails a check the reference passes (`_user_zones`)."""
    return _pinned_user_forms(ctx, user_zones(ctx.spec, initial), "zone_pinned",
                              "the check wants the time in the zone the reference wrote it in, not in the one the "
                              "task asks for (or the reader's own); accept the time in the zone asked for (a term of "
                              "alternatives, or `matches` on either)")


def _pinned_seasons(ctx: GateContext, initial: World) -> list[GateError]:
    """`dst_pinned` for each reply or message giving a known instant's time, labelled with a zone, as the zone reads it
    in the other season (the writer's fixed offset: standard time in summer), where the reference replayed with the
    time as the zone reads it then fails a check the reference passes (`_user_zones`)."""
    return _pinned_user_forms(ctx, stale_offsets(ctx.spec, initial), "dst_pinned",
                              "the check wants the time computed with the zone's offset of the other season (daylight "
                              "saving missed or added), so the agent that gives the right local time fails; want the "
                              "time as the zone reads it on that date")


def _pinned_lists(ctx: GateContext, initial: World) -> list[GateError]:
    """`list_order_pinned` for each reply or message listing records of one kind, in a turn that words no order nor
    sort, where the reference replayed with the list in reverse fails a check the reference passes (`_list_order`)."""
    return _pinned_user_forms(ctx, reordered_lists(ctx.spec, initial), "list_order_pinned",
                              "the check wants the records in the order the reference listed them, which the task "
                              "does not ask for; want each record (a term each, or one `contains` per record)")


def _pinned_numerals(ctx: GateContext) -> list[GateError]:
    """`numeral_pinned` for each reply or message writing a number in words, where the reference replayed with the
    number in digits fails a check the reference passes (`_numerals`)."""
    return _pinned_user_forms(ctx, spelled_numbers(ctx.spec), "numeral_pinned",
                              "the check wants the number spelled out as the reference wrote it, which nobody asked "
                              "for; want the digits or the word (a term of alternatives, or a `number`)")


def _pinned_digits(ctx: GateContext) -> list[GateError]:
    """`digits_pinned` for each reply or message writing a count in digits, where the reference replayed with the
    count in words fails a check the reference passes (`_numerals.digit_counts`)."""
    return _pinned_user_forms(ctx, digit_counts(ctx.spec), "digits_pinned",
                              "the check wants the count in digits as the reference wrote it, so an agent that spells "
                              "it out ('three tickets') fails; want the digits or the word (a term of alternatives, "
                              "or a `number`, which reads counts in words)")


def _pinned_units(ctx: GateContext) -> list[GateError]:
    """`unit_pinned` for each reply or message stating, in another unit, a quantity the reference's reads were shown
    under a key naming its unit, where the reference replayed with the source's unit fails a check the reference
    passes (`_units`)."""
    episodes = ctx.episodes()
    assert episodes is not None
    return _pinned_user_forms(ctx, converted_units(ctx.spec, episodes.oracle().audit), "unit_pinned",
                              "the check wants the quantity converted to the unit the reference chose, which nobody "
                              "asked for; want it as the source gives it too (a term of alternatives)")


def _pinned_pace(ctx: GateContext) -> list[GateError]:
    """`pace_pinned` for each turn where the reference, replayed with a quiet read repeated at the turn's start (the
    clock moving on while a stream adds records), or after the turn's last write where a job runs on the clock (it undoes
    the fix after the reference is done), fails a check the reference passes; and where the reference without its
    quiet reads after a call that starts a delayed effect (the quicker agent) fails one (`_pace`)."""
    paced = list(slower_agents(ctx.spec, ctx.max_steps))
    errors = _pinned_user_forms(ctx, paced, "pace_pinned",
                                "the check reads what the live world adds or changes while the agent works, pinned "
                                "to the reference's pace, so an honest agent that looks a little longer fails; check "
                                "the fix (the record's state), not how many records the world added before it, and "
                                "let no job due on the clock undo the fix the task asks for")
    episodes = ctx.episodes()
    if errors or episodes is None:
        return errors
    return _pinned_user_forms(ctx, paced_counts(ctx.spec, episodes, paced), "pace_pinned",
                              "the reply's number counts records the live world keeps adding while the agent works "
                              "(a stream's log lines), and the check wants the count the reference's pace left, so an "
                              "honest agent that looks a little longer and states what it saw fails; ask for a count "
                              "no pace changes (a closed window), or check it against the world the agent saw")


def _pinned_user_forms(ctx: GateContext, found_all: Iterable[UserSpelled | UserFormatted | Paced], code: str,
                       why: str) -> list[GateError]:
    """`code` for each replay (written as the user wrote it, or at another pace) that the tool took and that fails a
    check the reference passes."""
    episodes = ctx.episodes()
    assert episodes is not None
    oracle = episodes.oracle()
    if oracle.result is None:
        return []
    passed = {c.id for c in oracle.result.checks if c.passed}
    errors = []
    for found in found_all:
        outcome = episodes.mutant(found.reference)
        if outcome.result is None or any(not e.ok for e in outcome.audit if e.tool == found.tool):
            continue
        if getattr(found, "calls_must_succeed", False) and sum(not e.ok for e in outcome.audit) > sum(
                not e.ok for e in oracle.audit):
            continue
        failed = [c.id for c in outcome.result.checks if not c.passed and c.id in passed]
        if failed:
            errors.append(GateError("mutations", code, found.path,
                                    f"{found.description} fails {', '.join(failed)}: {why}"))
    return errors


def _failed_anew(oracle: EpisodeOutcome, outcome: EpisodeOutcome) -> list[str]:
    """The checks the reference passes that `outcome` fails (none where either episode did not run)."""
    if outcome.result is None or oracle.result is None:
        return []
    passed = {c.id for c in oracle.result.checks if c.passed}
    return [c.id for c in outcome.result.checks if not c.passed and c.id in passed]


def _order_only_failures(ctx: GateContext, outcome: EpisodeOutcome) -> list[str]:
    """The failed checks of an order probe when every one is order-sensitive (an `order` or Python rule); empty
    when it passed or when a state or reply check failed too (then the order changed the outcome)."""
    if outcome.result is None or outcome.passed:
        return []
    sensitive = {c.id for c in ctx.spec.checks  # every rule of the check (its tiers') order-sensitive
                 if all(isinstance(r, OrderRule | PythonRule) for _, r in nested_rules(c.rule))}
    failed = [c.id for c in outcome.result.checks if not c.passed]
    if all(i in sensitive for i in failed):
        return failed
    return []


Key = tuple[str, str, str]
# How tools say that a record, file or person does not exist (`Toolkit.require`: "no ticket with id ...").
_MISSING_TARGET = re.compile(r"^no \w|\b(not found|does not exist|doesn't exist|unknown \w+)\b", re.IGNORECASE)


def _dead_target(ctx: GateContext, mutation: Mutation, outcome: EpisodeOutcome) -> str | None:
    """The tool's error when the probe's call (the episode's last) failed because a value the guard itself names
    does not exist ("no service with id 'svc_api'"); None otherwise."""
    if not outcome.audit or outcome.audit[-1].ok:
        return None
    error = outcome.audit[-1].error or ""
    if _MISSING_TARGET.search(error) is None:
        return None
    named = [str(v).lower() for c in ctx.spec.checks if c.id in mutation.targets for _, rule in nested_rules(c.rule)
             if isinstance(rule, ForbiddenRule) for v in _leaves(rule.call.args) if isinstance(v, str | int) and str(v)]
    quoted = error.lower()
    # The missing thing must be the guard's own value, quoted whole ("no service with id 'svc_api'"), not a
    # value the probe made up around it ("no config version 1 of svc-api").
    return error if any(f"'{v}'" in quoted or f'"{v}"' in quoted for v in named) else None


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [x for v in value.values() for x in _leaves(v)]
    if isinstance(value, list):
        return [x for v in value for x in _leaves(v)]
    return [value]


def _changed(outcome: EpisodeOutcome, oracle: EpisodeOutcome) -> dict[Key, dict[str, Any]]:
    """Records whose final value differs between a (passing) mutant and the reference, with their fields in
    whichever of the two worlds has them."""
    mine = {(a, t, i): v for a, t, i, v in (outcome.signature or ((), ()))[0]}
    theirs = {(a, t, i): v for a, t, i, v in (oracle.signature or ((), ()))[0]}
    out = {}
    for key in mine.keys() | theirs.keys():
        if mine.get(key) != theirs.get(key):
            frozen = theirs.get(key) or mine.get(key)
            out[key] = dict(frozen) if isinstance(frozen, tuple) else {}
    return out


def _near_match(record: dict[str, Any], rule: RecordsRule) -> bool:
    """Whether a record meets every condition of a records rule but at most one (the rule is about it)."""
    try:
        misses = sum(not compare(record.get(c.field.split(".")[0], MISSING), c.op, c.value) for c in rule.where)
    except (PatternTimeout, PatternRefused):  # a pattern too slow on the record: the rule may be about it
        return True
    return misses <= 1


def _concerned(ctx: GateContext, outcome: EpisodeOutcome, oracle: EpisodeOutcome, mutation: Mutation) -> bool:
    """Whether a non-guard check reads what the dropped write changed, or matches its tool."""
    changed = _changed(outcome, oracle)
    t, s = step_of(mutation.path)
    call = ctx.spec.reference[t].steps[s].call
    tool = call.name if call is not None else ""
    for _, check, _, rule in spec_rules(ctx.spec.checks):  # a tier's rule too
        if is_guard(check):
            continue
        if isinstance(rule, FieldRule) and (rule.target.app, rule.target.table, rule.target.id) in changed:
            return True
        if isinstance(rule, RecordsRule) and any(
                (a, tb) == (rule.app, rule.table) and _near_match(fields, rule) for (a, tb, _), fields in changed.items()):
            return True
        if isinstance(rule, CalledRule) and rule.call.tool == tool:
            return True
        if isinstance(rule, OrderRule) and tool in (rule.first.tool, rule.then.tool):
            return True
        if isinstance(rule, PythonRule):
            return True
    return False


def _kept_by_guard(ctx: GateContext, outcome: EpisodeOutcome, oracle: EpisodeOutcome, call: Any) -> str | None:
    """Why a dropped write no check concerns is not incidental (None where it is): it passes a field of a record it
    changes whose value a guard holds (a triaged ticket's priority kept at `p3`), so the spec reads that record, and
    the other fields it changes (the assignee) no check reads. The write is part of the task, and the check on
    what it changes was lost or moved to another field or call (a count of comments for the assignee): an agent
    leaving the record alone passes."""
    changed = _changed(outcome, oracle)
    args = {str(k).split(".")[0] for k in call.arguments}
    for _, check, _, rule in spec_rules(ctx.spec.checks):
        if not (is_guard(check) and isinstance(rule, FieldRule)):
            continue
        key = (rule.target.app, rule.target.table, rule.target.id)
        field = rule.target.field.split(".")[0]
        if key not in changed or field not in args:
            continue
        theirs = {(a, t, i): v for a, t, i, v in (oracle.signature or ((), ()))[0]}.get(key)
        mine = {(a, t, i): v for a, t, i, v in (outcome.signature or ((), ()))[0]}.get(key)
        before, after = dict(mine) if isinstance(mine, tuple) else {}, dict(theirs) if isinstance(theirs, tuple) else {}
        lost = sorted(k for k in args & set(after) if k != field and before.get(k) != after.get(k))
        if lost:
            return (f"dropping {call.name} passes every required check: it writes {key[2]}'s {field}, which guard "
                    f"{check.id!r} holds, and changes its {', '.join(lost)}, which no check reads: check what the "
                    "write changes on that record, not another field or call")
    return None


def _named_by_instructions(ctx: GateContext, outcome: EpisodeOutcome, oracle: EpisodeOutcome,
                           call: Any) -> str | None:
    """Why a dropped write no check concerns is not incidental (None where it is): it puts on a record that was
    there without it a value the agent is told or shown (`_named_writes`), so the request asks for it, and the checks
    that should read it were swapped for stand-ins (a count of calls, another record's field)."""
    mine = {(a, t, i): v for a, t, i, v in (outcome.signature or ((), ()))[0]}
    theirs = {(a, t, i): v for a, t, i, v in (oracle.signature or ((), ()))[0]}
    for key in _changed(outcome, oracle):
        # the record as the mutant left it: changed there, or else as the world put it (the signature holds only
        # what the episode changed)
        before = dict(mine[key]) if isinstance(mine.get(key), tuple) else _put_record(ctx, key)
        after = theirs.get(key)
        if before is None or not isinstance(after, tuple):
            continue  # created or removed by the write: not a value put on a record
        named = named_write(ctx.spec, call, before, dict(after))
        if named is not None:
            return (f"dropping {call.name} passes every required check, though it puts {key[2]}'s {named}, which "
                    "the instructions ask for: check what the write changes on that record, not a count of calls or "
                    "another record's field")
    return None


def _put_record(ctx: GateContext, key: Key) -> dict[str, Any] | None:
    """The record `key` as the spec's world puts it (None where it does not)."""
    app, table, rid = key
    for record in getattr(getattr(ctx.spec.world.apps, app, None), table, None) or []:
        if getattr(record, "id", None) == rid:
            return record.model_dump(mode="json")  # type: ignore[no-any-return]
    return None


def _turn_left_otherwise(outcome: EpisodeOutcome, oracle: EpisodeOutcome) -> int | None:
    """The first turn at whose end a mutant with the reference's final outcome left the world otherwise (None: none).

    The final signature sees only what the last turn left; a turn's result that a later turn overwrites (a booking
    the next turn moves) differs only at that turn's end, where nothing of the reference's is reached yet either.
    """
    if outcome.turn_ends is None or oracle.turn_ends is None:
        return None
    for turn, (mine, theirs) in enumerate(zip(outcome.turn_ends, oracle.turn_ends, strict=False)):
        if mine != theirs:
            return turn
    return None


def _silent_frames(ctx: GateContext, results: list[tuple[Mutation, EpisodeOutcome]],
                   oracle: EpisodeOutcome) -> list[GateError]:
    harmful = [o for m, o in results if m.kind == "harmful_action" and o.result is not None
               and (not o.passed or o.signature != oracle.signature)]
    if not harmful:
        return []
    errors = []
    for i, check in enumerate(ctx.spec.checks):
        if rule_kind(check.rule) == "frame" and not any(_fires(o, (check.id,)) for _, o in results):
            errors.append(GateError("mutations", "guard_never_fires", f"checks[{i}]",
                                    f"frame check {check.id!r} holds under every harmful action the gates tried"))
    return errors
