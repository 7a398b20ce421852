"""Grounded demonstrations: every value an agent writes into a tool call is one it has seen.

A reference solution is written by the generator, which knows the whole world: it may read `msg-655` or DM
`dm-u-marcus-u-vera` without first listing the inbox or the channels. Played as a demonstration, such a call
teaches a student to *guess* ids, names and paths, and a student trained on it writes frequent ids where it
should copy the one it read (docs/learning.md). So:

- `unseen_values` finds the values of a call's arguments (ids, paths, emails, dates, amounts: tokens with a digit
  or one of `-_/@.`; inside prose, hyphens alone do not make a value) that occur nowhere in what the agent has
  observed: the system prompt, the user's messages,
  the tool results and the tool schemas (enum values such as `in_progress` are seen there); and the words of a
  search's query (`query`, `keywords`...) the agent has not seen: a search for a topic the request never named
  teaches a student to guess what to search for, exactly as a guessed id does;
- `unseen_in_record` lists them for a whole trajectory (a curation figure: demonstrations that teach guessing);
- `discovery_call` finds, for a call with unseen values, a read-only list or search call whose result shows
  them, so the oracle can look before it acts (`NarratedOracle(grounded=True)`).

A value the agent computes (a time window from time zones, a total) is reported too: it is not copied from what
was read, and a student must learn to compute it. Discovery cannot help there, so those calls stay as they are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import orjson

from coworkenv.env import AGENT_INSTRUCTIONS, Env
from coworkenv.spec import EnvSpec, ToolCallSpec

__all__ = ["discovery_call", "observed_text", "unseen_in_record", "unseen_values", "world_text"]

# A value the agent must carry: a token with a digit or an id-ish separator (ids, paths, emails, dates, amounts).
_VALUE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@/:+-]*[0-9_/@-][A-Za-z0-9_.@/:+-]*|[A-Za-z0-9]+[0-9][A-Za-z0-9]*")
# Inside prose, a value needs a digit or one of `_/@.` inside it; a bare argument (an id) may be hyphens only.
_IN_PROSE = re.compile(r"[0-9_/@]|\w\.\w")
# Phrases worth searching for: capitalised word runs (names, companies) and emails seen so far.
_PHRASE = re.compile(r"[A-Z][a-z]+(?: [A-Z][a-z]+){0,2}|[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_LISTING = re.compile(r"_(?:list|search|find)")  # read tools that show many records at once
_MAX_QUERIES = 64
_SMALL_NUMBER = 1000
_SHORT_RESULT = 4096  # characters of a tool result that still read as "brief"
# Arguments whose words are what the agent searches for: each word must be one it has seen.
_SEARCH_KEYS = frozenset({"query", "q", "keywords", "keyword", "search", "term", "terms"})
_WORD = re.compile(r"[^\W\d_][^\W\d_'-]{2,}")  # a word of 3+ letters (shorter ones are noise: "of", "Q3")


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, int | float) and not isinstance(value, bool) and abs(value) >= _SMALL_NUMBER:
        yield str(value)  # a number under 1,000 (a `limit`, a page size) is taken for the agent's own choice


def _search_texts(value: Any) -> Iterator[str]:
    """The strings of `value` (any nesting) given under a search key (`query`, `keywords`, ...)."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield from (_strings(item) if str(key).casefold() in _SEARCH_KEYS else _search_texts(item))
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _search_texts(item)


def _word_seen(word: str, folded: str) -> bool:
    """`word` (casefolded) occurs in `folded`, or its singular does (`customers` after `customer`)."""
    return word in folded or (len(word) > 3 and word.endswith("s") and word[:-1] in folded)


def unseen_values(arguments: Any, observed: str) -> list[str]:
    """The values in `arguments` (a call's arguments, any nesting) that do not occur in `observed`, in order: ids,
    paths, emails, numbers anywhere, and the words of a search's query."""
    unseen: list[str] = []
    folded = observed.casefold()  # `P1` is seen where a result says `p1`
    for text in _strings(arguments):
        for value in _VALUE.findall(text):
            value = value.rstrip(".:")
            if " " in text.strip() and not _IN_PROSE.search(value):
                continue  # a hyphenated word in prose ("on-call", "follow-up") is language, not a value
            if value and value.casefold() not in folded and value not in unseen:
                unseen.append(value)
    for text in _search_texts(arguments):
        for word in _WORD.findall(text):
            if not _word_seen(word.casefold(), folded) and word not in unseen:
                unseen.append(word)
    return unseen


def observed_text(messages: Iterable[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] | None = None) -> str:
    """What an agent has seen: the system and user messages, the tool results, and the tool schemas."""
    parts = [str(m.get("content") or "") for m in messages if m.get("role") in ("system", "user", "tool")]
    if tools:
        parts.append(orjson.dumps(list(tools)).decode())
    return "\n".join(parts)


def _arguments(raw: Any) -> Any:
    return orjson.loads(raw) if isinstance(raw, str | bytes) and raw else raw or {}


def unseen_in_record(messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] | None = None,
                     ) -> list[tuple[str, str]]:
    """(tool, value) for every value an assistant call of `messages` writes before the agent could have seen it."""
    found: list[tuple[str, str]] = []
    seen = observed_text((), tools)
    for message in messages:
        if message.get("role") != "assistant":
            seen += "\n" + observed_text((message,))  # what this message shows, in order
            continue
        for call in message.get("tool_calls") or ():
            function = call.get("function", call)
            found += [(function["name"], v) for v in unseen_values(_arguments(function.get("arguments")), seen)]
    return found


_WORLD_TEXTS: dict[int, tuple[EnvSpec, str]] = {}  # id(spec) -> (spec, text), for the last few specs


def world_text(spec: EnvSpec) -> str:
    """The spec's initial world as JSON text (what any read could show, besides what the episode writes)."""
    cached = _WORLD_TEXTS.get(id(spec))
    if cached is not None and cached[0] is spec:
        return cached[1]
    if len(_WORLD_TEXTS) >= 64:
        _WORLD_TEXTS.pop(next(iter(_WORLD_TEXTS)))
    text = orjson.dumps(spec.world.apps.model_dump(mode="json")).decode()
    _WORLD_TEXTS[id(spec)] = (spec, text)
    return text


def _candidates(env: Env, tools: list[dict[str, Any]], seen: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Read-only listing and search calls among `tools` the agent could make now, with arguments from what it has
    seen: calls without arguments first, then searches for the names and emails seen (not in the fixed
    instructions)."""
    phrases = list(dict.fromkeys(_PHRASE.findall(seen.replace(AGENT_INSTRUCTIONS, ""))))[:_MAX_QUERIES]
    searches: list[tuple[str, dict[str, Any]]] = []
    for tool in tools:
        function = tool["function"]
        name = function["name"]
        definition = env.toolbox.tool(name)
        if definition is None or definition.kind != "read" or not _LISTING.search(name):
            continue
        parameters = function.get("parameters") or {}
        required = set(parameters.get("required") or ())
        if not required:
            yield name, {}
        if "query" in (parameters.get("properties") or {}) and required <= {"query"}:
            searches += [(name, {"query": phrase}) for phrase in phrases]
    yield from searches


def discovery_call(env: Env, arguments: Any) -> ToolCallSpec | None:
    """A read-only call that shows the agent values of `arguments` it has not seen yet, or None.

    Every candidate runs against the env's world without being recorded (read tools do not change the world; this
    is checked). The call showing the most unseen values wins; among equals, the one with the shortest result.
    """
    tools = env.openai_tools()
    seen = observed_text(env.messages, tools)
    world = world_text(env.spec)
    # Only values the world holds can be shown by a read; others (a computed time, a total) cannot be discovered.
    missing = [value for value in unseen_values(arguments, seen) if value in world]
    if not missing:
        return None
    before = env.state.content_hash()
    best: tuple[int, int, str, dict[str, Any]] | None = None
    for name, args in _candidates(env, tools, seen):
        outcome = env.toolbox.call(name, args)
        if not outcome.ok:
            continue
        shown = orjson.dumps(outcome.observation()).decode()
        revealed = sum(value in shown for value in missing)
        if revealed and (best is None or (revealed, -len(shown)) > (best[0], -best[1])):
            best = (revealed, len(shown), name, args)
            if revealed == len(missing) and len(shown) <= _SHORT_RESULT:
                break  # shows everything, and briefly: good enough
    if env.state.content_hash() != before:
        raise RuntimeError("a read tool changed the world while looking for a discovery call")
    return None if best is None else ToolCallSpec(name=best[2], arguments=best[3])
