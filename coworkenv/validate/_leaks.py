"""Isolation scanning: does the world or the prompt carry the verifier or the reference solution?

The agent reaches the workspace only through tools, and tools only read the world; so whatever the world's
records (initially, or written later by dynamics and turn changes) and the prompt (system prompt, user turns,
notifications) contain is what the agent can see. Needles are verbatim artifacts of the verifier and of the
reference: Python check code, serialized check rules, check ids, the reference's own answer text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import orjson

from coworkenv.checks.results import AuditEntry
from coworkenv.spec import EnvSpec, PythonRule
from coworkenv.validate._answer_keys import answer_key_leaks
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate._paraphrased_leaks import paraphrased_leaks
from coworkenv.validate._unread_answers import unread_answer_leaks

_MIN_CODE_LINE = 20  # shorter code lines ("return True") occur in ordinary text
_MIN_SAY = 40  # a shorter answer may legitimately quote the workspace
_MIN_CHECK_ID = 6
# Markers of the spec wire format itself: serialized checks or reference steps.
_CHECK_MARKER = '"rule":{"kind":'
_REFERENCE_MARKER = '"steps":[{"call":'


@dataclass(frozen=True)
class Needle:
    """A verbatim piece of the verifier or the reference; `code` names what leaks if it is found."""

    code_world: str
    code_prompt: str
    path: str
    text: str
    what: str


def normalize(text: str) -> str:
    """Lower case with runs of whitespace collapsed."""
    return " ".join(text.split()).lower()


def world_strings(spec: EnvSpec) -> tuple[list[str], int]:
    """Every string the agent could read through tools (initial records, what dynamics and turns write), and how
    many of them (the first ones) are the initial records'."""
    parts: list[str] = []
    _strings(spec.world.apps.model_dump(mode="json"), parts)
    initial = len(parts)
    for rule in spec.dynamics.rules:
        _strings([e.model_dump(mode="json") for e in rule.effects], parts)
    parts.extend(stream.message for stream in spec.dynamics.streams)
    for turn in spec.turns:
        _strings([e.model_dump(mode="json") for e in turn.changes], parts)
    return parts, initial


def readable_text(spec: EnvSpec) -> str:
    """What the agent can read, lower case: the turns, the context and every world string."""
    strings, _ = world_strings(spec)
    said = " ".join([spec.context, *(t.content for t in spec.turns), *(t.announce or "" for t in spec.turns)])
    return world_text(strings) + "\0" + normalize(said)


def world_text(parts: list[str]) -> str:
    """The world's strings normalized and separated by NUL so no match spans two strings."""
    return " ".join("\0".join(parts).lower().split())


def _strings(value: Any, out: list[str]) -> None:
    if isinstance(value, dict):
        value = value.values()
    elif not isinstance(value, list):
        if isinstance(value, str):
            out.append(value)
        return
    for v in value:
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, dict | list):
            _strings(v, out)


def needles(spec: EnvSpec) -> Iterator[Needle]:
    """The verbatim verifier and reference artifacts of a spec."""
    for _, check, where, rule in spec_rules(spec.checks):  # each rule a tier holds too: a copy of it gives it away
        if isinstance(rule, PythonRule):
            for line in rule.code.splitlines():
                text = normalize(line)
                if len(text) >= _MIN_CODE_LINE and not text.startswith("#"):
                    yield Needle("verifier_in_world", "verifier_in_prompt", f"{where}.code", text,
                                 f"a line of python check {check.id!r}")
        rule_json = orjson.dumps(rule.model_dump(mode="json")).decode().lower()
        yield Needle("verifier_in_world", "verifier_in_prompt", where, "".join(rule_json.split()),
                     f"the definition of check {check.id!r}")
    for t, turn in enumerate(spec.reference):
        for s, step in enumerate(turn.steps):
            if step.say is not None and len(normalize(step.say)) >= _MIN_SAY:
                yield Needle("reference_in_world", "reference_in_prompt", f"reference[{t}].steps[{s}].say",
                             normalize(step.say), "the reference answer")


@lru_cache(maxsize=4096)
def _check_id(ident: str) -> re.Pattern[str]:
    """A check id as a whole name (not inside a longer identifier)."""
    return re.compile(rf"(?<![\w-]){re.escape(ident)}(?![\w-])")


def find_leaks(spec: EnvSpec, prompts: list[tuple[str, str]],
               audit: list[AuditEntry] | None = None) -> Iterator[tuple[str, str, str]]:
    """(code, path, message) for every verifier or reference artifact the agent can see, verbatim or reworded
    (see `_paraphrased_leaks`); given the reference episode's `audit`, also the answers in records it never
    reads (see `_unread_answers`)."""
    strings, initial = world_strings(spec)
    world = world_text(strings)
    world_compact = "".join(world.split())
    prompt_norm = [(path, normalize(text)) for path, text in prompts]
    prompt_compact = [(path, "".join(text.split())) for path, text in prompt_norm]
    for needle in needles(spec):
        # Serialized rules are matched without whitespace, so pretty-printed copies count too.
        compact = needle.path.endswith(".rule")
        haystack = world_compact if compact else world
        if needle.text in haystack:
            yield needle.code_world, needle.path, f"{needle.what} appears in a world record the agent can read"
        for where, text in prompt_compact if compact else prompt_norm:
            if needle.text in text:
                yield needle.code_prompt, needle.path, f"{needle.what} appears in {where}"
    if _CHECK_MARKER in world_compact:
        yield "verifier_in_world", "world", "a world record contains serialized checks (\"rule\": {\"kind\": ...})"
    if _REFERENCE_MARKER in world_compact:
        yield "reference_in_world", "world", "a world record contains serialized reference steps"
    verbatim = {needle.path for needle in needles(spec) if needle.text in world}
    for code, path, message in paraphrased_leaks(spec, world, audit):
        if path not in verbatim:
            yield code, path, message
    yield from answer_key_leaks(spec, world, prompts, "\0".join(strings[:initial]))
    if audit is not None:
        yield from unread_answer_leaks(spec, world, world_text(strings[:initial]), audit)
    for i, check in enumerate(spec.checks):
        ident = check.id.lower()
        if len(ident) < _MIN_CHECK_ID or not any(c in ident for c in "-_"):
            continue  # a plain word id ("done") is ordinary language, not a leak
        for where, text in prompt_norm:
            if _check_id(ident).search(text):
                yield "check_id_in_prompt", f"checks[{i}].id", f"check id {check.id!r} appears in {where}"
