"""Cost near the limit: a Python check that is right but slow, spending a good share of the sandbox's time limits on
the reference's final state: it derives a key (`hashlib.pbkdf2_hmac` with two million rounds) or runs a hash chain to
compare a receipt, brute-forces every ordering of ten items, backtracks through a regex with nested quantifiers,
diffs two long texts character by character, computes a huge binomial, or sleeps a few seconds "for the world to
settle". It passes every run on the validating machine, and times out (the CPU limit of 2 s, the wall-clock limit of
5 s) on a machine a few times slower or busier, or on a state a little larger: there a correct agent fails. Main
accepted every defect here: no gate looked at what a check's runs cost.

The sound twins are the same Python check without the costly part.

Caught by the sandbox gate (`cost_near_limit`): the sandbox reports the CPU seconds of a run; a check whose cheapest
run on the reference's final state (two at least) spends an eighth of the CPU limit (a check's own start costs
~0.03 s) or half the wall-clock limit is rejected, and neither probed further nor played on every mutant.

No witness: the agent that fails is any correct one, on another machine. The defects' references pass here but not
there, which is the defect (`reference_sound=False`: the test that plays each defect's reference would time out on a
busy machine).
"""

from __future__ import annotations

from tests.defects._core import Defect
from tests.defects.probe_aware import python_check
from tests.defects.random_unpinned import FLAKY_BASES

CLASS = "cost_near_limit"
DETECTION = (
    "measure the CPU and wall-clock time of a Python check's runs on the reference's final state and reject one whose "
    "cheapest run spends a large share of the sandbox's limits"
)

_HASH, _IT, _RE, _DL, _MATH, _SEL = ("import hashlib\n", "import itertools\n", "import re\n", "import difflib\n",
                                      "import math\n", "import select\n")
# name: (the costly part, anded to the check's verdict, its imports, what it spends) -- each ~0.5 s of CPU on this
# machine under load (~0.3 s quiet), or 2.6 s asleep.
_COSTS: dict[str, tuple[str, str, str]] = {
    "key-derivation": ("len(hashlib.pbkdf2_hmac('sha256', b'paused', b'coworkenv-receipt', 2_000_000)) == 32", _HASH,
                       "a receipt key derived with two million rounds"),
    "hash-chain": ("len(__import__('functools').reduce(lambda h, _: hashlib.sha256(h).digest(), range(1_200_000), "
                   "b'seed')) == 32", _HASH, "a hash chain of 1.2 million links"),
    "permutations": ("any(p.index(0) > p.index(9) for p in itertools.permutations(range(10)) if p.index(9) == 0 and "
                     "p[1] == 8 and p[-1] == 0 and p[2] == 1 and p[-2] == 7)", _IT,
                     "every ordering of ten items, brute-forced"),
    "regex-backtracking": ("re.match(r'(a+)+b', 'a' * 23) is None", _RE,
                           "a regex with nested quantifiers backtracking over a text it does not match"),
    "char-diff": ("difflib.SequenceMatcher(None, 'ab' * 1500 + 'y', 'y' + 'ba' * 1500, autojunk=False).ratio() > 0",
                  _DL, "a character diff of two 3,000-character texts"),
    "big-binomial": ("math.comb(260_000, 130_000) % 7 >= 0", _MATH, "a binomial of a 78,000-digit result"),
    "settle-sleep": ("(time.sleep(2.6) or True)", "", "2.6 s asleep for the world to settle"),
    "settle-select": ("select.select([], [], [], 2.6) == ([], [], [])", _SEL, "2.6 s waiting on nothing"),
}


def _defect(i: int, name: str) -> Defect:
    cost, imports, what = _COSTS[name]
    base, check_id = FLAKY_BASES[i % len(FLAKY_BASES)]
    return Defect(CLASS, name, base,
                  f"fails a correct agent on a slower or busier machine, by {what} (`{cost}`): a run that passes here "
                  "in a share of the sandbox's time limits times out there",
                  breaks=python_check(check_id, None, clock=True, clock_expr=cost, imports=imports),
                  fix=python_check(check_id, None, clock=False), gate="sandbox", code="cost_near_limit",
                  reference_sound=False)


DEFECTS = [_defect(i, name) for i, name in enumerate(_COSTS)]
