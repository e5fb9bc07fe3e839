"""What was measured per arm, beside the ratios: decode tok/s mean ± sd, time to first token and time per
output token at p50/p99, and the ON arm's acceptance — pooled and per kind of task.

The figures come from the A/B's request records (both arms live, interleaved, so the two columns compare
like with like). A run without a finished A/B falls back to the baseline (OFF) and acceptance (ON) requests,
which ran at different times: the table says which source it used.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

import numpy as np

from advisor.evidence.schema import Evidence
from advisor.evidence.steps import ABEvidence, RequestRecord
from advisor.report.strings import category_name, text
from advisor.report.tree import ResultRow, Results

# where the table's rows come from: the A/B (side by side or single-resident) or the baseline and acceptance steps
Source = Literal["ab", "ab_single", "steps"]
COLUMNS = ("arm", "category", "n", "tok_s", "ttft", "tpot", "acceptance")
ARMS = ("off", "on")
ALL = ""  # the category of the pooled row


def _finite(values: Sequence[float | None]) -> list[float]:
    return [float(v) for v in values if v is not None and np.isfinite(v)]


def _pct(values: list[float], q: float) -> float | None:
    return float(np.percentile(values, q)) if values else None


def arm_row(arm: str, category: str, records: Sequence[RequestRecord]) -> ResultRow:
    """One row: n requests, tok/s mean and sd (ddof=1; None below 2), TTFT and ms/token p50/p99, acceptance."""
    tok_s = _finite([r.tok_s for r in records])
    ttft = _finite([r.ttft_ms for r in records])
    tpot = _finite([r.ms_per_token for r in records])
    drafted = sum(r.draft_tokens or 0 for r in records)
    accepted = sum(r.draft_accepted or 0 for r in records)
    return ResultRow(
        arm=arm, category=category, n=len(records),
        tok_s_mean=float(np.mean(tok_s)) if tok_s else None,
        tok_s_sd=float(np.std(tok_s, ddof=1)) if len(tok_s) > 1 else None,
        ttft_p50_ms=_pct(ttft, 50), ttft_p99_ms=_pct(ttft, 99),
        tpot_p50_ms=_pct(tpot, 50), tpot_p99_ms=_pct(tpot, 99),
        acceptance=accepted / drafted if drafted > 0 else None,
    )


def _records(evidence: Evidence) -> tuple[Source, dict[str, list[RequestRecord]]] | None:
    # an A/B stopped early still measured what it measured (the verdict says the run was partial)
    rec = evidence.record("ab")
    ab = rec.evidence if rec is not None and isinstance(rec.evidence, ABEvidence) else None
    if ab is not None and ab.samples:
        return "ab", {arm: [r for r in ab.samples if r.arm == arm] for arm in ARMS}
    base, acc = evidence.baseline, evidence.acceptance
    off = list(base.samples) if base is not None else []
    on = list(acc.samples) if acc is not None else []
    if not off and not on:
        return None
    return "steps", {"off": off, "on": on}


def results_table(evidence: Evidence | None) -> Results | None:
    """Per arm the pooled row, then one row per category when there are several, and where they came from."""
    found = _records(evidence) if evidence is not None else None
    if found is None:
        return None
    source: Source
    source, by_arm = found
    if source == "ab" and evidence is not None and evidence.arms is not None and evidence.arms.mode == "single":
        source = "ab_single"  # one server at a time: blocks of pairs, not both servers live
    rows = []
    for arm in ARMS:
        records = by_arm.get(arm) or []
        if not records:
            continue
        rows.append(arm_row(arm, ALL, records))
        categories = sorted({r.category for r in records if r.category})
        if len(categories) > 1:
            rows += [arm_row(arm, c, [r for r in records if r.category == c]) for c in categories]
    return Results(source=source, rows=tuple(rows)) if rows else None


def fmt_ms(value: float | None) -> str:
    """12.345 → '12.3' (ms); missing → '—'."""
    return "—" if value is None else f"{value:.1f}"


def table_cells(rows: Sequence[ResultRow], arm_label: Callable[[str], str],
                category_label: Callable[[str], str]) -> list[list[str]]:
    """Rows as text cells: arm, kind of task, n, tok/s ± sd, TTFT p50/p99, ms/token p50/p99, acceptance.

    `arm_label(arm)` and `category_label(category)` put the names in the reader's language."""
    out = []
    for r in rows:
        mean, sd = r.tok_s_mean, r.tok_s_sd
        speed = "—" if mean is None else f"{mean:.1f}" + ("" if sd is None else f" ± {sd:.1f}")
        acc = r.acceptance
        out.append([arm_label(r.arm), category_label(r.category), str(r.n), speed,
                    f"{fmt_ms(r.ttft_p50_ms)} / {fmt_ms(r.ttft_p99_ms)}",
                    f"{fmt_ms(r.tpot_p50_ms)} / {fmt_ms(r.tpot_p99_ms)}",
                    "—" if acc is None else f"{acc:.0%}"])
    return out




def localized(results: Results | None, lang: str) -> tuple[list[str], list[list[str]], str]:
    """Header, cells and the source note of a report's `results` block in `lang` (empty when none)."""
    if results is None or not results.rows:
        return [], [], ""
    header = [text(lang, f"results.{c}") for c in COLUMNS]
    cells = table_cells(results.rows, lambda arm: text(lang, f"results.arm_{arm}"),
                        lambda c: category_name(c, lang) if c else text(lang, "results.all"))
    return header, cells, text(lang, f"results.source_{results.source or 'ab'}")
