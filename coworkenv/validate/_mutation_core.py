"""What every mutation module shares: the `Mutation` record, its kinds, and edits of a reference's steps."""

from __future__ import annotations

import re
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from coworkenv.bindings import spec_catalog
from coworkenv.spec import EnvSpec, ReferenceStep, ReferenceTurn
from coworkenv.validate._check_reads import spec_rules, turns_read
from coworkenv.validate._reply_asks import asks_for_reply
from coworkenv.validate.entities import stated_facts, whole

__all__ = ["MUTATION_KINDS", "Mutation", "MutationKind", "replaced", "reply_is_content", "turn_of", "without"]

MutationKind = Literal[
    "drop_write", "change_arg", "wrong_recipient", "time_shift", "drop_item", "text_drop", "text_alter",
    "text_truncate", "duplicate_write", "swap_order", "swap_dependent", "harmful_action", "guard_probe",
    "order_probe", "stop_early", "wrong_route", "created_instead",
]
MUTATION_KINDS: tuple[MutationKind, ...] = typing.get_args(MutationKind)

@dataclass(frozen=True)
class Mutation:
    """One near-miss variant of the reference solution."""

    kind: MutationKind
    path: str  # where the reference was changed, e.g. reference[0].steps[3].call.arguments.to_version
    description: str
    reference: list[ReferenceTurn]
    # Core mutants change what a write does or to whom; context mutants only change an optional link to
    # another record (a reply's thread, an attachment): their survival is reported, not failed.
    core: bool = True
    # Whether an outcome equal to the reference's makes the mutant equivalent (not counted). Order and harm
    # mutants differ from the reference in what the agent did even when the records end the same.
    equivalence: bool = True
    # The error code a survivor is reported under, and the guard checks a guard probe is meant to fire.
    code: str = "mutant_survived"
    targets: tuple[str, ...] = ()
    # Probes of one list's items (each item left out, one mutant each) share a group: the gate judges the group,
    # an item whose probe passes while another item's fails is unchecked (`_sibling_facts.item_probes`).
    group: str = ""


def turn_of(steps: list[ReferenceStep]) -> ReferenceTurn:
    """A reference turn of steps that are already valid (no re-validation: mutants are built by the dozen)."""
    return ReferenceTurn.model_construct(steps=steps)


def without(reference: list[ReferenceTurn], t: int, s: int) -> list[ReferenceTurn]:
    steps = [step for j, step in enumerate(reference[t].steps) if j != s]
    return [*reference[:t], turn_of(steps), *reference[t + 1:]]


def replaced(reference: list[ReferenceTurn], t: int, s: int, new: ReferenceStep) -> list[ReferenceTurn]:
    steps = [new if j == s else step for j, step in enumerate(reference[t].steps)]
    return [*reference[:t], turn_of(steps), *reference[t + 1:]]


# Explicit requests for an answer: a request verb, or a question that starts with a question word. "Report" and
# "confirm" as the turn's own request to the agent ("apply the policy and report", "confirm what you moved"), not as a
# noun ("the Q4 review report") or what a mail does ("reply to confirm": the reply is the mail); an answer asked for
# as a summary, an update, a rundown ("send me a summary", "keep me posted", "fill me in"), or a list of what was
# done ("then list what you added", as `_asked_facts` reads it) (defects95).
# The two forms that also name what is asked (`_asked_facts` reads their sentence's words): "report/confirm which ..."
# and "send me a (short) report/summary of ..." (the noun "report" asked of the user's agent, defects98).
ASKED_PHRASES = (r"\b(?:report|confirm)(?:\s+(?:to me|back|with me))?\s+(?:what|which|who|when|where|whether|how)\b|"
                 r"\b(?:send|give|write|drop)\s+me\s+(?:a\s+|an\s+|the\s+)?(?:short\s+|quick\s+|brief\s+)?"
                 r"(?:status\s+)?(?:summary|report|rundown|recap|update|breakdown|note|line)\b")
_OBJECT = r"(?!\s+(?:it|this|that|them|the|a|an|their|his|her|its)\b)"
_ASKS = re.compile(r"\b(tell me|let me know|report back|summari[sz]e|how many|how much|list what|list which)\b|"
                   rf"\b(?:and|then|please|also)\s+(?:report|confirm){_OBJECT}\b|"
                   r"\b(?:report|confirm)\s+(?:to me|back|with me|once)\b|"
                   rf"{ASKED_PHRASES}|"
                   r"\b(?:keep me (?:posted|updated|in the loop)|fill me in|get back to me|update me|brief me)\b|"
                   r"(^|[.!?]\s+)(what|which|who|when|where|why|how|is|are|does|did|do)\b[^.!?]*\?", re.IGNORECASE)


def reply_is_content(spec: EnvSpec, turn: int) -> bool:
    """Whether the reply to `turn` is something the task asks for: a check reads it, the user asks (`_ASKS`, or a
    request's grammar, `_reply_asks.asks_for_reply`), or it is all the turn makes (`_told_only`)."""
    for _, _, _, rule in spec_rules(spec.checks):  # a tier's rule too
        if _reads_reply(rule, turn):
            return True
    if turn >= len(spec.turns):
        return False
    request = spec.turns[turn].content
    return _ASKS.search(request) is not None or asks_for_reply(request) or _told_only(spec, turn)


def _told_only(spec: EnvSpec, turn: int) -> bool:
    """Whether the reference's turn `turn` writes nothing and its last reply states a fact (`stated_facts`: a date,
    a code, a number, ...) its request does not: what the turn was for is what the reply tells, however the request
    asks for it. `_ASKS` is a list of phrases, and a request worded otherwise ("reply here with the answer and the
    file it came from", "put the answer in your reply") escaped it: a spec whose checks never read the answer
    passed every reply near miss unmade (defects122). Over the strict sweep (seeds 1-30 of every capability, the
    examples) and every corpus twin no turn besides those `_ASKS` or a check already covers is one."""
    if turn >= len(spec.reference):
        return False
    steps = spec.reference[turn].steps
    says = [step.say for step in steps if step.say]
    if not says:
        return False
    tools = spec_catalog(spec)
    if any(step.call is not None and (tool := tools.get(step.call.name)) is not None and tool.kind == "write"
           for step in steps):
        return False
    request = spec.turns[turn].content
    return any(not whole(fact).search(request) for fact in stated_facts(says[-1]))


def content_replies(spec: EnvSpec) -> Iterator[tuple[int, int, str]]:
    """(turn, step, text) of the last reply of each turn whose reply is task content (see `reply_is_content`)."""
    for t, turn in enumerate(spec.reference):
        says = [s for s, step in enumerate(turn.steps) if step.say]
        if says and reply_is_content(spec, t):
            yield t, says[-1], turn.steps[says[-1]].say or ""


def _reads_reply(rule: Any, turn: int) -> bool:
    if rule.kind in ("reply_states", "text"):
        return getattr(rule, "turn", None) in (None, turn)
    if rule.kind == "tiers":
        return any(_reads_reply(tier.rule, turn) for tier in rule.tiers)
    if rule.kind != "python":
        return False
    # a grader that keeps one turn's messages (`m["turn"] == 0`) reads no other turn's answer
    turns = turns_read(rule.code, rule.entrypoint)
    return turns is None or turn in turns
