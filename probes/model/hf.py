"""Hugging Face model folders (vLLM / SGLang users): config.json plus safetensors headers when present.

Exact bytes come from the safetensors headers (a few KB each; tensor data is never read). Without weights
the size is estimated from config.json and the dtype, and `bytes_source` says so.
"""

from __future__ import annotations

import json
import os
import re
import stat
import struct
from pathlib import Path
from typing import Any, Literal

from probes.model.info import KV_BYTES_PER_ELEMENT, ModelFileError, ModelInfo

DTYPE_BYTES = {"float32": 4.0, "float16": 2.0, "bfloat16": 2.0, "float8_e4m3fn": 1.0, "float8": 1.0}
ST_DTYPE_BYTES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1, "U8": 1,
                  "F8_E4M3": 1, "F8_E5M2": 1, "BOOL": 1}
ROUTED_RE = re.compile(r"\.experts\.")  # Qwen/DeepSeek/Mixtral routed experts; `shared_experts` does not match
LAYER_RE = re.compile(r"\.layers\.(\d+)\.")


# config.json files are a few KB; safetensors headers are capped at 100 MB by the format itself.
MAX_CONFIG_BYTES = 4 * 1024 * 1024
MAX_SAFETENSORS_HEADER = 100 * 1000 * 1000
MAX_LAYERS = 4096  # as for GGUF (probes/model/kv_cache.py): far above any published model


def _open_regular(path: Path) -> Any:
    """Open for reading without waiting on a named pipe; anything but a regular file is refused."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    fh = os.fdopen(fd, "rb")
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        fh.close()
        raise ModelFileError(f"{path} is not a regular file")
    return fh


def _config(folder: Path) -> dict[str, Any]:
    path = folder / "config.json"
    try:
        with _open_regular(path) as fh:
            data = fh.read(MAX_CONFIG_BYTES + 1)
        if len(data) > MAX_CONFIG_BYTES:
            raise ModelFileError(f"{path} is over {MAX_CONFIG_BYTES // 1024 // 1024} MB: not a model config")
        raw = json.loads(data.decode("utf-8"))
    except FileNotFoundError as exc:
        raise ModelFileError(f"{folder} has no config.json (not a Hugging Face model folder)") from exc
    except (OSError, ValueError, RecursionError) as exc:  # ValueError: bad UTF-8 or JSON, 5000-digit numbers
        raise ModelFileError(f"cannot read {path}: {type(exc).__name__}: {str(exc)[:200]}") from None
    if not isinstance(raw, dict):
        raise ModelFileError(f"{folder / 'config.json'} is not a JSON object")
    text = raw.get("text_config")  # multimodal wrappers keep the language model's keys here
    return {**raw, **text} if isinstance(text, dict) else raw


def _first(cfg: dict[str, Any], *keys: str) -> int:
    for key in keys:
        value = cfg.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return 0


def _safetensors_sizes(folder: Path) -> dict[str, tuple[int, int]]:
    """tensor name → (bytes, elements) from every *.safetensors header in `folder`."""
    sizes: dict[str, tuple[int, int]] = {}
    for file in sorted(folder.glob("*.safetensors")):
        try:
            with _open_regular(file) as fh:
                (length,) = struct.unpack("<Q", fh.read(8))
                if length > MAX_SAFETENSORS_HEADER:
                    raise ValueError(f"header of {length:,} bytes (the format allows 100 MB)")
                header = json.loads(fh.read(length))
            if not isinstance(header, dict):
                raise ValueError("the header is not a JSON object")
            for name, entry in header.items():
                if name == "__metadata__" or not isinstance(entry, dict):
                    continue
                begin, end = entry["data_offsets"]
                elements = 1
                for dim in entry.get("shape", [])[:8]:
                    elements *= int(dim)
                sizes[name] = (int(end) - int(begin), elements)
        except (OSError, ValueError, TypeError, KeyError, RecursionError, struct.error) as exc:
            raise ModelFileError(f"{file.name} is not a readable safetensors file: {str(exc)[:200]}") from None
    return sizes


def _estimate_sizes(cfg: dict[str, Any], experts: int) -> dict[str, tuple[int, int]]:
    """Synthetic tensor table from config.json (standard GQA attention + gated MLP; MLA models are off)."""
    dtype = str(cfg.get("torch_dtype") or cfg.get("dtype") or "bfloat16")
    width = DTYPE_BYTES.get(dtype, 2.0)
    bits = (cfg.get("quantization_config") or {}).get("bits")
    if isinstance(bits, int):
        width = bits / 8
    d, layers, vocab = _first(cfg, "hidden_size"), _first(cfg, "num_hidden_layers"), _first(cfg, "vocab_size")
    heads = _first(cfg, "num_attention_heads") or 1
    kv_heads = _first(cfg, "num_key_value_heads") or heads
    head_dim = _first(cfg, "head_dim") or d // heads
    ff = _first(cfg, "intermediate_size")
    moe_ff = _first(cfg, "moe_intermediate_size") or ff
    shared_ff = _first(cfg, "shared_expert_intermediate_size") or _first(cfg, "n_shared_experts") * moe_ff
    first_dense = _first(cfg, "first_k_dense_replace")
    step = _first(cfg, "decoder_sparse_step") or 1
    dense_only = set(cfg.get("mlp_only_layers") or [])
    table: dict[str, int] = {"model.embed_tokens.weight": vocab * d}
    if not cfg.get("tie_word_embeddings", False):
        table["lm_head.weight"] = vocab * d
    for i in range(layers):
        table[f"model.layers.{i}.self_attn"] = d * head_dim * (2 * heads + 2 * kv_heads)
        sparse = experts and i >= first_dense and (i + 1) % step == 0 and i not in dense_only
        if sparse:
            table[f"model.layers.{i}.mlp.experts.all"] = experts * 3 * d * moe_ff
            table[f"model.layers.{i}.mlp.gate"] = d * experts
            table[f"model.layers.{i}.mlp.shared_experts"] = 3 * d * shared_ff
        else:
            table[f"model.layers.{i}.mlp"] = 3 * d * ff
    return {name: (round(n * width), n) for name, n in table.items()}


def probe_hf_model(folder: Path) -> ModelInfo:
    """Per-token cost of a Hugging Face checkpoint folder; raises `ModelFileError`."""
    cfg = _config(folder)
    layers = _first(cfg, "num_hidden_layers")
    if not 0 <= layers <= MAX_LAYERS:
        raise ModelFileError(f"{folder / 'config.json'}: num_hidden_layers = {layers:,} is not a real layer count")
    try:
        return _analyse(folder, cfg)
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:
        # a hand-edited config.json with a list where a number belongs, etc.
        raise ModelFileError(f"{folder / 'config.json'} has a value of an unexpected type "
                             f"({type(exc).__name__}: {str(exc)[:120]})") from None


def _analyse(folder: Path, cfg: dict[str, Any]) -> ModelInfo:
    experts = _first(cfg, "num_experts", "n_routed_experts", "num_local_experts")
    used = _first(cfg, "num_experts_per_tok", "experts_per_token", "moe_topk")
    layers = _first(cfg, "num_hidden_layers")
    sizes = _safetensors_sizes(folder)
    source: Literal["safetensors", "config-estimate"] = "safetensors" if sizes else "config-estimate"
    if not sizes:
        sizes = _estimate_sizes(cfg, experts)
    tied = not any(name.endswith("lm_head.weight") for name in sizes)
    vocab = _first(cfg, "vocab_size")
    total_b = routed_b = active_b = total_p = active_p = 0.0
    moe_layers: set[int] = set()
    for name, (n_bytes, n_elem) in sizes.items():
        total_b, total_p = total_b + n_bytes, total_p + n_elem
        layer = LAYER_RE.search(name)
        if layer and layers and int(layer.group(1)) >= layers:
            continue  # MTP layers are stored after the decoder layers
        share = 1.0
        if ROUTED_RE.search(name) and experts:
            routed_b += n_bytes
            share = used / experts
            if layer:
                moe_layers.add(int(layer.group(1)))
        elif "embed_tokens" in name and not tied and vocab:
            share = 1.0 / vocab
        active_b, active_p = active_b + n_bytes * share, active_p + n_elem * share
    heads = _first(cfg, "num_attention_heads") or 1
    head_dim = _first(cfg, "head_dim") or _first(cfg, "hidden_size") // heads
    kv_heads = _first(cfg, "num_key_value_heads") or heads
    weights = sum((f.stat().st_size for f in folder.glob("*.safetensors")), 0)
    return ModelInfo(
        path=str(folder), format="hf", architecture=str((cfg.get("architectures") or ["unknown"])[0]),
        name=folder.name, file_type=str(cfg.get("torch_dtype") or cfg.get("dtype") or "") or None,
        dominant_tensor_type=None, total_params=int(total_p), active_params=round(active_p),
        context_length=_first(cfg, "max_position_embeddings") or None, block_count=layers or None,
        embedding_length=_first(cfg, "hidden_size") or None, vocab_size=vocab or None,
        is_moe=experts > 0 and bool(moe_layers), expert_count=experts, expert_used_count=used,
        expert_shared_count=_first(cfg, "n_shared_experts") or int(bool(cfg.get("shared_expert_intermediate_size"))),
        moe_layer_count=len(moe_layers), mtp_layer_count=_first(cfg, "num_nextn_predict_layers"),
        file_bytes=weights, total_bytes=int(total_b), shared_bytes=int(total_b - routed_b),
        routed_expert_bytes=int(routed_b), bytes_per_token=round(active_b),
        kv_bytes_per_token=layers * kv_heads * 2 * head_dim * KV_BYTES_PER_ELEMENT if layers else None,
        bytes_source=source,
    )
