"""Tool calls decoded under a grammar: a local model can only write calls of the tools a request exposes.

vLLM constrains tool calls with a grammar when asked (`tool_choice`, structured outputs); a local model decoding
freely can write a call of a tool that does not exist, an argument the tool does not take, JSON that does not parse,
or a call without an argument the tool requires (`files_search_files {}`: docs/learning.md, L17). With
`decoding="grammar"` (`LocalTransformersBackend`, `trainers.batching`), every assistant message is generated under
an llguidance grammar (https://github.com/guidance-ai/llguidance) built from the request's tools:

- an optional empty think block (`<think>\\n\\n</think>\\n\\n`, as the Qwen3 templates write it), then either
- a reply: any text that does not start with `<`, or
- one or more hermes tool calls, each `<tool_call>\\n{"name": "<tool>", "arguments": {...}}\\n</tool_call>`, where
  `<tool>` is one of the request's tools and the arguments object holds only that tool's parameters, each value
  valid under the parameter's JSON schema, every required parameter present, in any order (the grammar does not
  impose the schema's order on a model trained on calls written in another), written as compact JSON (the
  `compact` and `minimal` renderings of `trainers.rendering`).

Only the shape is constrained: which tool, which values, and whether to call at all stay the model's choice, unless
`tool_choice` says otherwise, as OpenAI's `tool_choice="required"` does for a request: `required` makes every message
tool calls, with no reply alternative (the episode ends at its step limit); `first` only the first message of every
user turn (a request whose last message is the user's), later ones `auto` (reply or call). A student that rarely starts a message with `<tool_call>` (docs/learning.md,
round rl13) then acts in every episode, and which tools it calls with which values is what its episodes differ in.
The grammar is built once per distinct tool list and tokenizer (`ToolCallGrammars`), and one matcher per generated
message follows the sampled tokens (`GrammarLogitsProcessor`, a transformers `LogitsProcessor`), so batched
generation constrains each row with its own request's tools.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast, get_args

import torch
from transformers import LogitsProcessor, PreTrainedTokenizerBase

__all__ = ["Decoding", "GrammarLogitsProcessor", "MessageGrammar", "ToolCallGrammars", "ToolChoice", "check_decoding",
           "check_tool_choice", "requires_call", "tool_call_lark"]

Decoding = Literal["free", "grammar"]
ToolChoice = Literal["auto", "first", "required"]
_MAX_PERMUTED_REQUIRED = 3  # more required parameters than this: any order, presence not enforced (k! alternatives)
_MARKERS = ("<tool_call>", "</tool_call>", "<think>", "</think>")
_COMPACT = {"whitespace_flexible": False, "item_separator": ",", "key_separator": ":"}


def check_decoding(decoding: str) -> Decoding:
    if decoding not in get_args(Decoding):
        raise ValueError(f"unknown decoding {decoding!r}; use one of {', '.join(get_args(Decoding))}")
    return decoding  # type: ignore[return-value]  # checked against the Literal's values just above


def check_tool_choice(tool_choice: str, decoding: str) -> ToolChoice:
    """`tool_choice` checked: one of `ToolChoice`, and `first` only with `decoding="grammar"` (free decoding cannot
    make a message a call)."""
    if tool_choice not in get_args(ToolChoice):
        raise ValueError(f"unknown tool_choice {tool_choice!r}; use one of {', '.join(get_args(ToolChoice))}")
    if tool_choice != "auto" and decoding != "grammar":
        raise ValueError(f"tool_choice={tool_choice!r} needs decoding='grammar' (free decoding cannot require a call)")
    return tool_choice  # type: ignore[return-value]  # checked against the Literal's values just above


def requires_call(tool_choice: str, messages: Sequence[Mapping[str, Any]], tools: Sequence[Any] | None) -> bool:
    """Whether the message answering `messages` must be tool calls under `tool_choice`, where there are tools to
    call: always under `required`; under `first`, when the conversation's last message is the user's (the first
    message of a turn)."""
    if not tools or tool_choice == "auto":
        return False
    return tool_choice == "required" or (bool(messages) and messages[-1].get("role") == "user")


def _lark_string(text: str) -> str:
    """`text` as a Lark string literal."""
    return json.dumps(text, ensure_ascii=False)


def _value_schema(schema: Mapping[str, Any]) -> str:
    """An argument value's JSON schema as an inline `%json` non-terminal, compact (no spaces)."""
    body = {k: v for k, v in schema.items() if k not in ("description", "default", "examples", "title")}
    if body == {"type": "any"}:
        body = {}
    return "%json " + json.dumps({**body, "x-guidance": _COMPACT}, ensure_ascii=False)


def _arguments_rules(prefix: str, parameters: Mapping[str, Any]) -> list[str]:
    """Lark rules `<prefix>_args` for one tool's arguments object: its parameters only, every required one present
    (up to `_MAX_PERMUTED_REQUIRED` of them), in any order."""
    properties = dict(parameters.get("properties") or {})
    required = [name for name in parameters.get("required") or () if name in properties]
    rules = []
    names = sorted(properties)
    for i, name in enumerate(names):
        rules.append(f"{prefix}_p{i}: {_lark_string(json.dumps(name) + ':')} {_value_schema(properties[name])}")
    index = {name: i for i, name in enumerate(names)}
    if len(required) > _MAX_PERMUTED_REQUIRED:
        required = []
    optional = [f"{prefix}_p{index[n]}" for n in names if n not in required]
    if optional:
        rules.append(f"{prefix}_opt: " + " | ".join(optional))
    if not names:
        rules.append(f'{prefix}_args: "{{}}"')
        return rules
    if not required:
        rules.append(f'{prefix}_args: "{{" ({prefix}_opt ("," {prefix}_opt)*)? "}}"')
        return rules
    between = f'("," {prefix}_opt)*' if optional else ""
    before = f'({prefix}_opt ",")*' if optional else ""
    alternatives = []
    for order in itertools.permutations(required):
        items = ' "," '.join(f"{prefix}_p{index[n]} {between}".strip() for n in order)
        alternatives.append(f'"{{" {before} {items} "}}"')
    rules.append(f"{prefix}_args: " + " | ".join(alternatives))
    return rules


def _marker(text: str, special: Collection[str]) -> str:
    """A markup tag (`<tool_call>`, `<think>`...) in Lark: a special token where the tokenizer has it as one, else
    its text."""
    return text if text in special else _lark_string(text)


def tool_call_lark(tools: Sequence[Mapping[str, Any]], special: Collection[str] = (), *,
                   require_call: bool = False) -> str:
    """The llguidance Lark grammar of one assistant message for a request exposing `tools` (OpenAI function tools);
    `special`: the markup tags the tokenizer holds as single added tokens (llguidance matches those whole);
    `require_call`: the message must be tool calls (no reply), where there is a tool to call."""
    open_call, close_call = _marker("<tool_call>", special), _marker("</tool_call>", special)
    rules: list[str] = []
    calls: list[str] = []
    for t, tool in enumerate(tools):
        function = tool.get("function", tool)
        name = function.get("name")
        if not isinstance(name, str) or not name:
            raise ValueError(f"a tool without a name cannot be put in a grammar: {json.dumps(tool)[:200]}")
        parameters = function.get("parameters") or {}
        rules.extend(_arguments_rules(f"t{t}", parameters))
        head, tail = _lark_string('\n{"name": ' + json.dumps(name) + ', "arguments": '), _lark_string("}\n")
        rules.append(f"t{t}_call: {open_call} {head} t{t}_args {tail} {close_call}")
        calls.append(f"t{t}_call")
    lines = [
        "start: think? body",
        "body: " + ("calls" if calls and require_call else "REPLY" + (" | calls" if calls else "")),
        f'think: {_marker("<think>", special)} "\\n\\n" {_marker("</think>", special)} "\\n\\n"',
        # A reply is any text not starting with `<` (which would begin a tool call or a think block).
        r"REPLY: /[^<](.|\n)*/",
    ]
    if calls:
        lines.append('calls: call ("\\n" call)*')
        lines.append("call: " + " | ".join(calls))
    return "\n".join(lines + rules) + "\n"


@dataclass
class MessageGrammar:
    """The grammar state of one message being generated: an llguidance matcher and its tokenizer's vocabulary size."""

    matcher: Any  # llguidance.LLMatcher
    vocab_size: int


class ToolCallGrammars:
    """Grammars of tool lists for one tokenizer: `matcher(tools)` gives a fresh matcher for one message.

    Building the llguidance tokenizer takes about a second and compiling a grammar a few milliseconds; both are
    cached (the grammar by the tool list's content).
    """

    def __init__(self, tokenizer: PreTrainedTokenizerBase) -> None:
        import llguidance
        import llguidance.hf

        self._llguidance = llguidance
        self.tokenizer = llguidance.hf.from_tokenizer(tokenizer)  # type: ignore[arg-type]
        self.vocab_size = int(self.tokenizer.vocab_size)
        added = {token.content for token in getattr(tokenizer, "added_tokens_decoder", {}).values()}
        self.special = {tag for tag in _MARKERS if tag in added}
        self._grammars: dict[tuple[str, bool], str] = {}

    def grammar(self, tools: Sequence[Mapping[str, Any]] | None, require_call: bool = False) -> str:
        key = (hashlib.sha256(json.dumps(list(tools or ()), sort_keys=True, default=str).encode()).hexdigest(),
               require_call)
        if key not in self._grammars:
            lark = tool_call_lark(list(tools or ()), self.special, require_call=require_call)
            grammar = self._llguidance.LLMatcher.grammar_from_lark(lark)
            failed, messages = self._llguidance.LLMatcher.validate_grammar_with_warnings(grammar, self.tokenizer)
            if failed:
                raise ValueError(f"the tool-call grammar does not compile: {messages}")
            self._grammars[key] = grammar
        return self._grammars[key]

    def message(self, tools: Sequence[Mapping[str, Any]] | None, require_call: bool = False) -> MessageGrammar:
        """The grammar state for one assistant message generated for a request exposing `tools` (`require_call`:
        tool calls only, no reply)."""
        matcher = self._llguidance.LLMatcher(self.tokenizer, self.grammar(tools, require_call))
        if matcher.is_error():
            raise ValueError(f"the tool-call grammar does not compile: {matcher.get_error()}")
        return MessageGrammar(matcher, self.vocab_size)


class GrammarLogitsProcessor(LogitsProcessor):
    """Masks each row's next-token scores to what its message grammar allows (a row with `None` is left free).

    transformers calls it once per generated token with the whole sequences so far: the first call sees the
    prompts, every later one the token sampled last, which the row's matcher consumes first. A row whose matcher
    has stopped (its message ended) or failed is left free; generation ends it at EOS or its budget anyway.
    """

    def __init__(self, grammars: Sequence[MessageGrammar | None]) -> None:
        from llguidance.torch import allocate_token_bitmask, fill_next_token_bitmask

        self.matchers = [g.matcher if g is not None else None for g in grammars]
        vocab_size = max((g.vocab_size for g in grammars if g is not None), default=1)
        self._fill = fill_next_token_bitmask
        self.bitmask = allocate_token_bitmask(len(self.matchers), vocab_size)
        self._bits = torch.arange(32, dtype=torch.int32)
        self._started = False  # the first call sees the prompts: nothing sampled yet to consume
        self.failures: list[str] = []

    def _consume(self, input_ids: torch.LongTensor) -> None:
        last = input_ids[:, -1].tolist()
        for row, matcher in enumerate(self.matchers):
            if matcher is None or matcher.is_stopped():
                continue
            if not matcher.consume_token(int(last[row])):
                self.failures.append(matcher.get_error() or "token not accepted")
                self.matchers[row] = None

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        if not self._started:
            self._started = True
        else:
            self._consume(input_ids)
        active = [row for row, m in enumerate(self.matchers) if m is not None and not m.is_stopped()]
        if not active:
            return scores
        for row in active:
            self._fill(cast(Any, self.matchers[row]), self.bitmask, row)
        rows = torch.tensor(active)
        allowed = ((self.bitmask[rows].unsqueeze(-1) >> self._bits) & 1).reshape(len(active), -1).bool()
        vocab = scores.shape[1]
        if allowed.shape[1] < vocab:  # a model vocabulary padded beyond the tokenizer's: the padding never allowed
            allowed = torch.nn.functional.pad(allowed, (0, vocab - allowed.shape[1]), value=False)
        masked = scores[rows].masked_fill(~allowed[:, :vocab], float("-inf"))
        constrained = scores.clone()
        constrained[rows] = masked
        return cast(torch.FloatTensor, constrained)
