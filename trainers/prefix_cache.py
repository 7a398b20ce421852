"""KV caches kept between batched `generate` calls, so a conversation's next message prefills only what is new.

An episode's next request is its previous request, the message just generated and what the env answered (tool
results, the next user turn). Generated from scratch, every message would prefill the whole conversation again: at
16 episodes of 1,500-3,500 tokens that is most of an RL step's generation time (`benchmarks/bench_rl_step.py`).
`PrefixCaches` keeps, per generated row, the keys and values of the tokens the batch's cache holds (and a copy-head
model's copy memory, `trainers.copy_model`), and `assemble` builds the next batch's left-padded cache from them:

- a request starts from the cache of the kept sequence it shares the longest prefix with (the conversation so
  far, or, re-rendered, the part of it that renders the same);
- requests with nothing kept are prefilled once per distinct prompt (a GRPO group's episodes share theirs);
- the batch cache is as wide as the shortest uncached tail allows: every row feeds the same number of new tokens,
  so a row with a shorter tail recomputes a few cached tokens, and a row shorter than that is left-padded.

Positions follow the attention mask (as `generate` numbers them), so each row's keys and values are what one full
forward pass over its own tokens gives, up to float rounding (`tests/test_trainers_batching.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import torch
from transformers import DynamicCache, DynamicLayer, PreTrainedModel

from trainers.copy_model import attach_copy_memory, cached_copy_memory
from trainers.local_backend import cache_argument

__all__ = ["CachedRows", "GrowingCache", "PrefixCaches"]

_MIN_ROOM = 256  # positions a growing layer allocates beyond what it holds, at least


class _GrowingLayer(DynamicLayer):
    """A `DynamicLayer` that appends into buffers with room to spare: a decode step writes one position instead of
    concatenating (copying) the whole cache, per layer, keys and values. `keys` / `values` are views of the buffers."""

    _buffers: tuple[torch.Tensor, torch.Tensor] | None = None
    _views: tuple[torch.Tensor, torch.Tensor] | None = None

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args: Any,
               **kwargs: Any) -> tuple[torch.Tensor, torch.Tensor]:
        if not self.is_initialized:
            self.lazy_initialization(key_states, value_states)
        held_keys, held_values = cast(torch.Tensor, self.keys), cast(torch.Tensor, self.values)
        held = held_keys.shape[-2] if held_keys.numel() else 0
        end = held + key_states.shape[-2]
        rebound = self._views is None or held_keys is not self._views[0] or held_values is not self._views[1]
        if rebound or self._buffers is None or end > self._buffers[0].shape[-2]:
            # First use, the cache was cropped or reordered (keys replaced), or the buffers are full: reallocate.
            room = end + max(end // 2, _MIN_ROOM)
            key_room = key_states.new_empty(*key_states.shape[:-2], room, key_states.shape[-1])
            value_room = value_states.new_empty(*value_states.shape[:-2], room, value_states.shape[-1])
            if held:
                key_room[..., :held, :] = held_keys
                value_room[..., :held, :] = held_values
            self._buffers = (key_room, value_room)
        keys, values = self._buffers
        keys[..., held:end, :] = key_states
        values[..., held:end, :] = value_states
        self._views = (keys[..., :end, :], values[..., :end, :])
        self.keys, self.values = self._views
        return self._views


class GrowingCache(DynamicCache):
    """`DynamicCache` whose full-attention layers grow into preallocated room (`_GrowingLayer`) instead of
    concatenating every step: at 16 rows of 1,500 tokens, the concatenations were a fifth of a decode step."""

    def __init__(self, config: Any) -> None:
        super().__init__(config=config)
        self.layers = [_GrowingLayer() if type(layer) is DynamicLayer else layer for layer in self.layers]


@dataclass
class _Kept:
    """One sequence's cache: per layer (keys, values) of shape (kv heads, positions, head dim), and copy keys."""

    ids: list[int]
    layers: list[tuple[torch.Tensor, torch.Tensor]]
    copy_keys: torch.Tensor | None  # (positions, copy width) for a copy-head model


@dataclass
class CachedRows:
    """A batch's assembled cache: pass `cache` to `generate` with the rows left-padded to `width` tokens; `pads` is
    each row's left padding (as `keep` needs it after generation)."""

    cache: DynamicCache
    width: int
    pads: list[int]


class PrefixCaches:
    """Caches of sequences generated earlier (at most `capacity`, the least recently kept dropped first)."""

    def __init__(self, model: PreTrainedModel, capacity: int) -> None:
        if capacity < 1:
            raise ValueError(f"PrefixCaches capacity {capacity}: keep at least one sequence")
        self.model = model
        self.capacity = capacity
        self.kept: list[_Kept] = []
        self.prefilled_tokens = 0  # tokens run through the model to build caches (for tests and benchmarks)

    def _longest_prefix(self, ids: list[int]) -> tuple[_Kept | None, int]:
        """The kept sequence sharing the longest prefix with `ids` (short of its last token), and that length."""
        best: tuple[_Kept | None, int] = (None, 0)
        for kept in self.kept:
            n = min(len(kept.ids), len(ids) - 1)
            if n <= best[1]:
                continue
            shared = _shared_prefix(ids, kept.ids, n)
            if shared > best[1]:
                best = (kept, shared)
        return best

    def _prefill(self, prompts: list[list[int]], pad: int) -> list[_Kept]:
        """Caches of `prompts` (one left-padded forward pass)."""
        width = max(len(p) for p in prompts)
        device = self.model.device
        ids = torch.tensor([[pad] * (width - len(p)) + p for p in prompts], device=device)
        mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompts], device=device)
        cache = DynamicCache(config=self.model.config)
        with torch.no_grad():
            cast(Any, self.model)(input_ids=ids, attention_mask=mask, position_ids=_positions(mask), use_cache=True,
                                  logits_to_keep=1, **{cache_argument(self.model): cache})
        self.prefilled_tokens += sum(len(p) for p in prompts)
        return [_row(cache, row, width - len(p), p) for row, p in enumerate(prompts)]

    def assemble(self, sequences: Sequence[Sequence[int]], pad: int) -> CachedRows:
        """The left-padded cache for generating after each of `sequences` (all of them but the uncached tails)."""
        rows = [list(s) for s in sequences]
        found = [self._longest_prefix(s) for s in rows]
        uncached = sorted({tuple(s[:-1]) for s, (kept, _) in zip(rows, found, strict=True) if kept is None and len(s) > 1})
        if uncached:
            prefilled = dict(zip(uncached, self._prefill([list(p) for p in uncached], pad), strict=True))
            found = [(prefilled[tuple(s[:-1])], len(s) - 1) if kept is None and len(s) > 1 else (kept, n)
                     for s, (kept, n) in zip(rows, found, strict=True)]
        width = max(len(s) for s in rows)
        tail = max(len(s) - n for s, (_, n) in zip(rows, found, strict=True))
        columns = width - tail  # cache positions every row shares
        used = [max(0, len(s) - tail) for s in rows]  # cached tokens each row uses (<= its shared prefix)
        cache = GrowingCache(self.model.config)
        sample = next((kept for kept, _ in found if kept is not None), None)
        if sample is not None and columns > 0:
            for layer, (keys, values) in enumerate(sample.layers):
                batch_keys = keys.new_zeros(len(rows), keys.shape[0], columns, keys.shape[2])
                batch_values = values.new_zeros(len(rows), values.shape[0], columns, values.shape[2])
                for row, ((kept, _), n) in enumerate(zip(found, used, strict=True)):
                    if kept is not None and n:
                        batch_keys[row, :, columns - n:] = kept.layers[layer][0][:, :n]
                        batch_values[row, :, columns - n:] = kept.layers[layer][1][:, :n]
                cache.update(batch_keys, batch_values, layer)
            if sample.copy_keys is not None:
                copy_keys = sample.copy_keys.new_zeros(len(rows), columns, sample.copy_keys.shape[1])
                copy_ids = torch.full((len(rows), columns), pad, dtype=torch.long, device=copy_keys.device)
                valid = torch.zeros(len(rows), columns, dtype=torch.bool, device=copy_keys.device)
                for row, ((kept, _), n) in enumerate(zip(found, used, strict=True)):
                    if kept is not None and n:
                        assert kept.copy_keys is not None
                        copy_keys[row, columns - n:] = kept.copy_keys[:n]
                        copy_ids[row, columns - n:] = torch.tensor(kept.ids[:n], device=copy_keys.device)
                        valid[row, columns - n:] = True
                attach_copy_memory(cache, copy_keys, copy_ids, valid)
        return CachedRows(cache, width, [width - len(s) for s in rows])

    def keep(self, assembled: CachedRows, sequences: Sequence[Sequence[int]]) -> None:
        """After generation: keep each row's cache, for `sequences` (each row's tokens, its generated ones last)."""
        held = assembled.cache.get_seq_length()
        for row, (sequence, pad) in enumerate(zip(sequences, assembled.pads, strict=True)):
            n = min(len(sequence), held - pad)
            if n > 0:
                self.kept.append(_row(assembled.cache, row, pad, list(sequence[:n])))
        del self.kept[: max(0, len(self.kept) - self.capacity)]


def _shared_prefix(a: list[int], b: list[int], n: int) -> int:
    """How many of the first `n` tokens `a` and `b` share (binary search over C-level slice comparisons)."""
    low, high = 0, n
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _positions(mask: torch.Tensor) -> torch.Tensor:
    """Position ids of left-padded rows (as `generate` numbers them): 0 at each row's first token."""
    return (mask.long().cumsum(-1) - 1).clamp(min=0)


def _row(cache: DynamicCache, row: int, start: int, ids: list[int]) -> _Kept:
    """Row `row`'s cache from column `start` on, for `ids` (copied: the batch's cache is released)."""
    end = start + len(ids)
    layers = [(layer.keys[row, :, start:end].clone(), layer.values[row, :, start:end].clone())
              for layer in cast(Any, cache).layers]
    memory = cached_copy_memory(cache)
    copy_keys = None if memory is None else memory[0][row, start:end].clone()
    return _Kept(ids, layers, copy_keys)
