"""Write `docs/benchmarks.md` and `docs/benchmarks.json` from a dict of measured figures.

Pure formatting: every number comes from the result dict; goals are fixed here and never adjusted to fit.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from advisor.evidence.jsonsafe import json_safe

Op = Literal["<=", ">=", "between", "report", "is"]  # "is": a text figure that must read `text`


@dataclass(frozen=True, slots=True)
class Goal:
    """One row of the table: what is measured, how, and what it must reach."""

    key: str
    meaning: str
    method: str
    op: Op
    target: float | None = None
    upper: float | None = None  # with op "between": the range is [target, upper]
    text: str | None = None  # with op "is": the words the figure must read

    @property
    def goal_text(self) -> str:
        """`≤ 0.01`, `≥ 0.90`, `in [0.75, 0.9]` or `report`."""
        if self.op == "is":
            return f"= {self.text}"
        if self.op == "report" or self.target is None:
            return "report"
        if self.op == "between":
            return f"in [{self.target:g}, {self.upper:g}]"
        return f"{'≤' if self.op == '<=' else '≥'} {self.target:g}"

    def status(self, value: object) -> str:
        """met / missed / reported / not measured."""
        if self.op == "is":
            return "not measured" if not isinstance(value, str) or not value else \
                "met" if value == self.text else "missed"
        if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
            return "not measured"
        if self.op == "report" or self.target is None:
            return "reported"
        if self.op == "between":
            ok = self.target <= value <= (self.upper if self.upper is not None else math.inf)
        else:
            ok = value <= self.target if self.op == "<=" else value >= self.target
        return "met" if ok else "missed"


GOALS: tuple[Goal, ...] = (
    Goal("client_vs_server_tok_s_rel_err", "our decode tok/s vs the engine's `predicted_per_second`",
         "bench/tok_s_accuracy.py: demo llama-server, up to 6 streams of `--tokens` (default 512; "
         "≥ 2 streams, 120 s budget); "
         "client = Δn/Δt over the bursts; "
         "|mean client / mean server − 1|", "<=", 0.01),
    Goal("peer_vs_server_tok_s_rel_err", "llama-benchy's tg tok/s vs the engine's own, same requests",
         "bench/peer.py: llama-benchy 3 runs × `--peer-tg` tokens (+ its warm-up run) on the same demo server; "
         "server = its per-request "
         "eval-time log lines; |mean peer / mean server − 1|", "report"),
    Goal("advisor_cpu_pct_of_core_while_streaming", "our process CPU while streaming (% of one core)",
         "bench/cpu_overhead.py: process_time Δ ÷ wall Δ over up to 4 streams of `--tokens` (≥ 2, 120 s budget) "
         "from the demo server",
         "<=", 5.0),
    Goal("prompts_to_verdict_ratio_vs_fixed_200", "mean prompts to a verdict at 1.10× ÷ 200 (fixed design)",
         "bench/sim_ab.py via bench/sim_figures.py (shipped decision rule, vectorised twin)", "<=", 0.25),
    Goal("predicted_vs_measured_speedup_rel_err", "perf-model speedup vs measured A/B, real engine",
         "bench/quick_check.py: `spec-advisor check --quick`, evidence.json `reconciliation`, |relative_error|",
         "<=", 0.10),
    Goal("chart_redraw_ms_median", "redraw of 6 plots × 10k points (median, ms)",
         "bench/gui_bench.py via bench/gui_figures.py, offscreen Qt, 40 rounds", "<=", 16.0),
    Goal("gui_max_stall_ms", "longest GUI-thread stall during a quick check (ms)",
         "bench/gui_bench.py via bench/gui_figures.py: 20 ms heartbeat lateness while the window runs a "
         "quick check (`--gui-steps`)",
         "<=", 50.0),
    Goal("probe_cold_s", "`spec-advisor probe` wall time, fresh process, no engine (s)",
         "bench/probe_time.py: median of 3 fresh processes after one that writes the bytecode cache", "<=", 1.0),
    Goal("ram_bandwidth_cv", "spread of the RAM-bandwidth probe: stdev ÷ mean over fresh probes",
         "bench/ram_bandwidth.py: 10 fresh processes, each `probe_host()`'s median-of-passes read bandwidth",
         "<=", 0.10),
    Goal("engine_threads_under_load", "decode speed with one thread fewer than the cores ÷ one per core, while a "
         "CPU hog holds one core (the choice spec-advisor makes on a busy machine)",
         "bench/engine_threads.py: demo model, 3 requests of 96 tokens per setting, fresh server each, medians",
         ">=", 1.0),
    Goal("decide_cli_s", "`spec-advisor decide --facts FILE` wall time, fresh process (s)",
         "bench/cli_time.py: 37-fact file, median of 5 fresh processes after one that writes the bytecode cache",
         "<=", 0.2),
    Goal("help_cli_s", "`spec-advisor --help` wall time, fresh process (s)",
         "bench/cli_time.py: median of 5 fresh processes after one that writes the bytecode cache", "<=", 0.3),
    Goal("quick_check_wall_s", "`spec-advisor check --quick` on the demo engine (s)",
         "bench/quick_check.py: wall time of the CLI process on this machine's cores "
         "(`--check-timeout`, default 600 s)", "<=", 300.0),
    Goal("false_enable_rate_null", "P(ENABLE) when ENABLE is wrong (worst null, peeking as shipped)",
         "bench/sim_ab.py via bench/sim_figures.py, ≥ 20k reps per scenario", "<=", 0.055),
    Goal("power_at_1_10x", "P(ENABLE) at a true 1.10×, sd 0.15, ≤ 60 prompts",
         "bench/sim_ab.py via bench/sim_figures.py, ≥ 20k reps", ">=", 0.90),
    Goal("mbu_demo_engine", "measured MBU of the demo engine vs measured RAM bandwidth",
         "bench/quick_check.py: baseline step evidence `mbu` of the quick check", "report"),
    Goal("quick_checks_inconclusive_by_canary", "quick checks in a row whose verdict the trap canary withheld",
         "bench/quick_check.py: 3 consecutive `spec-advisor check --quick` runs; verdicts decided by a trap "
         "branch of rules/measurement-validity.toml", "<=", 0.0),
    Goal("quick_checks_decided_by_ab", "of those quick checks, verdicts given by the A/B (rules/ab-outcome.toml)",
         "bench/quick_check.py: the same 3 runs; `decided_by` of `check --json` starts with `ab-outcome/`", ">=", 3.0),
    Goal("quick_checks_decided_by_ab_under_load", "the same 3 quick checks while a bounded CPU hog holds one core: "
         "verdicts given by the A/B", "bench/quick_check.py with bench/cpu_hog.py (one busy process pinned to the "
         "last core, started and stopped by the bench); `decided_by` starts with `ab-outcome/`", ">=", 2.0),
    Goal("eta_error_max_after_10pct", "the quick check's clock: worst |estimated − true remaining| ÷ "
         "max(true remaining, a tenth of the check), over every estimate after the first tenth",
         "bench/quick_check.py via bench/eta_accuracy.py: each alone run's logs/eta.jsonl (advisor/run/eta_log.py)",
         "<=", 0.20),
    Goal("near_tie_share_of_divergences", "share of the A/B pairs whose greedy replies differed that the OFF "
         "arm's top-2 probabilities called a near tie (numerics)",
         "bench/quick_check.py: evidence `divergence_counts` of every run, alone and under load", "report"),
    Goal("ab_speedup_fresh_pool", "A/B speedup on a freshly started ON server (ngram-mod, engine defaults)",
         "bench/pool_effect.py: shipped session (acceptance, batch, A/B), ON server restarted before the A/B",
         "report"),
    Goal("ab_speedup_warm_pool", "the same A/B on the ON server warmed by the earlier steps",
         "bench/pool_effect.py: same seed and prompts, `fresh_pool` off", "report"),
    Goal("tuner_kstar_gap", "best swept speedup ÷ measured speedup at the tuner's k* − 1 (median over tuner runs)",
         "bench/tuner.py: A/B at every k in {1,2,3,4,6,8,12,16} for the chosen method beside 2 tuner runs",
         "<=", 0.03),
    Goal("tuner_time_ratio", "one tuner session's wall (median over runs) ÷ the whole sweep's wall",
         "bench/tuner.py: same pair budget for every A/B", "<=", 0.25),
    Goal("tuner_prediction_rel_err_median", "median |predicted/measured − 1| of the tuner's choice",
         "bench/tuner.py: the A/B of the chosen settings in each tuner run", "<=", 0.10),
    *(goal for name, label, full_s in (("smollm2", "SmolLM2-135M", 600.0), ("gemma3", "Gemma 3 270M", 900.0))
      for goal in (
          Goal(f"full_check_wall_s_{name}", f"wall time of one full check of {label}, alone",
               f"bench/models.py: `check --model` (the shipped command, full budget) on {label}", "<=", full_s),
          Goal(f"eta_error_max_after_10pct_{name}", f"the clock's worst error once a tenth of a quick check of "
               f"{label} had passed", "bench/models.py: 3 quick checks, bench/eta_accuracy.py", "<=", 0.20),
          Goal(f"eta_error_max_after_10pct_full_{name}", f"the same for the full check of {label}",
               "bench/models.py: the full check above", "<=", 0.20),
          Goal(f"tuned_vs_default_speedup_{name}", f"the tuner's choice against the engine's defaults ({label})",
               "bench/models.py: the full check's A/B of the chosen settings against the defaults, both fresh",
               ">=", 0.98),
          Goal(f"tuner_kstar_gap_{name}", f"tuner_kstar_gap on {label}", "bench/tuner.py --model", "<=", 0.03),
          Goal(f"tuner_prediction_rel_err_median_{name}", f"tuner_prediction_rel_err_median on {label}",
               "bench/tuner.py --model", "<=", 0.10),
          Goal(f"quick_check_wall_s_{name}", f"median wall of 3 quick checks of {label}", "bench/models.py",
               "<=", 300.0))),
    Goal("quick_check_verdict_gemma3", "the verdicts of 3 consecutive Gemma 3 270M quick checks",
         "bench/models.py: the shipped `check --quick --model` three times in a row", "is",
         text="ENABLE, ENABLE, ENABLE"),
    Goal("synthetic_surface_model_rel_err_median", "cost model vs the synthetic-acceptance surface",
         "bench/tuner.py: `--spec-synth-len` points (k, τ) of the tuner runs, |model/measured − 1|", "report"),
    Goal("calibration_direction_accuracy", "perf model says faster/slower as published measurements did",
         "bench/calibration.py: `decide --facts` on ../shared/calibration (or $SPEC_ADVISOR_CALIBRATION); cases "
         "measured ≥ 1.05× or ≤ 0.97× whose facts carry acceptance", ">=", 0.95),
    Goal("calibration_median_rel_err", "perf model vs published speedups, median |predicted/measured − 1|",
         "bench/calibration.py: every case with a prediction and a measured speedup", "<=", 0.15),
    Goal("calibration_p90_rel_err", "perf model vs published speedups, p90 |predicted/measured − 1|",
         "bench/calibration.py: nearest rank over the same cases", "report"),
    Goal("faults_tried", "run-level faults injected on the real demo engine",
         "bench/faults.py: the fault tests (server SIGKILL in acceptance and A/B, history unwritable mid-run, "
         "disk full on a small tmpfs, two checks at once, SIGKILL then `check --resume`, non-regular -o targets); "
         "a fault that cannot be staged here is skipped with its reason", "report"),
    Goal("faults_survived", "of those, faults whose every asserted property held",
         "bench/faults.py: right status and exit code, the reason in the verdict, one message and no traceback, "
         "identical evidence for resumed units", "report"),
    Goal("calibration_false_skip", "SKIP verdicts on published cases that measured faster",
         "bench/calibration.py: verdict of `decide --facts` (no A/B) vs the published speedup", "<=", 0.0),
    Goal("calibration_interval_coverage_loso", "share of published speedups inside the prediction's 80% interval",
         "bench/calibration.py: leave one source out (constants and spread fitted without the source)",
         "between", 0.75, 0.90),
    Goal("calibration_direction_accuracy_when_claimed", "claimed directions (interval wholly above or below 1×) "
         "that match the published outcome", "bench/calibration.py: leave one source out, clear cases", ">=", 0.95),
    Goal("calibration_claim_rate", "clear published cases where the interval claims a direction",
         "bench/calibration.py: leave one source out; the rest say 'cannot tell from these facts'", "report"),
    Goal("single_vs_dual_speedup_rel_diff", "single-resident A/B speedup vs the side-by-side one, same prompts",
         "bench/arms.py: two A/B-only sessions on the demo engine (`--arms single`, `--arms dual`), same seed, "
         "up to 40 pairs each; |single speedup ÷ dual speedup − 1|", "<=", 0.03),
    Goal("model_load_s", "one target server's model load in a single-resident run (s)",
         "bench/arms.py: median `servers[].load_s` (process start to /health 200) of the single run", "report"),
    Goal("idle_drafter_cost_rel", "OFF on a drafter-loaded server with drafting off per request vs a plain one",
         "bench/arms.py: the demo drafting for itself, asked for `speculative.n_max` 0 per request; null when "
         "the build has no such toggle (the server's draft counts are in the note)", "report"),
    Goal("cluster_ab_overhead_s", "`check --quick --llmkube` wall minus a local quick check's, same model (s)",
         "bench/cluster.py: `check --quick --no-tune` locally and against the contract Kubernetes API (real "
         "llama-server pods, the managed servers' options), median of 4 each", "report"),
    Goal("cluster_ab_speedup_vs_local_rel_diff", "the cluster check's A/B speedup vs the local one's, same model",
         "bench/cluster.py: |median cluster A/B speedup ÷ median local A/B speedup − 1| over the same runs",
         "<=", 0.05),
)


def _fmt(value: object) -> str:
    if isinstance(value, str) and value:
        return value
    if not isinstance(value, int | float) or isinstance(value, bool):
        return "null"
    return f"{value:.4g}"


def _cell(text: object) -> str:
    # A pipe or a newline inside a cell would break the markdown table.
    return str(text).replace("|", "\\|").replace("\n", " ")


def render_markdown(results: dict[str, Any], meta: dict[str, Any]) -> str:
    """The benchmarks page: header (date, machine, command), the table, the GPU note and the misses."""
    m = meta.get("machine", {})
    lines = [
        "# Benchmarks", "",
        f"Generated by `{meta.get('command', '.venv/bin/python -m bench.run_all')}` on {meta.get('date')} "
        f"(UTC), in {meta.get('seconds', 0):.0f} s. "
        + ("Every figure below was measured in that run" if not meta.get("partial") else
           "The stages named under *Partial run* were measured in that run, the others in the run it names")
        + "; nothing is copied from elsewhere.", "",
        f"- **Machine**: {m.get('cpu_model')}, {m.get('cores_logical')} logical cores "
        f"({m.get('cores_physical')} physical), {m.get('ram_total_gib')} GiB RAM, "
        f"GPU: {m.get('gpu') or 'none'} ({m.get('gpu_status')})",
        f"- **OS / Python**: {m.get('os')} / {m.get('python')}",
        f"- **Load average at start** (1/5/15 min, shared machine): {m.get('load_avg_1_5_15')}; "
        f"at end: {meta.get('load_avg_end')}",
        f"- **Engine**: {m.get('llama_server') or 'not installed'}",
        f"- **Mode**: {'--skip-slow (quick check and 20k simulation skipped)' if meta.get('skip_slow') else 'full'}",
        *([f"- **Stopped early**: {meta['stopped_early']}; figures of the stages not reached are not measured"]
          if meta.get("stopped_early") else []),
        *([f"- **Partial run**: {meta['partial']}"] if meta.get("partial") else []),
        "",
        "| figure | meaning | method | goal | measured | status | note |",
        "|---|---|---|---|---|---|---|",
    ]
    for g in GOALS:
        value = results.get(g.key)
        lines.append(f"| `{g.key}` | {_cell(g.meaning)} | {_cell(g.method)} | {_cell(g.goal_text)} | "
                     f"{_fmt(value)} | {g.status(value)} | {_cell(results.get(f'{g.key}_note', ''))} |")
    lines += ["", "## GPU", "", _cell(meta.get("gpu_section", "")), ""]
    lines += reliability_lines(results)
    missed = [g for g in GOALS if g.status(results.get(g.key)) in ("missed", "not measured")]
    if missed:
        lines += ["## Goals missed or not measured", ""]
        lines += [f"- `{g.key}`: {g.status(results.get(g.key))} — {_cell(results.get(f'{g.key}_note', ''))}"
                  for g in missed]
        lines.append("")
    return "\n".join(lines)


# Figures outside the goal table: counts, each with its `<key>_note`, in the "Reliability" section.
RELIABILITY: tuple[tuple[str, str], ...] = (
    ("hostile_cases_tried", "hostile-input cases tried (bench/hostile.py: tests/hostile_cases.py through the "
                            "real CLI, one bounded process each)"),
    ("hostile_cases_passing", "of them answered as required: exit 2, one message line on stderr, no traceback "
                              "(broken pipes: a quiet exit)"),
)


def reliability_lines(results: dict[str, Any]) -> list[str]:
    """The "## Reliability" section: the hostile-input counts, then each fault bench/faults.py injected and
    whether the run survived it."""
    lines = ["## Reliability", ""]
    for key, meaning in RELIABILITY:
        lines.append(f"- `{key}` = {_fmt(results.get(key))}: {meaning}")
    note = results.get("hostile_cases_passing_note")
    if note:
        lines += ["", _cell(note)]
    cases = results.get("faults")
    if isinstance(cases, list) and cases:
        lines += ["", f"Faults survived: {_fmt(results.get('faults_survived'))} of "
                      f"{_fmt(results.get('faults_tried'))} tried (bench/faults.py).", "",
                  "| fault | outcome | s | detail |", "|---|---|---|---|"]
        lines += [f"| `{_cell(c.get('fault'))}` | {_cell(c.get('outcome'))} | {_cell(c.get('seconds'))} | "
                  f"{_cell(c.get('detail'))} |" for c in cases if isinstance(c, dict)]
    return [*lines, ""]


def build_json(results: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
    """Top level: every figure key (number or null), its `<key>_note`, status, and the run's metadata."""
    out: dict[str, Any] = {"date": meta.get("date"), "machine": meta.get("machine"),
                           "command": meta.get("command"), "skip_slow": meta.get("skip_slow"),
                           "gpu_section": meta.get("gpu_section"), "seconds": meta.get("seconds"),
                           "stopped_early": meta.get("stopped_early"), "partial": meta.get("partial")}
    for g in GOALS:
        value = results.get(g.key)
        out[g.key] = value if (isinstance(value, int | float) and math.isfinite(value)) or (
            g.op == "is" and isinstance(value, str)) else None
        note = results.get(f"{g.key}_note")
        if note or out[g.key] is None:
            out[f"{g.key}_note"] = note or "not measured: no module produced this figure"
        out[f"{g.key}_goal"] = g.goal_text
        out[f"{g.key}_status"] = g.status(value)
    for key, _ in RELIABILITY:
        out[key] = results.get(key)
        out[f"{key}_note"] = results.get(f"{key}_note") or "not measured: no module produced this figure"
    out["details"] = {k: v for k, v in results.items()
                      if not any(k == g.key or k == f"{g.key}_note" for g in GOALS)
                      and not any(k in (r, f"{r}_note") for r, _ in RELIABILITY)}
    return out


def write(results: dict[str, Any], meta: dict[str, Any], docs: Path) -> tuple[Path, Path]:
    """Write both files under `docs`; returns their paths."""
    docs.mkdir(parents=True, exist_ok=True)
    md, js = docs / "benchmarks.md", docs / "benchmarks.json"
    md.write_text(render_markdown(results, meta), encoding="utf-8")
    js.write_text(json.dumps(json_safe(build_json(results, meta)), indent=1, allow_nan=False, default=str) + "\n",
                  encoding="utf-8")
    return md, js
