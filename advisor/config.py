"""What a check measures and how long it may take (quick vs full), chosen once before the run."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

StepId = Literal["baseline", "acceptance", "verify", "tune", "batch", "ab"]
ALL_STEPS: tuple[StepId, ...] = ("baseline", "acceptance", "verify", "tune", "batch", "ab")
# The draft lengths the tuner considers (the sweep): the acceptance step runs at the longest.
TUNE_KS: tuple[int, ...] = (1, 2, 3, 4, 6, 8, 12, 16)


@dataclass(frozen=True, slots=True)
class Budget:
    """Sizes of each step. Quick keeps a 2-core CPU demo under 5 minutes; full is for real decisions.

    Quick's baseline is 4 prompts × 2 repeats: 8 requests give the median speed, and the 4 repeat pairs the
    run-to-run noise (4 degrees of freedom: enough to tell a steady machine, ~3%, from a busy one, ≥ 10%)."""

    max_tokens: int                  # output tokens per measured request (same for both arms)
    baseline_prompts: int
    acceptance_per_category: int
    canary_repeats: int              # the seed-003 curve: one prompt repeated N times
    canary_reruns: int               # already-seen prompts run again (MLPerf TEST04 style)
    verify_repeats: int
    verify_depth_tokens: int         # L, the cached prefix the k new tokens are verified against
    batch_levels: tuple[int, ...]
    batch_requests_per_slot: int
    ab_max_pairs: int
    warmup_requests: int = 2
    # Tokens each warm-up request answers: a load's first requests page the weights in, allocate the compute
    # buffers and start the threads, which a short answer does as well as a long one. A full answer (192 tokens)
    # per warm-up cost the demo's full check ~45 s over the tuner's eleven restarts, none of it measured.
    warmup_tokens: int = 16
    # Each baseline prompt is run this many times, in rounds: the spread of one prompt's repeats is the
    # run-to-run noise (different prompts decode at different speeds, so their spread is not noise).
    baseline_repeats: int = 2
    # The verify curve is measured a second time at the user's own depth when their prompts reach this many
    # times L: attention over the prefix grows with depth, so a short-prefix curve would understate the cost.
    verify_user_depth_factor: float = 2.0
    # The tuner: other methods probed at the longest draft (the configured one is measured by step 2), prompts
    # per category for each, and the synthetic-acceptance surface as (draft length, mean acceptance length).
    tune_methods: tuple[str, ...] = ()
    tune_probe_per_category: int = 1
    surface_points: tuple[tuple[int, float], ...] = ()
    surface_requests: int = 2
    batch_rounds: int = 3            # paired on/off rounds per concurrency level (their spread gives the CI)
    # Variants of the default method's own knobs, each probed at the longest draft like another method and
    # chosen only when predicted faster by the method tie margin (rules/policy.toml). ngram-mod lookup lengths
    # (--spec-ngram-mod-n-match) besides the engine's (24 in current builds): 12, half of it, starts drafting
    # as soon as 12 tokens repeat instead of 24, so a copied span is drafted sooner, at the risk of more wrong
    # drafts; it is also the lookup length of the engine's other n-gram types (--spec-ngram-simple-size-n and
    # -map-k-size-n, 12). On this machine's demo (SmolLM2-135M, 18 library prompts, k = 16, 64 tokens) 12
    # accepted 69 drafted tokens where 24 accepted 45 (8 gave 70: no better than 12).
    tune_n_match: tuple[int, ...] = ()
    # With a draft model: --spec-draft-p-min values besides the engine's own (0.00 in current builds, read from
    # --help): 0.75 was the default of pre-refactor builds (engine-facts.md §1.6), which stops a draft at the first
    # token the draft model is less than 75 % sure of, so fewer drafted tokens are wasted.
    tune_p_min: tuple[float, ...] = ()
    # After the A/B, when the tuner moved away from the engine's own defaults: pairs of the chosen settings
    # against those defaults (0: not compared).
    ab_vs_default_pairs: int = 0


# A quick check spot-checks the cost model at one synthetic-surface point, away from the longest draft the model
# was fitted at (each point is a server restart and ~4 s on the demo engine); a full check maps the surface.
QUICK = Budget(max_tokens=64, baseline_prompts=4, acceptance_per_category=2, canary_repeats=5, canary_reruns=3,
               verify_repeats=3, verify_depth_tokens=256, batch_levels=(1, 2, 4), batch_requests_per_slot=1,
               ab_max_pairs=20, surface_points=((4, 2.5),), batch_rounds=3)
# The full check's synthetic-acceptance surface, ordered so that every prefix spreads over draft lengths and
# acceptance (a check sized down to fewer points keeps a prefix: advisor/run/budget.py); the first is the quick
# check's one point. Each mean acceptance length is at most k + 1.
SURFACE_SPREAD: tuple[tuple[int, float], ...] = (
    (4, 2.5), (16, 4.0), (2, 1.5), (8, 2.5), (16, 1.5), (8, 4.0), (4, 1.5), (2, 2.5), (16, 2.5), (8, 1.5), (4, 4.0))
FULL = Budget(max_tokens=192, baseline_prompts=12, acceptance_per_category=6, canary_repeats=10, canary_reruns=6,
              verify_repeats=7, verify_depth_tokens=1024, batch_levels=(1, 2, 4, 8), batch_requests_per_slot=2,
              ab_max_pairs=60, tune_methods=("ngram-simple", "ngram-map-k"), tune_probe_per_category=3,
              surface_points=SURFACE_SPREAD, surface_requests=3, batch_rounds=5, ab_vs_default_pairs=20,
              tune_n_match=(12,), tune_p_min=(0.75,))

# The sizes a full check may shrink to when its time budget (rules/policy.toml [budget]) cannot hold FULL's at
# this machine's pace, largest first; the last rung of each is no smaller than the quick check, so a sized full
# check never measures less than a quick one (the A/B keeps the first ENABLE look, 20 pairs, and a comparison
# with the defaults at its first look, 10).
# acceptance: (prompts per category, canary repeats, canary re-runs)
ACCEPTANCE_RUNGS: tuple[tuple[int, int, int], ...] = ((6, 10, 6), (5, 8, 5), (4, 8, 4), (3, 6, 3), (2, 5, 3))
# tuner: (probe prompts per category, synthetic-surface points: a prefix of SURFACE_SPREAD)
TUNE_RUNGS: tuple[tuple[int, int], ...] = ((3, 11), (2, 11), (2, 7), (1, 7), (1, 4), (1, 2), (1, 1))
# concurrency sweep: (levels, paired rounds per level, requests per slot per round)
BATCH_RUNGS: tuple[tuple[tuple[int, ...], int, int], ...] = (
    ((1, 2, 4, 8), 5, 2), ((1, 2, 4, 8), 4, 1), ((1, 2, 4, 8), 3, 1), ((1, 2, 4), 3, 1))
# A/B: (pairs against OFF, at a planned look; pairs of the tuner's choice against the engine's defaults)
AB_RUNGS: tuple[tuple[int, int], ...] = ((60, 20), (50, 20), (40, 20), (40, 10), (30, 10), (20, 10))


@dataclass(frozen=True, slots=True)
class CheckConfig:
    """Everything the user chose for one check."""

    quick: bool = True
    steps: tuple[StepId, ...] = ALL_STEPS
    engine_url: str | None = None            # attach mode: measure this server as configured
    engine_url_b: str | None = None          # attach mode: the other arm (spec on when engine_url is off, …)
    allow_remote: bool = False
    # attach mode: the engine's API key. Never stored: `to_dict`, the evidence and the history leave it out.
    api_key: str | None = field(default=None, repr=False)
    api_key_b: str | None = field(default=None, repr=False)  # engine_url_b's own key (each key to its own server)
    llama_server: str | None = None          # managed mode: explicit binary
    # managed mode: run a CPU-only llama-server on a machine with a GPU (advisor/run/engine_gate.py), on purpose
    allow_cpu_engine: bool = False
    model: Path | None = None                # managed mode: target GGUF (default: the demo model)
    spec_type: str = "ngram-mod"
    draft_model: Path | None = None
    draft_max: int | None = None           # γ; None measures the engine's own default for the method
    draft_gpu_layers: str | None = None    # -ngld as the user asked (a count, "all", "auto"); None: we choose
    draft_kv_type: str | None = None       # -ctkd/-ctvd, e.g. q8_0; None: f16 (llama.cpp's default)
    draft_ctx: int | None = None           # -cd, draft context per slot; None: the target's per-slot context
    prompts_file: Path | None = None
    concurrency_expected: int = 1
    # The user's mix of tasks for the A/B: category → weight (None: every category equally).
    mix: tuple[tuple[str, float], ...] | None = None
    temperature: float = 0.0
    seed: int = 42
    threads: int | None = None
    # The user's own llama-server options, given to both managed arms and kept in the recommendation.
    server_args: tuple[str, ...] = ()
    out_dir: Path | None = None
    # Restart the ON server before each phase that measures it (acceptance, canary, batch, A/B); off only to
    # measure how much a warm n-gram pool inflates the A/B (bench/pool_effect.py).
    fresh_pool: bool = True
    # Managed arms: side by side (dual), one copy of the target at a time (single), or chosen by the memory
    # budget before any server starts (auto; advisor/arms/budget.py).
    arms: Literal["auto", "single", "dual"] = "auto"
    keep_prompts: bool = False               # store prompt texts in evidence (they may be private)
    # An A/B still undecided at its pair budget goes on to the full check's pair budget (same planned looks and
    # boundary: a group-sequential design may run to its last look, reliability.md §2.5).
    until_decided: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
    budget_override: Budget | None = None    # tests and benchmarks size steps precisely

    @property
    def budget(self) -> Budget:
        """The sizes for this mode (or the override)."""
        if self.budget_override is not None:
            return self.budget_override
        return QUICK if self.quick else FULL

    @property
    def ab_pair_limit(self) -> int:
        """The most A/B pairs this check may measure: the budget's, or the full check's with `until_decided`."""
        pairs = self.budget.ab_max_pairs
        return max(pairs, FULL.ab_max_pairs) if self.until_decided else pairs

    @property
    def tuning(self) -> bool:
        """True when the tuner chooses the draft length (and method): its step is on and the user did not fix
        a draft length by hand."""
        return "tune" in self.steps and self.draft_max is None

    @property
    def draft_cap(self) -> int | None:
        """The cap the ON arm starts with: the user's, else the tuner's longest, else the engine's default."""
        if self.draft_max is not None:
            return self.draft_max
        return max(TUNE_KS) if self.tuning and self.mode == "managed" else None

    @property
    def mode(self) -> Literal["managed", "attach"]:
        """`attach` when the user points at running servers, else we launch them."""
        return "attach" if self.engine_url else "managed"

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form written into evidence.json."""
        d = asdict(self)
        d.pop("api_key", None)
        d.pop("api_key_b", None)
        for key in ("model", "draft_model", "prompts_file", "out_dir"):
            d[key] = str(d[key]) if d[key] is not None else None
        d["steps"] = list(self.steps)
        d["mode"] = self.mode
        # Prompts are de-duplicated (exact and near-duplicates) before any run, bundled or the user's own.
        d["repeated_prompts"] = False
        d.pop("budget_override", None)
        d["budget"] = asdict(self.budget)
        d["budget"]["batch_levels"] = list(self.budget.batch_levels)
        d["budget"]["tune_methods"] = list(self.budget.tune_methods)
        d["budget"]["tune_n_match"] = list(self.budget.tune_n_match)
        d["budget"]["tune_p_min"] = list(self.budget.tune_p_min)
        d["budget"]["surface_points"] = [list(p) for p in self.budget.surface_points]
        return d


def config_from_dict(d: dict[str, Any]) -> CheckConfig:
    """Rebuild a config from its `to_dict()` form (resume reads it from the history database)."""
    known = {f for f in CheckConfig.__dataclass_fields__}
    kwargs = {k: v for k, v in d.items() if k in known}
    for key in ("model", "draft_model", "prompts_file", "out_dir"):
        if kwargs.get(key) is not None:
            kwargs[key] = Path(kwargs[key])
    if "steps" in kwargs:
        kwargs["steps"] = tuple(kwargs["steps"])
    if "server_args" in kwargs:
        kwargs["server_args"] = tuple(kwargs["server_args"])
    if kwargs.get("mix") is not None:  # JSON gives lists of [category, weight]
        kwargs["mix"] = tuple((str(c), float(w)) for c, w in kwargs["mix"])
    config = CheckConfig(**kwargs)
    # A run measured with its own sizes must resume with them, or the reused units and the new ones differ.
    stored = _budget_from_dict(d.get("budget"))
    if stored is not None and stored != config.budget:
        config = replace(config, budget_override=stored)
    return config


def _budget_from_dict(d: Any) -> Budget | None:
    if not isinstance(d, dict):
        return None
    known = {f for f in Budget.__dataclass_fields__}
    kwargs = {k: v for k, v in d.items() if k in known}
    for key in ("batch_levels", "tune_methods", "tune_n_match", "tune_p_min"):
        if key in kwargs:
            kwargs[key] = tuple(kwargs[key])
    if "surface_points" in kwargs:
        kwargs["surface_points"] = tuple(tuple(p) for p in kwargs["surface_points"])
    try:
        return Budget(**kwargs)
    except TypeError:  # written by another release: fall back to the mode's own sizes
        return None
