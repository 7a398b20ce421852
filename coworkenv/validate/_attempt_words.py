"""Forbidden guards that count only calls that succeeded, where the user's own words forbid even trying the act.

`attempts: false` is sound on a guard that is not a safety check where only the effect matters ("no document was
deleted" as a side rule). It is not where the user says "don't even try to send it", "do not attempt to roll the
config back", "never try cancelling": an agent that tries and is refused by the mock (an attachment that is not
there, a version the service lacks) did what the user forbade, and the guard passes it with full marks. A safety
guard counts the attempt anyway (`_held_values.uncounted_attempts`); this reads the non-safety ones.

The user's words: each turn's text (and its announcement) is searched for a negated attempt ("don't try", "do not
attempt", "never try", "not even try", "no attempts", "don't so much as", "don't even think about"); the clause it
opens, with the sentence before it (an elliptical "Don't even try." after "don't send it"), must name the guarded act:
a word of the guarded tool's name or app (`send`, `cancel`, `delete`, `rollback`, `flag`, `mail`), by its stem
(`sending`, `cancellation`, `roll ... back`), or a value the guard pins (a person, a record id). A "don't try" about
something else leaves the guard alone.

The user also keeps an act for themselves without a word of trying: "leave sending to me", "that's mine to send",
"I'll handle the rollback myself", "hands off the send", "hold off on any attempt" (a reservation: the agent's try,
refused or not, is the act the user kept). And the act is named by more than the tool's name: the verb its
description opens with (`Turn` a flag on, `Make` is too plain to say anything) and a small set of the act's common
synonyms ("dispatch" or "push out" a mail, "revert" a config, "call off" a meeting, "remove" a file).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from coworkenv.apps import APPS
from coworkenv.spec import EnvSpec, ForbiddenRule
from coworkenv.tools import tool_catalog
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate.entities import leaves

# a negation, up to three words, then a word of trying: "don't even try", "do not attempt", "never so much as"
_NEGATED_TRY = re.compile(
    r"\b(?:do\s+not|don[’']?t|dont|never|not|no|must\s*n[o’']?t|should\s*n[o’']?t|shan[’']?t|avoid|refrain\s+from"
    r"|hold\s+off(?:\s+on)?|stay\s+away\s+from|keep\s+away\s+from)"
    r"\s+(?:[a-z]+\s+){0,3}?(?:try|tries|trying|tried|attempt\w*|so\s+much\s+as|think\s+about)\b")
# a reservation: the act the user keeps for themselves, in the group ("leave sending to me", "that's mine to send",
# "I'll handle the rollback myself", "hands off the send button")
_RESERVED = re.compile(
    r"\bleave\s+(?P<a>(?:[a-z’'-]+\s+){1,6}?)(?:to|for|with)\s+me\b"
    r"|\b(?:mine|ours)\s+to\s+(?P<b>[a-z]+(?:\s+[a-z]+){0,3})"
    r"|\bi(?:[’']ll|\s+will|\s+shall|[’']d\s+rather|\s+would\s+rather|[’']m\s+going\s+to|\s+am\s+going\s+to|\s+want\s+to)"
    r"\s+(?P<c>(?:[a-z’'-]+\s+){1,7}?)(?:myself|personally)\b"
    r"|\b(?:hands|keep\s+your\s+hands)\s+off\s+(?P<d>[a-z]+(?:\s+[a-z]+){0,4})")
_SENTENCE = re.compile(r"[^.!?;\n]*(?:[.!?;\n]+|$)")
# where a clause ends inside a sentence: "don't try to fix it yourself, just send the draft"
_CLAUSE_END = re.compile(r"[,:()\u2013\u2014]|\s-\s|\b(?:but|and then|just|instead)\b")
# words of an elliptical clause ("don't even try it"): the act is named before it
_EMPTY = frozenset({"to", "it", "that", "this", "anything", "so", "either", "yourself", "even", "again", "please",
                    "the", "any", "a", "an", "one", "them", "those", "these", "at", "all", "now", "here", "do", "of"})
# words of a tool's name that say nothing of the act (the record it acts on)
_GENERIC = frozenset({"event", "file", "message", "task", "note", "job", "item", "record", "config", "article"})
# verbs a tool's description opens with that say nothing of the act ("Make an earlier config version the active one")
_PLAIN_VERBS = frozenset({"make", "change", "add", "set", "create", "mark", "move", "write", "run", "edit", "replace",
                          "get", "list", "read", "show", "find", "search", "a", "an", "the"})
# common synonyms of an act, by the first four letters of a word of the tool's name or description: (verb stem, particle or "")
_SYNONYMS: dict[str, tuple[tuple[str, str], ...]] = {
    "send": (("dispatch", ""), ("push", "out"), ("fire", "off"), ("shoot", "off"), ("forward", ""), ("email", "")),
    "mail": (("dispatch", ""), ("push", "out"), ("fire", "off"), ("email", "")),
    "canc": (("call", "off"), ("scrap", ""), ("scrub", "")),
    "dele": (("remov", ""), ("eras", ""), ("wip", ""), ("purg", ""), ("trash", "")),
    "roll": (("revert", ""), ("undo", "")),
    "rest": (("reboot", ""), ("bounce", "")),
    "depl": (("ship", ""), ("roll", "out"), ("releas", "")),
    "publ": (("releas", ""), ("push", "out"), ("put", "out")),
    "flag": (("flip", ""), ("toggl", ""), ("turn", "on"), ("switch", "on")),
    "turn": (("flip", ""), ("toggl", ""), ("switch", "on")),
}


def forbidden_attempts(spec: EnvSpec) -> Iterator[tuple[str, str]]:
    """(path, message) for each non-safety `forbidden` guard with `attempts: false` whose act the user's words
    forbid even trying."""
    guards = [(where, check, rule) for _, check, where, rule in spec_rules(spec.checks)
              if isinstance(rule, ForbiddenRule) and not rule.attempts and not check.safety]
    if not guards:
        return
    clauses = [c for turn in spec.turns for text in (turn.content, turn.announce or "") for c in _tried_clauses(text)]
    if not clauses:
        return
    for where, check, rule in guards:
        said = next((c for c in clauses if _names_act(c, rule)), None)
        if said is not None:
            yield (f"{where}.attempts", f"guard {check.id!r} forbids {rule.call.tool} but counts only calls that "
                   f"succeeded, while the user forbids even trying it ({said.strip()[:80]!r}): an agent that tries "
                   "and is refused passes; drop 'attempts: false'")


def _tried_clauses(text: str) -> Iterator[str]:
    """Each negated attempt with the clause it opens (to a comma, a dash, a "but"); where that clause names nothing
    ("don't even try it"), with the words before it in its sentence and the sentence before."""
    sentences = [m.group(0).lower() for m in _SENTENCE.finditer(text) if m.group(0).strip()]
    for n, sentence in enumerate(sentences):
        for m in _RESERVED.finditer(sentence):
            said = next(g for g in m.groups() if g is not None)
            # "flipping it there is mine to do": the act is the clause's subject, before the frame
            yield (re.split(r"[,:()\u2013\u2014]", sentence[:m.start()])[-1] + said) if m.group("b") else said
        for m in _NEGATED_TRY.finditer(sentence):
            rest = sentence[m.end():]
            cut = _CLAUSE_END.search(rest)
            head = rest[:cut.start()] if cut else rest
            if set(re.findall(r"[a-z]+", head)) - _EMPTY:
                yield sentence[m.start():m.end()] + head
            else:
                yield (sentences[n - 1] if n else "") + " " + sentence[:m.end()]


def _names_act(clause: str, rule: ForbiddenRule) -> bool:
    """Whether the clause names the guarded act: a word of the tool's name or app by its stem, or a value the guard
    pins."""
    words = re.findall(r"[a-z]+", clause)
    for verb, particle in _act_words(rule.call.tool):
        if any(w.startswith(verb) and (not particle or particle in words[n + 1:n + 5]) for n, w in enumerate(words)):
            return True
    values = [v for v in leaves([c.value for c in rule.call.where] + list(rule.call.args.values()))
              if isinstance(v, str) and len(v) >= 3]
    return any(v.lower() in clause or v.lower().split("@")[0] in clause for v in values)


@functools.cache
def _act_words(tool: str) -> tuple[tuple[str, str], ...]:
    """(verb stem, particle or "") naming the act of a tool: each word of its name or its app's (by its stem), the verb
    its description opens with where that says something (`Turn`, `Cancel`; not `Make`), and their synonyms."""
    parts = [p for p in tool.lower().split("_") if len(p) >= 3 and p not in _GENERIC]
    known = tool_catalog(APPS).get(tool)
    lead = re.findall(r"[a-z]+", known.description.lower())[:1] if known is not None else []
    parts += [w for w in lead if w not in _PLAIN_VERBS and w not in parts]
    out = [(p[:4] if len(p) > 4 else p[:-1] if len(p) == 4 else p, "") for p in parts]
    out += [syn for p in parts for syn in _SYNONYMS.get(p[:4], ())]
    return tuple(dict.fromkeys(out))
