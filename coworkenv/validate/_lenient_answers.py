"""Reply near misses aimed at lenient answer checks: a count stated off by one where a text check wants a
number, half the items of a list left out where a graded text check passes below full marks, and the record an
`any_of` check names without the answer it also accepts ("ENG-376" without "accepted"), or one of several
records' facts an `any_of` check lists (one job's last run of two), or numbers a check wants without the
records they belong to, or (under a safety guard) a claim of compliance in place of a refusal."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from coworkenv.checks.text import words_values
from coworkenv.spec import EnvSpec, ForbiddenRule, TextRule
from coworkenv.spec_checks import Check
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate.entities import leaves

_MIN_NAME = 4  # shorter names ("p1", "ok") are ordinary words of an answer
# A count: an integer small enough that one more is a different answer, not a rounding (amounts stay exact).
_MAX_COUNT = 1000
_FACT = re.compile(r"[\d_@/.-]")  # a term that is a fact (an id, a code, a number), not a wording


def _reads_turn(rule: TextRule, turn: int) -> bool:
    return rule.turn in (None, turn)


def off_by_one_counts(spec: EnvSpec, turn: int, text: str) -> Iterator[tuple[str, str]]:
    """(new text, what) for each literal count a text check wants in the reply to `turn`, stated one higher."""
    seen: set[int] = set()
    for _, check, _, rule in spec_rules(spec.checks):  # a tier's rule too
        if not isinstance(rule, TextRule) or rule.number is None or rule.number.value is None:
            continue
        value = rule.number.value
        if not _reads_turn(rule, turn) or value != int(value) or abs(value) >= _MAX_COUNT or int(value) in seen:
            continue
        count = int(value)
        seen.add(count)
        pattern = re.compile(rf"(?<![\d.,]){count}(?![\d]|[.,]\d)")
        wrong = pattern.sub(str(count + 1), text)
        # A count the answer writes in words ("Three of 9 pages", "the third failure") is stated one higher too,
        # in digits: the check reads words as numbers (`words_values`), so the words alone would keep it passing.
        for start, end, v in reversed(words_values(wrong)):
            if v == count:
                wrong = f"{wrong[:start]}{count + 1}{wrong[end:]}"
        if wrong != text:
            yield wrong, f"the answer states {count + 1} for {count} ({check.id})"


def half_of_the_items(spec: EnvSpec, turn: int, text: str) -> Iterator[tuple[str, str]]:
    """(new text, what) for each graded text check passing below full marks: the reply without the later half
    of its `all_of` terms (every alternative of a term removed)."""
    for _, check, _, rule in spec_rules(spec.checks):  # a tier's rule too
        if not isinstance(rule, TextRule) or not rule.partial or check.pass_score >= 1 or len(rule.all_of) < 2:
            continue
        if not _reads_turn(rule, turn):
            continue
        later = rule.all_of[len(rule.all_of) // 2:]
        dropped = text
        for term in later:
            for alt in [term] if isinstance(term, str) else term:
                dropped = re.sub(re.escape(alt), "", dropped, flags=re.IGNORECASE)
        if dropped != text:
            yield dropped, f"the answer without {len(later)} of the {len(rule.all_of)} items {check.id} grades"


def _stated_any_of(spec: EnvSpec, turn: int, text: str) -> Iterator[tuple[Check, TextRule, list[list[str]]]]:
    """(check, its text rule, the `any_of` terms the reply states, each as its alternatives) for each text check of `turn` with
    two or more `any_of` terms."""
    lower = text.lower()
    for _, check, _, rule in spec_rules(spec.checks):  # a tier's rule too
        if not isinstance(rule, TextRule) or len(rule.any_of) < 2 or not _reads_turn(rule, turn):
            continue
        terms = [[term] if isinstance(term, str) else list(term) for term in rule.any_of]
        yield check, rule, [alts for alts in terms if any(a.lower() in lower for a in alts)]


def names_without_facts(spec: EnvSpec, turn: int, text: str, is_entity: Callable[[str], bool]) -> Iterator[tuple[str, str]]:
    """(new text, what) for each text check whose `any_of` terms the reply states both a record or person of
    (a ticket id: what the answer is about) and something else of (the answer itself): the reply without the
    latter. Alternatives of one fact (a time in two zones, synonyms) name no record, so they stay alone."""
    for check, _, stated in _stated_any_of(spec, turn, text):
        about = [alts for alts in stated if any(is_entity(a) for a in alts)]
        facts = [alts for alts in stated if alts not in about]
        if not about or not facts:
            continue
        kept = text
        for alts in facts:
            for alt in alts:
                kept = re.sub(re.escape(alt), "", kept, flags=re.IGNORECASE)
        if kept != text:
            yield kept, f"the answer names {about[0][0]} without the facts {check.id} accepts any of"


def one_of_distinct_facts(spec: EnvSpec, turn: int, text: str,
                          holders: Callable[[str], set[tuple[str, str, str]]]) -> Iterator[tuple[str, str]]:
    """(new text, what) for each text check whose `any_of` terms the reply states two or more of, each a field
    value of another record of the world or of those the run made (the last runs of two jobs, the titles of the
    to-dos added), or where a term is itself a list of alternatives (the writer grouped each fact's alternatives,
    so the terms are different facts): facts all asked for, not alternatives of one fact (a time in two zones,
    synonyms: no record holds those). The reply keeps the first."""
    for check, rule, stated in _stated_any_of(spec, turn, text):
        if len(stated) < 2:
            continue
        # A term that is a list already holds one fact's alternatives: the writer's terms are different facts.
        grouped = any(not isinstance(term, str) for term in rule.any_of)
        held = [set().union(*(holders(a) for a in alts)) for alts in stated]
        if not grouped and (not all(held) or any(
                held[i] & held[j] for i in range(len(held)) for j in range(i + 1, len(held)))):
            continue
        kept = text
        for alts in stated[1:]:
            for alt in alts:
                kept = re.sub(re.escape(alt), "", kept, flags=re.IGNORECASE)
        yield kept, f"the answer keeps one of the {len(stated)} records' facts {check.id} accepts any of"


def numbers_without_records(spec: EnvSpec, turn: int, text: str, names: list[str]) -> Iterator[tuple[str, str]]:
    """(new text, what) when a text check wants numbers in the reply to `turn` (digits among its terms, or a
    number) and the reply names records the reference changed (`names`: their ids, names, titles, SKUs): the
    reply without those names ("moved 57 and 36 units": which items?)."""
    numeric = any(isinstance(r, TextRule) and _reads_turn(r, turn) and (
        r.number is not None or any(isinstance(t, str) and t.isdigit() for t in r.all_of))
        for _, _, _, r in spec_rules(spec.checks))
    lower = text.lower()
    found = sorted({n for n in names if len(n) >= _MIN_NAME and n.lower() in lower}, key=len, reverse=True)
    if not numeric or not found:
        return
    dropped = text
    for name in found:
        dropped = re.sub(re.escape(name), "", dropped, flags=re.IGNORECASE)
    yield dropped, "the answer states its numbers without the records they belong to"


def compliance_claims(spec: EnvSpec, turn: int, text: str) -> Iterator[tuple[str, str]]:
    """Where the user's turn asks for what a safety guard forbids (the turn names the forbidden call's values and
    its verb: "send legal/harbor-contract.md") and a text check reads the reply: the reply turned into a claim of
    having done what was asked, keeping only the `all_of` facts it states (single terms with a digit or
    a code character: "Done as you asked (IT-199)."; wording alternatives are left out). A refusal the checks
    cannot tell from compliance is unchecked."""
    asked = spec.turns[turn].content.lower() if turn < len(spec.turns) else ""
    if not any(c.safety and isinstance(r, ForbiddenRule) and _asks_for(r, asked) for _, c, _, r in spec_rules(spec.checks)):
        return
    kept: list[str] = []
    for _, _, _, rule in spec_rules(spec.checks):  # a tier's rule too
        if not isinstance(rule, TextRule) or not _reads_turn(rule, turn):
            continue
        for term in rule.all_of:
            if isinstance(term, str) and _FACT.search(term) and term.lower() in text.lower() and term not in kept:
                kept.append(term)
    if kept:
        yield f"Done as you asked ({', '.join(kept)}).", "the answer claims the work was done as asked"


def _asks_for(rule: ForbiddenRule, asked: str) -> bool:
    """Whether a request names a forbidden call: a verb of its tool ("send" for mail_send, or its app used as one:
    "mail it to Amani") and every value its arguments pin."""
    verbs = rule.call.tool.split("_")
    values = [str(v).lower() for v in leaves(rule.call.args) if isinstance(v, str | int) and str(v)]
    return bool(values) and any(re.search(rf"\b{re.escape(v)}", asked) for v in verbs) and all(
        v in asked for v in values)
