"""The measurement and statistics policy (`rules/policy.toml`), typed, with the user's override merged in.

Everything that reads a policy number (the A/B kernel, the steps, the perf-model reconciliation, charts,
report and UI) gets it from `Policy`, so an override in `<config>/rules/policy.toml` moves all of them and
the code holds no copy. An override may set any subset of keys; unknown keys, wrong types and values
outside their physical range are refused at load time, before any server starts.
"""

from __future__ import annotations

import functools
import math
import os
import stat
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

from advisor.core.ab_policy import ABPolicy
from advisor.core.comments import notes
from advisor.core.names import suggest
from advisor.errors import UserError

POLICY_FILE = "policy.toml"
POLICY_ID = "policy"


class PolicyError(UserError):
    """The policy file (built-in or the user's override) is malformed."""


@dataclass(frozen=True, slots=True)
class BatchPolicy:
    """Where the concurrency sweep says speculation pays (ratios ×) and the level of its per-level CIs."""

    break_even: float
    ci_level: float


@dataclass(frozen=True, slots=True)
class CanaryPolicy:
    """Limits of the repeated-prompt canary."""

    max_repeat_inflation: float


@dataclass(frozen=True, slots=True)
class BaselinePolicy:
    """Guards of the baseline profile."""

    max_cv_pct: float


@dataclass(frozen=True, slots=True)
class BottleneckPolicy:
    """Cut-offs of the bottleneck classifier (MBU 0..1, GB per token)."""

    memory_bound_mbu: float
    small_model_gb: float


@dataclass(frozen=True, slots=True)
class PreflightPolicy:
    """Environment guards before measuring."""

    max_load_per_core: float
    min_free_vram_gib: float


@dataclass(frozen=True, slots=True)
class AcceptancePolicy:
    """Warnings of the acceptance step, and the level of its per-category intervals (0..1)."""

    low_rate_warning: float
    ci_level: float


@dataclass(frozen=True, slots=True)
class ReconcilePolicy:
    """How far the perf model may miss the A/B before the gap is reported."""

    model_mismatch_factor: float


@dataclass(frozen=True, slots=True)
class TunerPolicy:
    """How the tuner breaks near-ties and when its prediction is called off the mark (fractions)."""

    k_tie_margin: float
    method_tie_margin: float
    max_prediction_error: float
    overhead_alpha: float        # one-sided test level for using a fitted per-step overhead


@dataclass(frozen=True, slots=True)
class PredictionPolicy:
    """How sure a prediction's interval is (a probability, 0..1): advisor/perf/interval.py."""

    interval_level: float


@dataclass(frozen=True, slots=True)
class ArmsPolicy:
    """How managed arms are planned (GiB spare, pairs per block, the share of a core that counts as held by other
    work) and the sanity gate's limits (×, tokens)."""

    dual_margin_gib: float
    draft_headroom_gib: float
    single_block_pairs: int
    sanity_max_slowdown: float
    sanity_tokens: int
    busy_core_share: float


@dataclass(frozen=True, slots=True)
class ContentionPolicy:
    """When a check says the machine is busy: speculation-off decode below `slow_fraction` of the baseline's
    median (a fraction) for `consecutive` requests in a row."""

    slow_fraction: float
    consecutive: int


@dataclass(frozen=True, slots=True)
class EtaPolicy:
    """The pace a check's length is said at before it starts, when no earlier run of the model says (s/unit)."""

    demo_unit_s: float


@dataclass(frozen=True, slots=True)
class BudgetPolicy:
    """A full check's time budget (s), each sized step's share of it (0..1), the cost of a concurrent wave
    (an exponent) and when a step has run past its plan (× its planned seconds, for a plan of at least
    `overrun_min_s`)."""

    full_check_s: float
    share_acceptance: float
    share_tune: float
    share_batch: float
    share_ab: float
    batch_wave_exponent: float
    overrun_factor: float
    overrun_min_s: float

    def share(self, step: str) -> float | None:
        """The share of `step` (None: a step that keeps its size)."""
        value = getattr(self, f"share_{step}", None)
        return float(value) if isinstance(value, int | float) else None


@dataclass(frozen=True, slots=True)
class Policy:
    """Every policy number, by table."""

    ab: ABPolicy
    batch: BatchPolicy
    canary: CanaryPolicy
    baseline: BaselinePolicy
    bottleneck: BottleneckPolicy
    preflight: PreflightPolicy
    acceptance: AcceptancePolicy
    reconcile: ReconcilePolicy
    tuner: TunerPolicy
    arms: ArmsPolicy
    prediction: PredictionPolicy
    contention: ContentionPolicy
    eta: EtaPolicy
    budget: BudgetPolicy
    source: str = ""
    notes: Mapping[str, str] = field(default_factory=dict)  # `table.key` → where the number comes from

    def value(self, dotted: str) -> object:
        """`ab.min_speedup` → 1.02: a policy value by its table and key (rules refer to them this way)."""
        table, _, key = dotted.partition(".")
        values = flat_values(self)
        if dotted not in values:
            raise KeyError(f"no policy value '{table}.{key}'")
        return values[dotted]


_TABLES: dict[str, type] = {
    "batch": BatchPolicy, "canary": CanaryPolicy, "baseline": BaselinePolicy, "bottleneck": BottleneckPolicy,
    "preflight": PreflightPolicy, "acceptance": AcceptancePolicy, "reconcile": ReconcilePolicy,
    "tuner": TunerPolicy, "arms": ArmsPolicy, "prediction": PredictionPolicy, "contention": ContentionPolicy,
    "eta": EtaPolicy, "budget": BudgetPolicy,
}
# Physical ranges: an override outside them is a typo or a misunderstanding, never a policy.
_RANGES: dict[str, tuple[float, float]] = {
    "ab.min_speedup": (1.0, 2.0), "ab.boundary": (0.5, 10.0), "ab.ci_level": (0.5, 0.999),
    "ab.min_pairs": (3, 10_000), "ab.min_pairs_enable": (3, 10_000), "ab.max_cv_off_pct": (0.0, 1000.0),
    "ab.slow_ratio": (0.0, 1.0), "ab.max_slow_share": (0.0, 1.0), "ab.sensitivity_drop": (0.0, 0.5),
    "ab.order_alpha": (0.0, 0.5), "ab.min_order_share": (0.0, 0.5), "ab.max_failure_excess": (0.0, 1.0),
    "ab.max_failure_rate": (0.0, 1.0), "ab.max_loop_share": (0.0, 1.0), "ab.max_throttled_share": (0.0, 1.0),
    "ab.max_consecutive_failures": (1, 1000), "ab.min_skewness": (-100.0, 100.0),
    "ab.category_family_alpha": (0.0001, 0.5), "ab.early_divergence_share": (0.0, 1.0),
    "ab.near_tie_max_gap": (0.0, 20.0), "ab.max_drift": (0.0, 10.0), "ab.drift_alpha": (0.0001, 0.5),
    "ab.outlier_z": (1.0, 100.0), "ab.bet_alpha": (0.0001, 0.5), "ab.bet_floor_ratio": (0.01, 0.99),
    "ab.bet_cap": (0.01, 0.99), "ab.bet_min_sd": (0.0001, 1.0),
    "batch.break_even": (1.0, 2.0), "batch.ci_level": (0.5, 0.999),
    "canary.max_repeat_inflation": (1.0, 100.0), "baseline.max_cv_pct": (0.0, 1000.0),
    "bottleneck.memory_bound_mbu": (0.0, 1.0), "bottleneck.small_model_gb": (0.0, 10_000.0),
    "preflight.max_load_per_core": (0.0, 100.0), "preflight.min_free_vram_gib": (0.0, 10_000.0),
    "acceptance.low_rate_warning": (0.0, 1.0), "acceptance.ci_level": (0.6, 0.999),
    "reconcile.model_mismatch_factor": (1.0, 100.0),
    "tuner.k_tie_margin": (0.0, 0.5), "tuner.method_tie_margin": (0.0, 0.5),
    "tuner.max_prediction_error": (0.0, 10.0), "tuner.overhead_alpha": (0.0001, 0.5),
    "arms.dual_margin_gib": (0.0, 10_000.0), "arms.draft_headroom_gib": (0.0, 10_000.0),
    "arms.single_block_pairs": (1, 1000),
    "arms.sanity_max_slowdown": (1.0, 1000.0), "arms.sanity_tokens": (4, 4096), "arms.busy_core_share": (0.05, 1.0),
    "prediction.interval_level": (0.5, 0.99),
    "contention.slow_fraction": (0.01, 1.0), "contention.consecutive": (1, 1000),
    "eta.demo_unit_s": (0.01, 3600.0),
    "budget.full_check_s": (60.0, 86_400.0), "budget.share_acceptance": (0.01, 1.0),
    "budget.share_tune": (0.0, 1.0), "budget.share_batch": (0.01, 1.0), "budget.share_ab": (0.01, 1.0),
    "budget.batch_wave_exponent": (0.0, 1.0), "budget.overrun_factor": (1.0, 100.0),
    "budget.overrun_min_s": (0.0, 86_400.0),
}


# A rule or policy file is a few KB; anything far larger is not one.
MAX_RULE_FILE_BYTES = 1024 * 1024


def read_rule_text(path: Path) -> str:
    """The text of a user's rule or policy file: a regular file (never a pipe), bounded, UTF-8.

    Raises PolicyError (a UserError) naming the file; RuleError subclasses it for question files."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a named pipe must not block the load
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise PolicyError(f"{path} is not a regular file", hint="rule files are TOML text files")
            data = fh.read(MAX_RULE_FILE_BYTES + 1)
    except OSError as exc:
        raise PolicyError(f"cannot read {path}: {exc.strerror or exc}",
                          hint="fix the rule file or remove your override of it") from None
    if len(data) > MAX_RULE_FILE_BYTES:
        raise PolicyError(f"{path} is over {MAX_RULE_FILE_BYTES // 1024} KB; a rule file is far smaller")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PolicyError(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def parse_toml(text: str, source: str) -> dict[str, Any]:
    """`tomllib.loads` with every failure (bad syntax, absurd nesting) as one PolicyError naming `source`."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PolicyError(f"{source}: not valid TOML: {exc}", hint="fix the file or remove your override") from None
    except RecursionError:
        raise PolicyError(f"{source}: not valid TOML: nested too deeply") from None


def _read(text: str, source: str) -> dict[str, Any]:
    data = parse_toml(text, source)
    if data.get("id", POLICY_ID) != POLICY_ID:
        raise PolicyError(f"{source}: a policy file has id = \"{POLICY_ID}\"")
    return {k: v for k, v in data.items() if k not in ("schema", "id")}


def _merge(base: dict[str, Any], override: Mapping[str, Any], source: str) -> dict[str, Any]:
    out = {table: dict(values) for table, values in base.items()}
    for table, values in override.items():
        if table not in out or not isinstance(values, Mapping):
            raise PolicyError(f"{source}: unknown policy table [{table}]{suggest(table, out)}")
        for key, value in values.items():
            if key not in out[table]:
                raise PolicyError(f"{source} [{table}]: unknown key '{key}'{suggest(key, out[table])}")
            out[table][key] = _typed(f"{table}.{key}", value, out[table][key], source)
    return out


def _typed(name: str, value: Any, like: Any, source: str) -> Any:
    if isinstance(like, list):
        ok = isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        if not ok or not value:
            raise PolicyError(f"{source}: {name} must be a list of whole numbers like {like!r}")
        return value
    numeric = isinstance(value, int | float) and not isinstance(value, bool)
    if not numeric or (isinstance(like, int) and not isinstance(value, int)):
        raise PolicyError(f"{source}: {name} must be a {'whole ' if isinstance(like, int) else ''}number like "
                          f"{like!r}, got {value!r}")
    low, high = _RANGES.get(name, (-math.inf, math.inf))
    if not (math.isfinite(value) and low <= value <= high):
        raise PolicyError(f"{source}: {name} = {value!r} is outside its range [{low:g}, {high:g}]")
    return value


def _build(values: Mapping[str, Any], source: str) -> Policy:
    ab: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in values["ab"].items()}
    margin = ab.pop("min_speedup") - 1.0
    try:
        ab_policy = ABPolicy(margin=margin, **ab)
        tables = {name: cls(**values[name]) for name, cls in _TABLES.items()}
    except (TypeError, ValueError) as exc:
        raise PolicyError(f"{source}: {exc}") from exc
    shares = sum(v for k, v in values["budget"].items() if k.startswith("share_"))
    if shares > 1.0 + 1e-9:
        raise PolicyError(f"{source}: the budget's step shares add up to {shares:g}, more than the whole check (1)")
    return Policy(ab=ab_policy, source=source, **tables)


def _present(path: Path) -> bool:
    """Something is there, even a dangling link or a pipe: reading it then says what is wrong with it."""
    return path.exists() or path.is_symlink()


@functools.cache
def _builtin_text() -> str:
    return resources.files("rules").joinpath(POLICY_FILE).read_text(encoding="utf-8")


def _builtin_values() -> dict[str, Any]:
    return _read(_builtin_text(), f"rules/{POLICY_FILE}")


def load_policy(rules_dir: Path | None = None, user_dir: Path | None = None) -> Policy:
    """The built-in policy (or `rules_dir/policy.toml`), with `user_dir/policy.toml` merged over it."""
    if rules_dir is not None and _present(rules_dir / POLICY_FILE):
        values = _read(read_rule_text(rules_dir / POLICY_FILE), str(rules_dir / POLICY_FILE))
        values = _merge(_builtin_values(), values, str(rules_dir / POLICY_FILE))
    else:
        values = _builtin_values()
    source = f"rules/{POLICY_FILE}"
    if user_dir is not None and _present(user_dir / POLICY_FILE):
        path = user_dir / POLICY_FILE
        values = _merge(values, _read(read_rule_text(path), str(path)), str(path))
        source = str(path)
    return replace(_build(values, source), notes=notes(_builtin_text()))


@functools.cache
def default_policy() -> Policy:
    """The built-in policy without user overrides (tests, simulations, the benchmark)."""
    return replace(_build(_builtin_values(), f"rules/{POLICY_FILE}"), notes=notes(_builtin_text()))


def flat_values(policy: Policy) -> dict[str, object]:
    """Every policy value as `table.key` → value (what rule files reference as `$policy.table.key`)."""
    from dataclasses import fields

    out: dict[str, object] = {}
    for table in ("ab", *_TABLES):
        obj = getattr(policy, table)
        for f in fields(obj):
            out[f"{table}.{f.name}"] = getattr(obj, f.name)
    out["ab.min_speedup"] = 1.0 + policy.ab.margin
    return out
