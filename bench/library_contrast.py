"""Per-category n-gram drafting on the bundled library: does ngram-mod draft where the answer copies the prompt?

    .venv/bin/python -m bench.library_contrast [--per-category 8] [--max-tokens 64] [--n-match N] [--json PATH]

One managed llama-server with the demo model and `--spec-type ngram-mod` at the engine's defaults
(`--n-match N` adds `--spec-ngram-mod-n-match N`, only to show that the contrast exists when the default
lookup is too long for short answers). For each category it runs `--per-category` held-out ("ab") prompts,
chosen and interleaved as the A/B chooses them (`select`, seed 0), rendered with the server's chat template,
greedy (temperature 0). Per category it prints:

- coverage: drafted tokens ÷ generated tokens (how often the drafter had something to propose);
- acceptance: accepted ÷ drafted tokens;
- from drafts: accepted ÷ generated tokens (the share of the answer that came from drafts);
- mean tok/s: the mean over the prompts of the server's `timings.predicted_per_second`.

The n-gram pool is shared across requests and is not reset between prompts (as in one A/B phase), so a
category can profit a little from earlier prompts of other categories; the interleaved order spreads that.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from advisor.arms.server import ManagedServer, ServerConfig
from advisor.steps.plan import WARMUP_PROMPTS
from advisor.workloads import CATEGORIES, load_library, select
from bench.common import EngineMissing, demo_engine, server_tok_s, stop_cleanly_on_sigterm
from probes.engines.llamacpp.adapter import LlamaCppAdapter

# Categories whose good answer reproduces much of the prompt (edit/refactor a given text, summarise a given
# document); the others are open-ended. Only used to order and mark the table.
COPY_HEAVY = ("editing", "refactor", "summarization")


@dataclass(frozen=True, slots=True)
class CategoryRow:
    """Totals for one category: tokens generated, drafted and accepted; the mean server tok/s."""

    category: str
    prompts: int
    generated: int
    drafted: int
    accepted: int
    mean_tok_s: float | None

    @property
    def coverage(self) -> float | None:
        return self.drafted / self.generated if self.generated else None

    @property
    def acceptance(self) -> float | None:
        return self.accepted / self.drafted if self.drafted else None

    @property
    def from_drafts(self) -> float | None:
        return self.accepted / self.generated if self.generated else None


def measure(per_category: int = 8, max_tokens: int = 64, n_match: int | None = None,
            threads: int = 2) -> list[CategoryRow]:
    """Run the held-out prompts on one ngram-mod server and total them per category."""
    binary, model = demo_engine()
    extra = ("--spec-ngram-mod-n-match", str(n_match)) if n_match is not None else ()
    config = ServerConfig(model=model, spec_type="ngram-mod", threads=threads, extra_args=extra, label="contrast")
    prompts = select(load_library(split="ab"), per_category, seed=0)
    totals: dict[str, list[int]] = {c: [0, 0, 0, 0] for c in CATEGORIES}  # prompts, generated, drafted, accepted
    rates: dict[str, list[float]] = {c: [] for c in CATEGORIES}
    with tempfile.TemporaryDirectory(prefix="spec-bench-") as tmp, \
            ManagedServer(binary, config, Path(tmp)) as server:
        adapter = LlamaCppAdapter(server.base_url, timeout_s=30.0, idle_timeout_s=120.0)
        try:
            for warm in WARMUP_PROMPTS:  # out-of-set, as the product warms a fresh server
                adapter.complete(adapter.apply_template([{"role": "user", "content": warm.text}]), max_tokens=16)
            for prompt in prompts:
                text = adapter.apply_template([{"role": "user", "content": prompt.text}])
                result = adapter.complete(text, max_tokens=max_tokens, temperature=0.0)
                row = totals[prompt.category]
                row[0] += 1
                row[1] += result.completion_tokens
                row[2] += result.draft_tokens or 0
                row[3] += result.draft_accepted or 0
                if (tok_s := server_tok_s(result)) is not None:
                    rates[prompt.category].append(tok_s)
        finally:
            adapter.close()
    order = [c for c in COPY_HEAVY if c in totals] + [c for c in CATEGORIES if c not in COPY_HEAVY]
    return [CategoryRow(c, totals[c][0], totals[c][1], totals[c][2], totals[c][3],
                        sum(rates[c]) / len(rates[c]) if rates[c] else None)
            for c in order if totals[c][0]]


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def table(rows: list[CategoryRow]) -> str:
    """The per-category table as fixed-width text."""
    head = (f"{'category':<14} {'kind':<5} {'n':>2} {'generated':>9} {'drafted':>7} {'accepted':>8} "
            f"{'coverage':>8} {'accept':>7} {'from drafts':>11} {'tok/s':>7}")
    lines = [head, "-" * len(head)]
    for r in rows:
        kind = "copy" if r.category in COPY_HEAVY else "open"
        tok_s = "—" if r.mean_tok_s is None else f"{r.mean_tok_s:.1f}"
        lines.append(f"{r.category:<14} {kind:<5} {r.prompts:>2} {r.generated:>9} {r.drafted:>7} {r.accepted:>8} "
                     f"{_pct(r.coverage):>8} {_pct(r.acceptance):>7} {_pct(r.from_drafts):>11} {tok_s:>7}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--per-category", type=int, default=8, help="held-out prompts per category (default 8)")
    ap.add_argument("--max-tokens", type=int, default=64, help="output tokens per prompt (default 64)")
    ap.add_argument("--n-match", type=int, default=None,
                    help="pass --spec-ngram-mod-n-match N (default: the engine's own value)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--json", type=Path, default=None, help="also write the rows as JSON to this file")
    args = ap.parse_args(argv)
    stop_cleanly_on_sigterm()
    try:
        rows = measure(args.per_category, args.max_tokens, args.n_match, args.threads)
    except EngineMissing as exc:
        print(f"not measured: {exc}")
        return 1
    setting = f"n-match {args.n_match}" if args.n_match is not None else "engine defaults"
    print(f"ngram-mod ({setting}), {args.per_category} held-out prompts per category, {args.max_tokens} tokens, "
          f"temperature 0, load average {os.getloadavg()[0]:.1f}")
    print(table(rows))
    if args.json is not None:
        data = [asdict(r) | {"coverage": r.coverage, "acceptance": r.acceptance, "from_drafts": r.from_drafts}
                for r in rows]
        args.json.write_text(json.dumps({"setting": setting, "rows": data}, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
