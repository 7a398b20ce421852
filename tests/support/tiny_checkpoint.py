"""A tiny Qwen-style model and tokenizer trained on one spec's reference conversations, saved and loaded back the
way a checkpoint is: the untrained student of the trainer tests (batching, tool grammars)."""

from __future__ import annotations

from pathlib import Path

from transformers import AutoModelForCausalLM, AutoTokenizer, PreTrainedModel, PreTrainedTokenizerBase

from coworkenv.spec import EnvSpec


def tiny_checkpoint(spec: EnvSpec, folder: Path) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    """Build, save to `folder` and reload a one-layer model whose tokenizer was trained on `spec`'s references."""
    from trainers.chat_templates import trl_chat_template
    from trainers.rl import reference_conversations
    from trainers.tiny_model import TinyModelSpec, build_tiny_model, render_corpus_text

    template = trl_chat_template("qwen3_training")
    sizes = TinyModelSpec(hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2,
                          num_key_value_heads=1, head_dim=16, min_token_frequency=1, max_position_embeddings=8192)
    model, tokenizer = build_tiny_model(render_corpus_text(reference_conversations([spec]), template), sizes, 0,
                                        template)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return AutoModelForCausalLM.from_pretrained(folder).eval(), AutoTokenizer.from_pretrained(folder)
