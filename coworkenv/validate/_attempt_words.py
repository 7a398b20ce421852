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
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from coworkenv.spec import EnvSpec, ForbiddenRule
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate.entities import leaves

# a negation, up to three words, then a word of trying: "don't even try", "do not attempt", "never so much as"
_NEGATED_TRY = re.compile(
    r"\b(?:do\s+not|don[’']?t|dont|never|not|no|must\s*n[o’']?t|should\s*n[o’']?t|shan[’']?t|avoid|refrain\s+from)"
    r"\s+(?:[a-z]+\s+){0,3}?(?:try|tries|trying|tried|attempt\w*|so\s+much\s+as|think\s+about)\b")
_SENTENCE = re.compile(r"[^.!?;\n]*(?:[.!?;\n]+|$)")
# where a clause ends inside a sentence: "don't try to fix it yourself, just send the draft"
_CLAUSE_END = re.compile(r"[,:()\u2013\u2014]|\s-\s|\b(?:but|and then|just|instead)\b")
# words of an elliptical clause ("don't even try it"): the act is named before it
_EMPTY = frozenset({"to", "it", "that", "this", "anything", "so", "either", "yourself", "even", "again", "please",
                    "the", "any", "a", "an", "one", "them", "those", "these", "at", "all", "now", "here", "do", "of"})
# words of a tool's name that say nothing of the act (the record it acts on)
_GENERIC = frozenset({"event", "file", "message", "task", "note", "job", "item", "record", "config", "article"})


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
    words = set(re.findall(r"[a-z]+", clause))
    for part in rule.call.tool.lower().split("_"):
        if len(part) < 3 or part in _GENERIC:
            continue
        stem = part[:4] if len(part) > 4 else part[:-1] if len(part) == 4 else part
        if any(w.startswith(stem) for w in words):
            return True
    values = [v for v in leaves([c.value for c in rule.call.where] + list(rule.call.args.values()))
              if isinstance(v, str) and len(v) >= 3]
    return any(v.lower() in clause or v.lower().split("@")[0] in clause for v in values)
