"""The bundled library against the demo model's own tokenizer (real llama-server)."""

from __future__ import annotations

import functools

import pytest

from advisor.arms.server import ManagedServer
from advisor.workloads import check_context, load_library
from probes.engines.llamacpp.adapter import LlamaCppAdapter

pytestmark = pytest.mark.engine

DEMO_CTX = 2048          # the demo engine's context (tokens)
ANSWER_TOKENS = 192      # room kept for the answer (tokens)
QUICK_PROMPT_TOKENS = 400  # most prompts stay under this, so a quick check stays quick


def test_every_library_prompt_fits_the_demo_context_with_room_to_answer(server_off: ManagedServer) -> None:
    adapter = LlamaCppAdapter(server_off.base_url)
    try:
        # Counted as the engine reads it: rendered with the model's chat template, as a check sends it.
        @functools.cache
        def count(text: str) -> int:
            return len(adapter.tokenize(adapter.apply_template([{"role": "user", "content": text}])))

        library = load_library()
        check_context(library, n_ctx=DEMO_CTX, count_tokens=count, reserve_tokens=ANSWER_TOKENS)
        long = sorted(p.id for p in library if count(p.full_text()) > QUICK_PROMPT_TOKENS)
    finally:
        adapter.close()
    assert len(long) <= len(library) // 10, long
