"""What a student has learned, token by token: teacher-forced accuracy on held-out demonstrations.

pass@1 is all or nothing: one wrong id fails an episode. Before a model passes anything, this probe shows which
part of the teacher's behaviour it has picked up. Every assistant token of a held-out demonstration is predicted
greedily from the true prefix (teacher forcing) and counted in one of two classes:

- `copied`: the token occurs earlier in the conversation outside the assistant's own messages (the request, the
  system prompt, a tool result) and is not a format token: ids, names, paths and values the agent has to carry
  from what it read. Format tokens are those that occur in the assistant messages of at least half of the probed
  conversations (`{"`, `name`, tool names, `<tool_call>`, ...): they also occur earlier, in the tool list, but
  the model writes them from habit, not by carrying them over;
- `other`: everything else: the call format, tool names, argument names, the agent's own words.

Within `copied`, `first_copied` counts the first token of each carried run (a copied token whose predecessor in
the assistant's message is not copied): which value to copy is chosen there, and the rest of the value can follow
from where it was read. A student that picks values from its memory of the training set instead of the context
is right on the rest of a value and wrong on its first token (docs/learning.md, L10). The rest of a value,
`continued`, is counted apart, and within it the tokens whose two predecessors are followed somewhere in what was
read by another token (`shared_pair`: `59` in `PO-62599` and `CC-9596`): there a match of the last two tokens
cannot tell which place the value is being copied from (L23). On a copy-head model the
probe also says, at those first tokens, how much weight the gate gives the copy head and how often the copy head
alone puts at least half its mass on the right token: whether the pointer learned to choose, and whether the gate
lets it (L11).

A model that learned the format but not yet to carry values over scores high on `other` and low on `copied`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import torch
from transformers import PreTrainedModel, PreTrainedTokenizerBase

from trainers.copy_model import uses_copy_head
from trainers.sft_data import to_chat

__all__ = ["TokenAccuracy", "teacher_forced_accuracy"]


@dataclass(frozen=True)
class TokenAccuracy:
    """Greedy next-token accuracy on the assistant tokens of some demonstrations, overall and per class."""

    conversations: int
    tokens: int
    correct: int
    copied_tokens: int
    copied_correct: int
    first_copied_tokens: int = 0
    first_copied_correct: int = 0
    first_copied_pointer_right: int | None = None  # copy-head models: the pointer alone puts >= 0.5 on the token
    first_copied_copy_weight: float | None = None  # copy-head models: the gate's mean weight on the copy head
    continued_tokens: int = 0  # copied tokens after the first of a carried run
    continued_correct: int = 0
    shared_pair_tokens: int = 0  # continued tokens whose two predecessors are followed elsewhere by another token
    shared_pair_correct: int = 0

    @property
    def accuracy(self) -> float:
        return self.correct / self.tokens if self.tokens else 0.0

    @property
    def copied_accuracy(self) -> float:
        return self.copied_correct / self.copied_tokens if self.copied_tokens else 0.0

    @property
    def first_copied_accuracy(self) -> float:
        return self.first_copied_correct / self.first_copied_tokens if self.first_copied_tokens else 0.0

    @property
    def continued_accuracy(self) -> float:
        return self.continued_correct / self.continued_tokens if self.continued_tokens else 0.0

    @property
    def shared_pair_accuracy(self) -> float:
        return self.shared_pair_correct / self.shared_pair_tokens if self.shared_pair_tokens else 0.0

    @property
    def other_accuracy(self) -> float:
        other = self.tokens - self.copied_tokens
        return (self.correct - self.copied_correct) / other if other else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "accuracy": round(self.accuracy, 4), "copied_accuracy": round(self.copied_accuracy, 4),
                "first_copied_accuracy": round(self.first_copied_accuracy, 4),
                "continued_accuracy": round(self.continued_accuracy, 4),
                "shared_pair_accuracy": round(self.shared_pair_accuracy, 4),
            **({} if self.first_copied_pointer_right is None or not self.first_copied_tokens else
               {"first_copied_pointer_accuracy": round(self.first_copied_pointer_right / self.first_copied_tokens, 4)}),
                "other_accuracy": round(self.other_accuracy, 4)}


def _spans(tokenizer: PreTrainedTokenizerBase, row: Mapping[str, Any], rendering: str) -> tuple[list[int], list[int]]:
    messages, tools = to_chat(row, "probe row", rendering)
    encoded: Mapping[str, Any] = tokenizer.apply_chat_template(  # type: ignore[assignment]  # a dict here
        messages, tools=tools, tokenize=True, return_dict=True, return_assistant_tokens_mask=True)
    return list(encoded["input_ids"]), list(encoded["assistant_masks"])


@torch.no_grad()
def teacher_forced_accuracy(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase,
                            rows: Sequence[Mapping[str, Any]], rendering: str) -> TokenAccuracy:
    """Teacher-forced greedy accuracy of `model` on the assistant tokens of `rows` (`sft_shards` rows)."""
    encoded = [_spans(tokenizer, row, rendering) for row in rows]
    frequency: dict[int, int] = {}
    for ids, mask in encoded:
        for token in {t for t, m in zip(ids, mask, strict=True) if m}:
            frequency[token] = frequency.get(token, 0) + 1
    habitual = {t for t, n in frequency.items() if 2 * n >= len(encoded)}
    was_training = model.training
    model.eval()
    tokens = correct = copied_tokens = copied_correct = first_tokens = first_correct = 0
    copy_head = uses_copy_head(model)
    pointer_right, copy_weight = 0, 0.0
    continued = continued_correct = shared = shared_correct = 0
    try:
        for ids, mask in encoded:
            row = torch.tensor([ids])
            # A copy-head model scores every position given labels everywhere, and says what its pointer and gate did.
            out = model(input_ids=row, labels=row, pointer_loss=True) if copy_head else model(input_ids=row)
            predicted = out.logits[0].argmax(-1).tolist()
            seen: set[int] = set()  # tokens so far outside assistant messages
            followers: dict[tuple[int, int], set[int]] = {}  # there: each pair of tokens -> the tokens after it
            after_copied = False  # the previous token was an assistant token carried over
            for position in range(1, len(ids)):
                if not mask[position]:
                    seen.add(ids[position])
                    if position >= 2:
                        followers.setdefault((ids[position - 2], ids[position - 1]), set()).add(ids[position])
                    after_copied = False
                    continue
                hit = predicted[position - 1] == ids[position]
                tokens += 1
                correct += hit
                copied = ids[position] in seen and ids[position] not in habitual
                if copied:
                    copied_tokens += 1
                    copied_correct += hit
                    if not after_copied:
                        first_tokens += 1
                        first_correct += hit
                        if copy_head:  # the token occurred earlier, so the pointer could copy it: its nll is
                            # its own (0 only marks labels that cannot be copied, which a carried token never is)
                            pointer_right += float(out.pointer_nll[0, position - 1]) <= math.log(2)
                            copy_weight += float(out.copy_weight[0, position - 1])
                    else:
                        continued += 1
                        continued_correct += hit
                        if followers.get((ids[position - 2], ids[position - 1]), set()) - {ids[position]}:
                            shared += 1
                            shared_correct += hit
                after_copied = copied
    finally:
        model.train(was_training)
    return TokenAccuracy(len(rows), tokens, correct, copied_tokens, copied_correct, first_tokens, first_correct,
                         pointer_right if copy_head else None,
                         round(copy_weight / first_tokens, 4) if copy_head and first_tokens else None,
                         continued, continued_correct, shared, shared_correct)
