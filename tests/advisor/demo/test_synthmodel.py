"""Synthetic dense/MoE GGUFs: layout, equal active bytes, caching; real llama-server load + verify cost."""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from advisor.arms.server import ManagedServer, ServerConfig
from advisor.demo.model import demo_model_path
from advisor.demo.synth import DENSE, write_synthetic_model, write_synthetic_pair
from probes.model.gguf_header import read_gguf_header
from probes.model.probe import probe_model

pytestmark = pytest.mark.skipif(demo_model_path() is None, reason="demo model supplies the tokenizer")
SMALL: dict[str, Any] = {"n_layer": 2, "n_embd": 256, "n_ff": 512}  # fast variant for layout tests


@pytest.fixture(scope="module")
def cache_dir(request: pytest.FixtureRequest) -> Path:
    return Path(request.config.cache.mkdir("synth-models"))


def test_pair_layout_and_equal_active_bytes(cache_dir: Path) -> None:
    dense_path, moe_path = write_synthetic_pair(cache_dir, **SMALL)
    dense, moe = probe_model(dense_path), probe_model(moe_path)
    assert not dense.is_moe and moe.is_moe
    assert moe.expert_count == 32 and moe.expert_used_count == 2 and moe.moe_layer_count == 2
    names = {t.name for t in read_gguf_header(moe_path).tensors}
    assert {"blk.0.ffn_gate_exps.weight", "blk.0.ffn_up_exps.weight", "blk.0.ffn_down_exps.weight"} <= names
    # Same bytes for one decoded token (the MoE adds only its small F32 router).
    assert moe.bytes_per_token == pytest.approx(dense.bytes_per_token, rel=0.03)
    # 32 experts of half the dense FFN width: the expert tensors hold 16× the dense FFN bytes.
    dense_ffn = sum(t.n_bytes for t in read_gguf_header(dense_path).tensors if ".ffn_" in t.name
                    and "norm" not in t.name)
    assert moe.routed_expert_bytes == pytest.approx(16 * dense_ffn, rel=0.01)
    assert moe.bytes_for_batch(16) > 1.4 * moe.bytes_for_batch(1)  # small variant: the tied head weighs more
    assert dense.file_type == "Q8_0" and dense.vocab_size == 49152


def test_pair_is_cached_and_reproducible(cache_dir: Path, tmp_path: Path) -> None:
    first = write_synthetic_pair(cache_dir, **SMALL)
    stamps = [p.stat().st_mtime_ns for p in first]
    again = write_synthetic_pair(cache_dir, **SMALL)
    assert again == first and [p.stat().st_mtime_ns for p in again] == stamps
    spec = replace(DENSE, **SMALL)
    fresh = write_synthetic_model(tmp_path / "again.gguf", spec)
    assert fresh.read_bytes() == first[0].read_bytes()  # same seed → same bytes
    source = demo_model_path()
    assert source is not None
    assert replace(spec, seed=1).digest(source) != spec.digest(source)


# --- real llama-server -------------------------------------------------------------------------------------


@pytest.fixture
def serve(llama_binary: Any, tmp_path: Path) -> Iterator[Callable[[Path], str]]:
    """Factory: start llama-server (conftest's binary, 2 threads) on a model; all are stopped afterwards."""
    servers: list[ManagedServer] = []

    def start(model: Path) -> str:
        config = ServerConfig(model=model, threads=2, ctx_size=2048, label=model.stem)
        servers.append(ManagedServer(llama_binary, config, tmp_path))
        return servers[-1].start().base_url

    yield start
    for server in servers:
        server.stop()


def prompt_cost_ms(urls: list[str], ks: list[int], reps: int, depth: int = 64) -> list[dict[int, list[float]]]:
    """prompt_ms of k fresh tokens after a cached prefix of `depth` tokens, per server, per k, per rep.

    Servers are measured interleaved (same k, one after the other), so what other processes do in one
    moment hits both models' samples of the same rep alike (engine-facts.md §1.7).
    """
    rng = random.Random(0)
    prefix = [rng.randrange(1000, 40000) for _ in range(depth)]
    body = {"n_predict": 1, "temperature": 0, "cache_prompt": True, "id_slot": 0}
    clients = [httpx.Client(base_url=url, timeout=120) for url in urls]
    samples: list[dict[int, list[float]]] = [{k: [] for k in ks} for _ in urls]
    try:
        for client in clients:
            client.post("/completion", json={**body, "prompt": prefix}).raise_for_status()
        for rep in range(reps + 1):  # rep 0 is a warm-up
            for k in ks:
                fresh = [rng.randrange(1000, 40000) for _ in range(k)]
                for i, client in enumerate(clients):
                    t = client.post("/completion", json={**body, "prompt": prefix + fresh}).json()["timings"]
                    assert t["cache_n"] == depth and t["prompt_n"] == k, t
                    if rep:
                        samples[i][k].append(float(t["prompt_ms"]))
    finally:
        for client in clients:
            client.close()
    return samples


@pytest.mark.engine
def test_both_load_and_generate(serve: Callable[[Path], str], cache_dir: Path) -> None:
    dense_path, moe_path = write_synthetic_pair(cache_dir)
    for path in (dense_path, moe_path):
        url = serve(path)
        reply = httpx.post(f"{url}/completion", json={"prompt": "Hello", "n_predict": 8, "temperature": 0},
                           timeout=120).json()
        assert reply["timings"]["predicted_n"] == 8 and isinstance(reply["content"], str)


@pytest.mark.engine
@pytest.mark.slow
def test_moe_verify_cost_rises_faster_than_dense(serve: Callable[[Path], str], cache_dir: Path) -> None:
    dense_path, moe_path = write_synthetic_pair(cache_dir)
    reps = 25
    dense, moe = prompt_cost_ms([serve(dense_path), serve(moe_path)], [1, 16], reps)
    # What 15 more tokens add, T(16) − T(1), MoE minus dense, paired by rep: both models do the same compute
    # per token, so the difference is the bytes of the experts 16 tokens scatter to (~3.6x one token's).
    # A median of paired differences, not a comparison of two minima: on this VM a sample is either fast or
    # about twice as slow (the host preempts the vCPU), so one lucky minimum decided the old test (CI saw
    # dense 11.5 vs MoE 9.2 ms at k=16 once). Locally 76-92% of the reps favour the MoE (median +3 ms), so
    # 13 of 25 going the other way by chance is a ~1e-4 event.
    extra = [(moe[16][r] - moe[1][r]) - (dense[16][r] - dense[1][r]) for r in range(reps)]
    print(f"MoE minus dense growth T(16) - T(1) by rep (ms): {[round(x, 1) for x in extra]}")
    assert statistics.median(extra) > 0
