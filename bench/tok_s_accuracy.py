"""Our client-clock decode tok/s against the engine's own `timings.predicted_per_second`, same requests.

    .venv/bin/python -m bench.tok_s_accuracy [--requests 6] [--max-tokens 512]

Client tok/s = (last.n_tokens − first.n_tokens) / (last.t_s − first.t_s) over the streamed bursts of
`LlamaCppAdapter.complete` (server counts, client monotonic times). The figure compares the means over the
requests (like for like with the peer, whose per-request values are not exposed) and also gives the
largest per-request error.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from bench.common import (
    LONG_PROMPTS,
    EngineMissing,
    client_tok_s,
    demo_server,
    rel_err,
    server_tok_s,
    stop_cleanly_on_sigterm,
)
from probes.engines.base import EngineError
from probes.engines.llamacpp.adapter import LlamaCppAdapter

KEY = "client_vs_server_tok_s_rel_err"
MIN_TOKENS = 64  # shorter outputs make the first-burst offset dominate; they are not used


def measure(requests: int = 6, max_tokens: int = 512, budget_s: float = 120.0) -> dict[str, Any]:
    """Run up to `requests` long generations (fewer, at least 2, if `budget_s` runs out) and compare the rates."""
    try:
        with demo_server("tok-s") as server:
            adapter = LlamaCppAdapter(server.base_url, timeout_s=30.0, idle_timeout_s=60.0)
            try:
                adapter.complete("Hello", max_tokens=8)  # warm-up, outside the measured set
                pairs: list[dict[str, Any]] = []
                deadline = time.monotonic() + budget_s  # a loaded machine must not stall the whole suite
                for i in range(requests):
                    if i >= 2 and time.monotonic() > deadline:
                        break
                    result = adapter.complete(LONG_PROMPTS[i % len(LONG_PROMPTS)], max_tokens=max_tokens, seed=i)
                    ours, theirs = client_tok_s(result), server_tok_s(result)
                    if ours and theirs and result.completion_tokens >= MIN_TOKENS:
                        pairs.append({"tokens": result.completion_tokens, "client_tok_s": ours,
                                      "server_tok_s": theirs, "rel_err": rel_err(ours, theirs),
                                      "events": len(result.bursts)})
            finally:
                adapter.close()
    except (EngineMissing, EngineError, OSError) as exc:
        return {KEY: None, f"{KEY}_note": f"not measured: {exc}"}
    if not pairs:
        return {KEY: None, f"{KEY}_note": f"no request produced ≥ {MIN_TOKENS} tokens with timings"}
    client_mean = sum(p["client_tok_s"] for p in pairs) / len(pairs)
    server_mean = sum(p["server_tok_s"] for p in pairs) / len(pairs)
    return {
        KEY: rel_err(client_mean, server_mean),
        f"{KEY}_note": (f"{len(pairs)} requests of {min(p['tokens'] for p in pairs)}–"
                        f"{max(p['tokens'] for p in pairs)} tokens; mean client {client_mean:.1f} vs server "
                        f"{server_mean:.1f} tok/s; worst single request "
                        f"{max(p['rel_err'] for p in pairs):.4f}"),
        "tok_s_requests": pairs,
        "client_tok_s_mean": client_mean,
        "server_tok_s_mean": server_mean,
        "max_request_rel_err": max(p["rel_err"] for p in pairs),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=6)
    ap.add_argument("--max-tokens", type=int, default=512)
    args = ap.parse_args(argv)
    stop_cleanly_on_sigterm()
    out = measure(args.requests, args.max_tokens)
    for p in out.get("tok_s_requests", []):
        print(f"  {p['tokens']:4d} tokens  client {p['client_tok_s']:8.2f}  server {p['server_tok_s']:8.2f}  "
              f"rel err {p['rel_err']:.4f}")
    print(json.dumps({k: v for k, v in out.items() if k != "tok_s_requests"}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
