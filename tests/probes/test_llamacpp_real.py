"""The llama.cpp adapter against a real llama-server (spec off and ngram-mod) with the demo model."""

from __future__ import annotations

import pytest

from advisor.arms.server import ManagedServer
from probes.base import Unavailable
from probes.engines.base import SpecCounters
from probes.engines.llamacpp.adapter import LlamaCppAdapter

pytestmark = pytest.mark.engine

PROMPT = "List the numbers from one to twenty, separated by commas: one, two, three,"


def test_info_names_engine_model_and_spec_off(server_off: ManagedServer) -> None:
    info = LlamaCppAdapter(server_off.base_url).info()
    assert info.kind == "llama.cpp"
    assert isinstance(info.version, str) and info.version
    assert isinstance(info.model, str) and "SmolLM2" in info.model
    assert not isinstance(info.spec, Unavailable) and info.spec.active is False


def test_info_reports_ngram_mod_from_slots(server_ngram: ManagedServer) -> None:
    spec = LlamaCppAdapter(server_ngram.base_url).spec_state()
    assert not isinstance(spec, Unavailable)
    assert spec.active is True and spec.method == "ngram-mod" and spec.source.startswith("/slots")


def test_token_counts_and_timings_are_the_servers(server_off: ManagedServer) -> None:
    adapter = LlamaCppAdapter(server_off.base_url)
    result = adapter.complete(PROMPT, max_tokens=24, seed=1)
    assert result.completion_tokens == 24                       # n_predict honoured, counted by the server
    assert result.raw_timings["predicted_n"] == 24
    assert result.decode_ms == pytest.approx(result.raw_timings["predicted_ms"])
    assert result.prompt_tokens is not None and result.prompt_tokens > 0
    assert result.decode_ms_per_token == pytest.approx(result.raw_timings["predicted_ms"] / 23)
    # Bursts carry the server's cumulative count, so the last one equals the final count.
    assert result.bursts and result.bursts[-1].n_tokens == 24
    assert result.draft_tokens is None                           # nothing drafted with speculation off
    assert 0 < result.ttft_ms <= result.total_ms


def test_draft_counters_and_metrics_with_ngram(server_ngram: ManagedServer) -> None:
    adapter = LlamaCppAdapter(server_ngram.base_url)
    before = adapter.spec_counters()
    assert isinstance(before, SpecCounters)
    # A chat prompt whose answer copies a long list from the prompt: ngram-mod finds 24-token matches to draft.
    text = adapter.apply_template([{"role": "user", "content": "Copy this list exactly, one per line: apple, banana, "
                                    "cherry, date, elderberry, fig, grape, honeydew, kiwi, lemon, mango, nectarine."}])
    result = adapter.complete(text, max_tokens=96, seed=1)
    result2 = adapter.complete(text, max_tokens=96, seed=1)
    after = adapter.spec_counters()
    assert isinstance(after, SpecCounters)
    delta = after.minus(before)
    drafted = (result.draft_tokens or 0) + (result2.draft_tokens or 0)
    accepted = (result.draft_accepted or 0) + (result2.draft_accepted or 0)
    assert drafted > 0, "the repeated request should reuse the first one's n-grams"
    assert delta.draft_tokens == drafted and delta.accepted_tokens == accepted
    assert 0 <= accepted <= drafted


def test_metrics_parse_on_spec_off_server(server_off: ManagedServer) -> None:
    counters = LlamaCppAdapter(server_off.base_url).spec_counters()
    # Spec-off servers still expose the spec_decode_* series (all zero) in this build.
    assert isinstance(counters, SpecCounters | Unavailable)


def test_tokenize_roundtrip(server_off: ManagedServer) -> None:
    tokens = LlamaCppAdapter(server_off.base_url).tokenize("hello world")
    assert tokens and all(isinstance(t, int) for t in tokens)
