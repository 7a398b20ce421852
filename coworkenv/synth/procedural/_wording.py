"""How a coworker frames a request: a greeting, a lead-in, a reason and a sign-off around the task itself.

Every part is drawn independently from its own pool (some name the user's team or manager), so two requests
for the same task structure rarely share more than one part; near-duplicate requests (Jaccard of word
3-shingles) then come from the task, not from a handful of fixed phrasings. The parts ask for nothing, name
no day, time or number, never ask for a reply (a request for an answer needs a check of it) and never
contradict the task: the checks stay the same. Wording draws from its own
rng, so the world and the reference solution do not depend on it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

GREETINGS = (
    "Hi", "Hello", "Hey", "Morning", "Good morning", "Good afternoon", "Hi there", "Hey there", "Hiya", "Afternoon",
    "Hello again", "Hey, it's me again", "Hi, hope you are well",
)
LEADS = (
    "quick favour before my next meeting.", "I have one for you.", "got a task for you.",
    "here is the next thing on my list.", "can you take this off my plate?", "another small one.",
    "something came up.", "I need a hand with something.", "one more job for you.",
    "I'm between calls, so briefly.", "hope your day is going well.", "this one can't wait much longer.",
    "could you handle something for me?", "I'd love your help with this.", "a small request.",
    "while I'm thinking of it.", "I have a request.",
)
REASONS = (
    "{manager} asked me about it this morning.", "It came up in my one-to-one with {manager}.",
    "{manager} would like it sorted soon.", "It's on the agenda of the {team} sync.",
    "The rest of {team} is waiting on it.", "I want it done before the {team} review.",
    "It keeps slipping off my list.", "I'd rather not leave it hanging.", "I meant to do it myself but ran out of time.",
    "It's been bugging me for a while.", "I'm buried in meetings today.", "I'm trying to clear my backlog.",
    "It should be quick for you.", "I want to get ahead of it.", "People have started asking about it.",
)
SIGNOFFS = (
    "Thanks!", "Thanks a lot.", "Much appreciated.", "Cheers.", "Thank you!", "Many thanks.", "Appreciate it.",
    "Thanks in advance.", "Great, thanks.", "Thanks so much.", "Brilliant, thanks.",
    "Thanks, {first}", "Cheers, {first}", "Thank you, {first}", "You're a star.", "Talk soon.",
)


def frame_request(core: str, rng: random.Random, *, first: str, team: str, manager: str | None) -> str:
    """`core` (the task) with a greeting and lead-in, usually a reason before or after it, and a sign-off."""
    names = {"first": first, "team": team, "manager": manager or "My manager"}
    reasons = [r for r in REASONS if manager is not None or "{manager}" not in r]
    opener = f"{rng.choice(GREETINGS)}, {rng.choice(LEADS)}"
    opener = opener[0].upper() + opener[1:]
    parts = [opener, core]
    if rng.random() < 0.85:
        reason = rng.choice(reasons).format(**names)
        parts.insert(1 if rng.random() < 0.5 else 2, reason)
    parts.append(rng.choice(SIGNOFFS).format(**names))
    return " ".join(parts)


def compose(rng: random.Random, *slots: Sequence[str], **names: object) -> str:
    """One alternative from each slot (a clause of the request), formatted with `names`, joined by spaces.

    Slots vary independently, so a request of four slots with four alternatives each has 256 wordings.
    """
    return " ".join(rng.choice(slot).format(**names) for slot in slots)
