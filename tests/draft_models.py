"""Small synthetic draft GGUFs for the draft-model tests: the demo model's tokenizer, optionally changed."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from gguf import GGUFWriter

from advisor.demo.model import demo_model_path
from advisor.demo.synth import DENSE, SynthSpec, write_synthetic_model
from probes.model.gguf_header import read_gguf_header

# 2 layers, 2 KV heads of 64 (n_embd 256 / 4 heads): 2 × 2 × (64 + 64) × 2 bytes = 1024 bytes of f16 KV a token.
DRAFT_SPEC: SynthSpec = replace(DENSE, n_layer=2, n_embd=256, n_ff=512, n_head=4, n_head_kv=2)


def demo_tokens() -> tuple[list[str], list[int]]:
    """The demo model's token texts and token types."""
    path = demo_model_path()
    assert path is not None
    meta = read_gguf_header(path, keep_arrays=True).metadata
    return list(meta["tokenizer.ggml.tokens"]), list(meta["tokenizer.ggml.token_type"])


def renamed_token(token_id: int = 100) -> dict[str, Any]:
    """Tokenizer changes that give token `token_id` another text: a different vocabulary of the same size."""
    tokens, _ = demo_tokens()
    return {"tokenizer.ggml.tokens": [*tokens[:token_id], "zzqq-not-a-token", *tokens[token_id + 1:]]}


def shorter_vocab(by: int) -> dict[str, Any]:
    """Tokenizer changes that drop the last `by` tokens."""
    tokens, types = demo_tokens()
    return {"tokenizer.ggml.tokens": tokens[:-by], "tokenizer.ggml.token_type": types[:-by]}


def write_draft(folder: Path, name: str, tokenizer: dict[str, Any] | None = None) -> Path:
    """A runnable 2-layer draft with the demo tokenizer (plus `tokenizer` changes) at folder/name.gguf."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.gguf"
    return path if path.is_file() else write_synthetic_model(path, DRAFT_SPEC, tokenizer=tokenizer)


def write_vocab_only(path: Path, model: str, tokens: list[str], **keys: int | bool) -> Path:
    """A GGUF holding only tokenizer keys (enough for the pairing check, not for an engine)."""
    writer = GGUFWriter(str(path), "llama")
    writer.add_tokenizer_model(model)
    writer.add_token_list(tokens)
    for key, value in keys.items():
        if isinstance(value, bool):
            writer.add_bool(f"tokenizer.ggml.{key}", value)
        else:
            writer.add_uint32(f"tokenizer.ggml.{key}", value)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path
