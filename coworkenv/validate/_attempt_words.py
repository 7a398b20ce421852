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

A reservation is said in many more ways than those frames, and each names the act anywhere in its clause (before
the frame or after it), or, where its clause names nothing ("That's my call."), in the sentence before when that
one holds the act back ("Don't send it yet."): the decision is the user's ("my call", "my decision", "up to me",
"the final say is mine", "not your call", "I'll decide on/whether ...", "let me make the call on ...", "I want to
be the one who sends it", "I'll send it once I've read it"), the act waits for the user's word ("until I say so",
"until I've checked it", "without my sign-off", "wait for my go-ahead", "check with me before ...", "only once I
...", "nobody but me"), or the agent is kept off the thing itself ("don't touch", "don't go near", "don't mess
with", "stay out of", "leave ... alone"). A frame that names no act ("The subject line is my call", "I'll decide on
the wording", "Don't touch the budget sheet until I say so") leaves the guard alone, as does a plan of the user's
that is no act of the agent's ("I'll send you the figures").
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
# the speaker's will or decision ("I'll", "I want to", "we're going to", ...) before a verb of deciding or doing
_WILL = (r"(?:[’']ll|\s+will|\s+shall|[’']d\s+(?:rather|prefer\s+to|like\s+to)|\s+would\s+(?:rather|prefer\s+to|like\s+to)"
         r"|[’']m\s+going\s+to|\s+am\s+going\s+to|[’']re\s+going\s+to|\s+are\s+going\s+to|\s+want\s+to|\s+plan\s+to"
         r"|\s+intend\s+to|\s+prefer\s+to|\s+need\s+to|\s+get\s+to|\s+have\s+to)")
_ADVERB = r"(?:\s+(?:still|also|then|just|probably|personally|rather|myself|ourselves))?"
_DECIDE = (r"(?:decide|determine|choose|judge|make\s+(?:the|that|this|a|my|our)\s+(?:own\s+)?(?:call|decision)"
           r"|call\s+the\s+shots|have\s+the\s+(?:final|last)\s+(?:say|word))")
_DO = r"(?:be\s+the\s+ones?|handle|take\s+care\s+of|deal\s+with|see\s+to|sort\s+out|look\s+after|take\s+charge\s+of|do)"
_WORD = (r"(?:explicit\s+|written\s+|own\s+)?(?:ok|okay|go[- ]ahead|approval|sign[- ]?off|say[- ]so|word|green[- ]light"
         r"|permission|consent|blessing|signal|confirmation|nod)")
# a reservation framed anywhere in its clause: the decision is the user's, the act waits for the user's word, or the
# agent is kept off the thing ("sending it is my call", "I'll decide whether it goes out", "not without my sign-off")
_HELD = re.compile(
    r"\b(?:my|our)\s+(?:own\s+)?(?:call|decision|choice|job|responsibility|department|prerogative|business|domain)\b"
    r"|\bup\s+to\s+(?:me|us)\b|\bfor\s+(?:me|us)\s+(?:alone\s+)?to\s+(?:decide|say|call|judge|do|handle)\b"
    r"|\b(?:is|stays|remains|rests|lies|sits)\s+(?:mine|ours|with\s+(?:me|us))\b|[’']s\s+(?:mine|ours)\b"
    r"|\b(?:final|last)\s+(?:say|word)\s+(?:on|over|about|is|rests|stays|lies)\b"
    r"|\bnot\s+(?:yours|(?:your|for\s+you\s+to)\s+(?:call|decision|choice|job|place|business|decide|make)"
    r"|(?:for|up\s+to)\s+you)\b|\byou\s+(?:don[’']?t|do\s+not)\s+get\s+to\b"
    rf"|\b(?:i|we){_WILL}{_ADVERB}\s+{_DECIDE}\b|\bi{_WILL}{_ADVERB}\s+{_DO}\b"
    r"|\b(?:i|we)\s+(?:decide|make\s+the\s+(?:call|decision)|call\s+the\s+shots|have\s+the\s+(?:final|last)\s+say)\b"
    rf"|\blet\s+(?:me|us)\s+(?:{_DECIDE}|{_DO})\b"
    r"|\bbefore\s+(?:i|we)\s+(?:say|give|approve|sign|confirm|decide|ok|okay|green[- ]?light)\w*"
    r"|\b(?:until|till|unless)\s+(?:i|we)(?:[’']ve|\s+have|[’']m|\s+am|[’']ll|\s+can)?\s+(?:say|said|tell|told|give|given"
    r"|confirm|approve|sign|decide|ok|okay|green[- ]?light|check|checked|look|looked|review|reviewed|read|had|get\s+back"
    r"|back|clear|cleared)\w*"
    rf"|\b(?:without|pending|after|once\s+i\s+give\s+you)\s+(?:my|our)\s+{_WORD}\b"
    rf"|\bwait\s+(?:for|on)\s+(?:my|our)\s+(?:\w+\s+)?{_WORD}\b|\bonly\s+(?:on|with|after|once|when)\s+(?:my|our|i|we)\b"
    r"|\b(?:check|confirm|clear\s+it|run\s+it\s+by)\s+(?:with\s+)?(?:me|us)\s+(?:first|before)\b|\bask\s+(?:me|us)\s+(?:first|before)\b"
    r"|\bonly\s+(?:i|me|we)\b|\b(?:no\s*one|nobody|none\s+of\s+you)\s+(?:but|except|other\s+than|besides)\s+(?:me|us)\b"
    r"|\b(?:do\s+not|don[’']?t|never|not|must\s*n[o’']?t|should\s*n[o’']?t)\s+(?:\w+\s+)?(?:touch|go\s+near|lay\s+a\s+finger\s+on"
    r"|mess\s+(?:with|around\s+with)|meddle\s+with|tamper\s+with|fiddle\s+with|tinker\s+with|interfere\s+with)\b"
    r"|\b(?:stay|keep)\s+(?:out\s+of|away\s+from|clear\s+of|off)\b|\bsteer\s+clear\s+of\b|\bleave\b(?=(?:\s+[a-z’'-]+){1,5}?\s+alone\b)")
# the speaker's own act, its verb right after the frame ("I'll send it once I've read it"); not one to the agent
# ("I'll send you the figures")
_MINE_NEXT = re.compile(rf"\bi{_WILL}{_ADVERB}\s+(?P<v>[a-z]+)(?:\s+(?P<o>[a-z’']+))?")
_PARTICLES = frozenset({"out", "off", "back", "on", "up", "down", "over"})
# where a held clause ends on a new subject: "I'll handle the follow-up and you send the reply"
_NEW_SUBJECT = re.compile(r"\b(?:and|but|so|or|while|whereas|then)\s+(?:you|please|then|also|just)\b|\bwhile\b|\bwhereas\b")
# words that hold an act back: the sentence before an elliptical reservation ("Don't send it yet. That's my call.")
_HOLDS_BACK = re.compile(r"\b(?:not|don[’']?t|dont|never|no|hold|wait|until|unless|without|nothing)\b")
_SENTENCE = re.compile(r"[^.!?;\n]*(?:[.!?;\n]+|$)")
# where a clause ends inside a sentence: "don't try to fix it yourself, just send the draft"
_CLAUSE_END = re.compile(r"[,:()\u2013\u2014]|\s-\s|\b(?:but|and then|just|instead)\b")
# words of an elliptical clause ("don't even try it"): the act is named before it
_EMPTY = frozenset({"to", "it", "that", "this", "anything", "so", "either", "yourself", "even", "again", "please",
                    "the", "any", "a", "an", "one", "them", "those", "these", "at", "all", "now", "here", "do", "of"})
# more words an elliptical reservation is made of ("That's my call, not yours", "it is up to me")
_EMPTY_HELD = _EMPTY | {"s", "is", "was", "be", "i", "me", "we", "us", "my", "our", "you", "your", "yours", "ll", "will",
                        "really", "entirely", "totally", "still", "though", "just", "only", "alone", "whether", "and",
                        "not", "no", "there", "from", "on", "about", "what", "ve", "m", "re", "d", "let", "am",
                        "say", "said", "thing", "decision", "call", "yet", "otherwise", "first"}
# words of a tool's name that say nothing of the act (the record it acts on)
_GENERIC = frozenset({"event", "file", "message", "task", "note", "job", "item", "record", "config", "article"})
# verbs a tool's description opens with that say nothing of the act ("Make an earlier config version the active one")
_PLAIN_VERBS = frozenset({"make", "change", "add", "set", "create", "mark", "move", "write", "run", "edit", "replace",
                          "get", "list", "read", "show", "find", "search", "a", "an", "the"})
# common synonyms of an act, by the first four letters of a word of the tool's name or description: (verb stem, particle or "")
_SYNONYMS: dict[str, tuple[tuple[str, str], ...]] = {
    "send": (("dispatch", ""), ("push", "out"), ("fire", "off"), ("shoot", "off"), ("forward", ""), ("email", ""),
             ("sent", ""), ("go", "out"), ("goes", "out"), ("went", "out")),
    "mail": (("dispatch", ""), ("push", "out"), ("fire", "off"), ("email", ""), ("go", "out"), ("goes", "out")),
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
        # the act by the op the guarded tool runs too: a declared `svc_mail_deliver` bound to `mail_send` sends
        op = next((d.bind.op for d in spec.tool_decls if d.name == rule.call.tool), rule.call.tool)
        said = next((c for c in clauses if _names_act(c, rule, op)), None)
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
            said = (re.split(r"[,:()\u2013\u2014]", sentence[:m.start()])[-1] + said) if m.group("b") else said
            if set(re.findall(r"[a-z]+", said)) - _EMPTY_HELD:
                yield said
            elif _HOLDS_BACK.search(before := (sentences[n - 1] if n else "") + " " + sentence[:m.start()]):
                yield before  # "Don't send it; leave that to me."
        yield from _held_clauses(sentences[n - 1] if n else "", sentence)
        for m in _NEGATED_TRY.finditer(sentence):
            rest = sentence[m.end():]
            cut = _CLAUSE_END.search(rest)
            head = rest[:cut.start()] if cut else rest
            if set(re.findall(r"[a-z]+", head)) - _EMPTY:
                yield sentence[m.start():m.end()] + head
            else:
                yield (sentences[n - 1] if n else "") + " " + sentence[:m.end()]


def _held_clauses(before: str, sentence: str) -> Iterator[str]:
    """The clause of each reservation framed anywhere in it (`_HELD`), or of the user's own act named right after
    "I'll" (`_MINE_NEXT`); where the clause names nothing but the frame, the sentence before when it holds an act
    back."""
    frames = [(m.start(), m.end()) for m in _HELD.finditer(sentence)]
    for m in _MINE_NEXT.finditer(sentence):
        if m.group("o") not in ("you", "your", "yourself", "u") and m.group("v") not in ("be", "have", "need", "get", "not"):
            frames.append((m.start("v"), m.start("v")))  # the clause from the verb: only its act is read
    for start, end in frames:
        cuts = [c.end() for c in _CLAUSE_END.finditer(sentence, 0, start)] + \
            [c.end() for c in _NEW_SUBJECT.finditer(sentence, 0, start)]
        a = max(cuts, default=0)
        after = [c.start() for c in _CLAUSE_END.finditer(sentence, end)] + \
            [c.start() for c in _NEW_SUBJECT.finditer(sentence, end)]
        b = min(after, default=len(sentence))
        if start == end:  # the speaker's own act: its verb, with a particle after it ("push it out")
            words = sentence[start:b].split()[:5]
            yield " ".join(words[:1] + [w for w in words[1:] if w in _PARTICLES])
            continue
        if set(re.findall(r"[a-z]+", sentence[a:start] + " " + sentence[end:b])) - _EMPTY_HELD:
            # the clause, its frame in capitals: the frame's words ("my call", "until I say so") name no act
            yield sentence[a:start] + sentence[start:end].upper() + sentence[end:b]
        elif _HOLDS_BACK.search(before + " " + sentence[:start]):
            yield before + " " + sentence[:start]


def _names_act(clause: str, rule: ForbiddenRule, op: str) -> bool:
    """Whether the clause names the guarded act: a word of the tool's name or app by its stem, or of the op it runs
    (`op`: a declared tool's, named as its service names it), or a value the guard pins."""
    words = re.findall(r"[a-z]+", clause)
    acts = _act_words(rule.call.tool) if op == rule.call.tool else (*_act_words(rule.call.tool), *_act_words(op))
    for verb, particle in acts:
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
