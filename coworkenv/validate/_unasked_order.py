"""Order probes: two independent writes of one turn done the other way round, where the task states no order.

A check that pins the order of two writes (an `order` rule, or a Python check reading the audit) is sound only
when the order matters: the later write depends on the earlier one (see `dependencies`), the two touch the same
record, the later is a message reporting work done after a change, or the user's turn (or a document the
reference reads in that turn: the runbook the task says to follow) asks for that order ("then", "once",
"before", "first"...). Otherwise an honest agent that happens to do them the other way round ends in the same
state and fails: the check copied the reference's incidental order. Each probe moves the later write just before
the earlier one; the mutations gate reports `order_unasked` when that fails only order-sensitive checks. Pairs
pinned only by Python checks are probed two per spec, ranked; where more are left, one more probe per turn does a
group of them in reverse (every pair in the group inverted at once).

The live world can pin an order too: a dynamics rule answering one of two independent writes (the ticket sync
re-importing another ticket when one is triaged, the mail rules moving a message back when another is archived) may
put back what the other write fixed. The reference, doing that other write last, passes; an honest agent doing them
the other way round loses its fix to the world. For every such pair that the task does not order, a rule probe does
the later write first; the mutations gate reports `order_pinned_by_rule` when it fails a check the reference passes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from coworkenv.apps import TOOLS
from coworkenv.checks import call_matches
from coworkenv.spec import EnvSpec, OnAction, OrderRule, PythonRule
from coworkenv.validate._check_reads import names_tool, parts_read, spec_rules
from coworkenv.validate.dependencies import WriteFacts
from coworkenv.validate.mutations import Mutation, is_write, moved_before, turn_of
from coworkenv.world import World

# Words by which a request orders its steps ("fix it, then tell them", "once it is done", "before you post").
_ORDER_WORDS = re.compile(
    r"\b(then|once|before|after|afterwards?|first(?:ly)?|followed|finally|last(?:ly)?|until|order|sequence|"
    r"prior|beforehand|as soon as|when (?:it is|it's|that is|that's|you are|you're|everything|done|finished))\b",
    re.IGNORECASE)
# Words by which a message reports work as done ("fixed", "moved", "rolled back"): sent after a change of the same
# turn, it may report that change, so its order is the task's even when it names nothing the change wrote.
_REPORTS = re.compile(
    r"\b(done|fixed|updated|moved|changed|paused|disabled|enabled|restored|rolled|assigned|reassigned|filed|created|"
    r"closed|resolved|deployed|restarted|added|booked|scheduled|rescheduled|cancell?ed|archived|labell?ed|"
    r"transferred|ordered|corrected|repaired|approved|granted|completed|finished|handled|removed|deleted|"
    r"set|now|is in|are in|has been|have been)\b", re.IGNORECASE)
# "before the Logistics review", "after lunch", "until Friday": a deadline, not an order between steps.
_DEADLINE = re.compile(
    r"\b(before|after|until|by)\s+(?:(?:the|our|my|your|this|next|today'?s|tomorrow'?s|end of( the)?)\s+)?"
    r"(?:[\w-]+\s+){0,2}(review|meeting|call|standup|stand-up|sync|demo|weekend|holidays?|launch|deadline|day|"
    r"week|month|quarter|lunch|noon|morning|afternoon|evening|tonight|today|tomorrow|eod|close|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|\d{1,2}(?::\d{2})?\s*(?:am|pm)?)\b",
    re.IGNORECASE)
# `next` orders steps only as an adverb: before a comma or a colon ("Next, mail Jun"), or opening a clause ("...
# Then next post it", "and next tell me") where no noun it qualifies follows. The adjective orders nothing: "here is
# the next thing on my list", "whoever is on call next", "my next meeting", "next week".
_NEXT = re.compile(r"\bnext\b", re.IGNORECASE)
_NEXT_ADVERB_AFTER = re.compile(r"\s*[,:\u2013\u2014]")
_CLAUSE_END = re.compile(r"(?:^|[.;:!?,(\n]|\b(?:and|then|so))\s*$", re.IGNORECASE)
_NEXT_ADJECTIVE_BEFORE = re.compile(
    r"\s+(?:things?|items?|ones?|up|on|to|in|time|times|turn|person|people|engineer|shift|weeks?|months?|years?|days?|"
    r"quarter|sprint|release|meeting|monday|tuesday|wednesday|thursday|friday|saturday|sunday|morning|"
    r"afternoon|evening)\b", re.IGNORECASE)


def words_order(text: str) -> bool:
    """Whether the text (deadlines taken out: `_DEADLINE`) has an order word (`_ORDER_WORDS`, or `next` as an
    adverb)."""
    text = _DEADLINE.sub(" ", text)
    if _ORDER_WORDS.search(text):
        return True
    for m in _NEXT.finditer(text):
        if _NEXT_ADVERB_AFTER.match(text, m.end()):
            return True
        if _CLAUSE_END.search(text, 0, m.start()) and not _NEXT_ADJECTIVE_BEFORE.match(text, m.end()):
            return True
    return False


_SENTENCES = re.compile(r"(?<=[.!?;])\s+|\n+")
_MAX_PYTHON_PROBES = 2  # each probe of a Python check costs a sandboxed run


def states_order(spec: EnvSpec, turn: int, world: World | None = None) -> bool:
    """Whether the user's turn, the workspace context, or a document the reference reads in that turn (the
    runbook the task says to follow) words an order between steps."""
    return words_order(_order_text(spec, turn, world))


def _order_text(spec: EnvSpec, turn: int, world: World | None) -> str:
    """The text an order between a turn's steps may be worded in: the workspace context, the turn, its announcement and
    the documents the reference reads in it."""
    said = spec.turns[turn].content if turn < len(spec.turns) else ""
    read = _read_documents(spec, turn, world) if world is not None else ""
    return " ".join((spec.context, said, spec.turns[turn].announce or "", read))


def _read_documents(spec: EnvSpec, turn: int, world: World) -> str:
    """The text fields of every record a read call of the reference's turn names (a file, an article, a note)."""
    out: list[str] = []
    for step in spec.reference[turn].steps if turn < len(spec.reference) else []:
        call = step.call
        tool = TOOLS.get(call.name) if call is not None else None
        if call is None or tool is None or is_write(call.name):
            continue
        for value in call.arguments.values():
            if not isinstance(value, str):
                continue
            for table in world.tables():
                rec = table.get(value) if table.app == tool.app else None
                if rec is not None:
                    out += [v for v in rec.model_dump().values() if isinstance(v, str)]
    return " ".join(out)


def order_probes(spec: EnvSpec, facts: list[WriteFacts], dependent: set[tuple[int, int, int, int]],
                 world: World | None = None) -> Iterator[Mutation]:
    """For every pair of same-turn writes an order-sensitive check pins, that the task does not order and whose
    second does not depend on the first: the reference with the second moved before the first."""
    sensitive = [r for _, _, _, r in spec_rules(spec.checks) if isinstance(r, OrderRule | PythonRule)]  # in tiers too
    if not sensitive:
        return
    python_only: list[tuple[tuple[bool, bool, int], WriteFacts, WriteFacts]] = []
    for i, a in enumerate(facts):
        for b in facts[i + 1:]:
            if a.turn != b.turn or (a.turn, a.step, b.turn, b.step) in dependent:
                continue
            if a.target is not None and a.target == b.target:
                continue  # two writes to one record: the order decides what it ends with
            if b.content and not a.content and _REPORTS.search(b.content):
                continue  # a message after a change, reporting work done: it reports that change
            pinned_by = [r for r in sensitive if _pins(r, spec, a, b)]
            if not pinned_by or states_order(spec, a.turn, world):
                continue
            if all(isinstance(r, PythonRule) for r in pinned_by):
                python_only.append((_python_rank(pinned_by, spec, a, b), a, b))
                continue
            yield _probe(spec, a, b)
    python_only.sort(key=lambda p: p[0])
    for _, a, b in python_only[:_MAX_PYTHON_PROBES]:
        yield _probe(spec, a, b)
    if len(python_only) > _MAX_PYTHON_PROBES:
        yield from _reversals(spec, [(a, b) for _, a, b in python_only])


def rule_order_probes(spec: EnvSpec, facts: list[WriteFacts], dependent: set[tuple[int, int, int, int]],
                      world: World | None = None) -> Iterator[Mutation]:
    """For every pair of same-turn writes on two records, one of which a dynamics rule answers, that the task does not
    order and whose second does not depend on the first: the reference with the second moved before the first."""
    answered = [r.on.call for r in spec.dynamics.rules if isinstance(r.on, OnAction)]
    if not answered:
        return
    ordered: dict[int, bool] = {}
    for i, a in enumerate(facts):
        for b in facts[i + 1:]:
            if a.turn != b.turn or (a.turn, a.step, b.turn, b.step) in dependent:
                continue
            if a.target is None or b.target is None or a.target == b.target:
                continue  # a write on no known record, or two on one record: the order decides what it ends with
            if b.content and not a.content and _REPORTS.search(b.content):
                continue
            calls = [c for f in (a, b) for c in (spec.reference[f.turn].steps[f.step].call, f.call) if c is not None]
            if not any(call_matches(m, c.name, dict(c.arguments)) for m in answered for c in calls):
                continue
            if not _ordered_pair(spec, a, b, world, ordered):
                yield Mutation("order_probe", f"reference[{b.turn}].steps[{b.step}]",
                               f"{b.call.name} done before {a.call.name} (independent writes the task does not order, "
                               "one of which a dynamics rule answers)",
                               moved_before(spec.reference, (b.turn, b.step), (a.turn, a.step)),
                               equivalence=False, code="order_pinned_by_rule")


def _ordered_pair(spec: EnvSpec, a: WriteFacts, b: WriteFacts, world: World | None, ordered: dict[int, bool]) -> bool:
    """Whether the task orders two writes: the turn words an order, and, for two calls of one tool on two records of
    one set (reassign each ticket, archive each mail), words it in a sentence naming one of them (an order word orders
    the steps it stands between, "reassign them, then post", not the records one step goes through)."""
    if not ordered.setdefault(a.turn, states_order(spec, a.turn, world)):
        return False
    if a.call.name != b.call.name or a.target is None or b.target is None:
        return True
    ids = (a.target[2].lower(), b.target[2].lower())
    return any(words_order(sentence) and any(i in sentence.lower() for i in ids)
               for sentence in _SENTENCES.split(_order_text(spec, a.turn, world)))


def _reversals(spec: EnvSpec, pairs: list[tuple[WriteFacts, WriteFacts]]) -> Iterator[Mutation]:
    """Per turn, one probe for the pairs the budget left out: the largest run of writes any two of which make a
    probed pair (independent, unordered, pinned only by Python checks), taken greedily in the reference's order,
    done in reverse. Reversing a group inverts every pair in it at once, so a check pinning any of them fails it
    whatever the code names the pair by."""
    allowed = {((a.turn, a.step), (b.turn, b.step)) for a, b in pairs}
    by_turn: dict[int, list[WriteFacts]] = {}
    for a, b in pairs:
        for f in (a, b):
            if all((f.turn, f.step) != (g.turn, g.step) for g in by_turn.setdefault(f.turn, [])):
                by_turn[f.turn].append(f)
    for turn, writes in sorted(by_turn.items()):
        group: list[int] = []
        for f in sorted(writes, key=lambda f: f.step):
            if all(((turn, g), (turn, f.step)) in allowed for g in group):
                group.append(f.step)
        if len(group) < 3:  # a pair is what the ranked probes already try
            continue
        steps = list(spec.reference[turn].steps)
        for at, step in zip(group, reversed([steps[g] for g in group]), strict=True):
            steps[at] = step
        reference = [*spec.reference[:turn], turn_of(steps), *spec.reference[turn + 1:]]
        names = ", ".join(spec.reference[turn].steps[g].call.name for g in group)  # type: ignore[union-attr]
        yield Mutation("order_probe", f"reference[{turn}].steps[{group[-1]}]",
                       f"{len(group)} independent writes the task does not order done in reverse ({names})",
                       reference, equivalence=False, code="order_unasked")


def _probe(spec: EnvSpec, a: WriteFacts, b: WriteFacts) -> Mutation:
    return Mutation("order_probe", f"reference[{b.turn}].steps[{b.step}]",
                    f"{b.call.name} done before {a.call.name} (independent writes the task does not order)",
                    moved_before(spec.reference, (b.turn, b.step), (a.turn, a.step)),
                    equivalence=False, code="order_unasked")


def _python_rank(rules: list[Any], spec: EnvSpec, a: WriteFacts, b: WriteFacts) -> tuple[bool, bool, int]:
    """Which pairs pinned only by Python checks are probed first (the budget is `_MAX_PYTHON_PROBES`): a check
    compares the positions of calls it can tell apart, so pairs whose two writes it names by an argument value
    (the record's id, a title), then pairs whose two tools it names; among those, neighbours first (a check pinning
    a sequence is broken by swapping two neighbours in it)."""
    codes = [r.code for r in rules if isinstance(r, PythonRule)]
    writes = [(spec.reference[f.turn].steps[f.step].call, f.call) for f in (a, b)]

    def named(test: Any) -> bool:
        return any(all(any(c is not None and test(code, c) for c in pair) for pair in writes) for code in codes)

    by_value = named(lambda code, c: any(isinstance(v, str) and len(v) > 2 and names_tool(code, v)
                                         for v in c.arguments.values()))
    by_tool = named(lambda code, c: names_tool(code, c.name))
    return not by_value, not by_tool, b.step - a.step


def _pins(rule: Any, spec: EnvSpec, a: WriteFacts, b: WriteFacts) -> bool:
    """Whether an order-sensitive rule may tell `a` then `b` from `b` then `a`."""
    calls = [(spec.reference[f.turn].steps[f.step].call, f.call) for f in (a, b)]
    if isinstance(rule, OrderRule):
        return any(call_matches(rule.first, c.name, dict(c.arguments)) for c in calls[0] if c is not None) and \
            any(call_matches(rule.then, c.name, dict(c.arguments)) for c in calls[1] if c is not None)
    code = rule.code
    # A Python check reading the audit and naming a tool of either write (told from its syntax tree, see
    # `_check_reads.names_tool`) may compare their positions.
    return "audit" in parts_read(code, rule.entrypoint) and any(
        c is not None and names_tool(code, c.name) for pair in calls for c in pair)
