"""llama.cpp speculative flags: the one builder for what the managed ON arm runs and what the user is told.

`spec_args(settings, dialect)` writes the flags in the binary's own dialect (engine-facts.md §1.6): new builds take
`--spec-type` plus a length flag per drafter type, old builds `--draft-max` for everything and enable a plain
draft model by `-md` alone. A flag the dialect does not have is never written: `UnsupportedSpec` says why.
The recommendation for a measured run is the measured ON arm's flags, token for token (`spec.argv`); only
`decide --facts` without them builds flags from the dialect facts, with this same function.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass, replace

from advisor import methods
from advisor.recommend.dialect import unknown_flags
from advisor.recommend.engine_schedule import ParallelCutoff
from probes.engines.llamacpp.binary import FlagDialect, Generation

DRAFT_PLACEHOLDER = "DRAFT_MODEL.gguf"
# Said wherever flags are written without knowing the build's own (engine-facts.md §1.6: PR #22397 renamed them)
CURRENT_DIALECT_NOTE = ("written in the current llama.cpp flags (this build's own flags are not known): a build "
                        "from before the flag refactor (PR #22397) takes --draft-max instead of --spec-*-n-max; "
                        "`llama-server --help` shows which yours has")
PARALLEL_FLAG = "-np"  # llama-server's parallel slots: how many requests one server decodes at once
# --spec-type values per flag generation (engine-facts.md §1.6): a name outside these is never emitted
SPEC_TYPES_OLD = frozenset({"ngram-cache", "ngram-simple", "ngram-map-k", "ngram-map-k4v", "ngram-mod"})
SPEC_TYPES_NEW = SPEC_TYPES_OLD | {"draft-simple", "draft-eagle3", "draft-mtp", "draft-dflash", "draft-dspark"}
_TYPE_OF_FAMILY = {"eagle3": "draft-eagle3", "mtp": "draft-mtp", "draft": "draft-simple", "dflash": "draft-dflash",
                   "dspark": "draft-dspark"}


@dataclass(frozen=True, slots=True)
class MethodFlags:
    """The knobs of one --spec-type: what caps a draft, what sets its minimum, what else shapes it."""

    draft_max: str
    draft_min: str | None = None        # written only when its default would exceed the cap (contradictory)
    extra: tuple[str, ...] = ()         # named in the evidence and the verdict, left at the engine's value


# New builds give each n-gram type its own length flag: `--spec-draft-n-max` does not limit `ngram-mod`,
# which drafts up to its own n-max (seen on the real server: draft_n = 64 in one verify step). engine-facts.md §1.6.
# ngram-mod's lookup length: how many trailing tokens must match before it drafts (the tuner may shorten it).
NGRAM_MOD_N_MATCH = "--spec-ngram-mod-n-match"
_NEW_FLAGS: dict[str, MethodFlags] = {
    "ngram-mod": MethodFlags("--spec-ngram-mod-n-max", "--spec-ngram-mod-n-min", (NGRAM_MOD_N_MATCH,)),
    **{t: MethodFlags(f"--spec-{t}-size-m", None, (f"--spec-{t}-size-n", f"--spec-{t}-min-hits"))
       for t in ("ngram-simple", "ngram-map-k", "ngram-map-k4v")},
}
_NEW_DRAFT = MethodFlags("--spec-draft-n-max", None, ("--spec-draft-n-min", "--spec-draft-p-min"))
# Old builds used --draft-max for every drafter.
_OLD_FLAGS = MethodFlags("--draft-max", None, ("--draft-min", "--draft-p-min"))


def method_flags(spec_type: str, generation: Generation) -> MethodFlags:
    """The length and shape flags of `spec_type` in this flag generation."""
    if generation == "old":
        return _OLD_FLAGS
    return _NEW_FLAGS.get(spec_type, _NEW_DRAFT)


def length_args(spec_type: str, dialect: FlagDialect | None, n: int) -> list[str]:
    """Flags that cap drafts at `n` tokens; the minimum is lowered to `n` when its default would exceed it
    (or is not known), because a minimum above the maximum is contradictory."""
    flags = method_flags(spec_type, dialect.generation if dialect is not None else "new")
    args = [flags.draft_max, str(n)]
    if flags.draft_min is not None:
        default = dialect.default(flags.draft_min) if dialect is not None else None
        if default is None or not default.isdigit() or int(default) > n:
            args += [flags.draft_min, str(n)]
    return args


def effective_params(argv: list[str] | tuple[str, ...], dialect: FlagDialect | None) -> dict[str, str]:
    """What the drafter ran with: every knob of its --spec-type, as set in `argv` or else the engine's default.

    Keys are the flags; values are text as llama-server prints them. Empty when speculation is off."""
    if "--spec-type" in argv:
        wanted = argv[argv.index("--spec-type") + 1]
    elif any(a in argv for a in ("-md", "--model-draft", "--spec-draft-model")):
        wanted = "draft-simple"
    else:
        return {}
    flags = method_flags(wanted, dialect.generation if dialect is not None else "new")
    out: dict[str, str] = {}
    for flag in (flags.draft_max, flags.draft_min, *flags.extra):
        if flag is None:
            continue
        if flag in argv and argv.index(flag) + 1 < len(argv):
            out[flag] = argv[argv.index(flag) + 1]
        elif dialect is not None and (default := dialect.default(flag)) is not None:
            out[flag] = default
    return out


def draft_cap(params: Mapping[str, str], spec_type: str, generation: Generation) -> int | None:
    """The longest draft the drafter may make (γ), from its effective parameters."""
    value = params.get(method_flags(spec_type, generation).draft_max)
    return int(value) if value is not None and value.isdigit() else None


class UnsupportedSpec(Exception):
    """The requested speculation cannot be written for this llama-server build; the message says why."""


@dataclass(frozen=True, slots=True)
class DraftPlacement:
    """Where a draft model runs and what its KV cache holds; None leaves a knob at the engine's choice."""

    gpu_layers: str | None = None         # -ngld: a layer count, "all" or "auto"
    device: str | None = None             # -devd: the device for the draft, e.g. CUDA1
    ctx: int | None = None                # -cd: draft context per slot, in tokens (old builds only)
    cache_type_k: str | None = None       # -ctkd: KV cache type for K, e.g. q8_0
    cache_type_v: str | None = None       # -ctvd


# The short spelling of each placement knob: both flag generations list these aliases (engine-facts.md §1.6).
PLACEMENT_FLAGS = {"gpu_layers": "-ngld", "device": "-devd", "ctx": "-cd", "cache_type_k": "-ctkd",
                   "cache_type_v": "-ctvd"}


def placement_args(placement: DraftPlacement) -> list[str]:
    """The flags of the knobs `placement` sets, in a fixed order."""
    args: list[str] = []
    for name, flag in PLACEMENT_FLAGS.items():
        value = getattr(placement, name)
        if value is not None:
            args += [flag, str(value)]
    return args


def lists_flag(dialect: FlagDialect | None, name: str) -> bool:
    """True when this binary's --help lists the flag of placement knob `name` (an unknown list: False)."""
    return dialect is not None and PLACEMENT_FLAGS[name] in dialect.flags


@dataclass(frozen=True, slots=True)
class SpecSettings:
    """What to speculate with: a method (a --spec-type or a family name), its draft model and lengths."""

    method: str
    draft_model: str | None = None
    draft_max: int | None = None          # None keeps the engine's own default length
    p_min: float | None = None            # draft models only; None keeps the engine default
    n_match: int | None = None            # ngram-mod only: lookup length in tokens; None keeps the engine default
    # Benchmarking only (the tuner's cost surface): the engine fakes acceptance to this mean length, so its
    # output is not valid text. Never part of a recommendation.
    synth_len: float | None = None
    placement: DraftPlacement | None = None  # draft models only; None keeps the engine's placement


def spec_type(method: str) -> str:
    """The --spec-type for a method name: n-gram types as they are, families as their draft-* type."""
    family = methods.family(method)
    return method if family == "ngram" else _TYPE_OF_FAMILY.get(family, "draft-simple")


def spec_args(settings: SpecSettings, dialect: FlagDialect | None) -> list[str]:
    """The speculative flags for `settings` in `dialect` (None: assume a current build)."""
    generation = dialect.generation if dialect is not None else "new"
    if generation == "unknown":
        raise UnsupportedSpec("the llama-server flag dialect is unknown; run spec-advisor against it to get "
                              "exact flags")
    family, wanted = methods.family(settings.method), spec_type(settings.method)
    if generation == "old" and wanted not in SPEC_TYPES_OLD and wanted != "draft-simple":
        raise UnsupportedSpec(f"this llama-server does not support --spec-type {wanted}: the build predates it; "
                              "update llama.cpp to use it")
    known = SPEC_TYPES_NEW if generation == "new" else SPEC_TYPES_OLD
    # Old builds enable a plain draft model via -md alone and only know n-gram types for --spec-type.
    via_draft_model_only = generation == "old" and wanted == "draft-simple"
    if not via_draft_model_only and wanted not in known:
        raise UnsupportedSpec(f"{wanted} is not a llama.cpp --spec-type; measure one of its n-gram types "
                              "(e.g. ngram-mod)")
    listed = dialect.spec_types if dialect is not None else ()
    if not via_draft_model_only and listed and wanted not in listed:
        raise UnsupportedSpec(f"this llama-server does not support --spec-type {wanted} (supported: "
                              f"{', '.join(listed)})")
    if generation == "old" and not via_draft_model_only and not listed:
        # pre-refactor builds only gained --spec-type late; without it listed in --help it may be unknown
        raise UnsupportedSpec("this build's --help lists no --spec-type values; check `llama-server --help` "
                              "or update")
    argv = [] if via_draft_model_only else ["--spec-type", wanted]
    if family in ("draft", "eagle3", "dflash", "dspark"):
        flag = (dialect.draft_model_flag if dialect is not None else None) or "-md"
        argv += [flag, settings.draft_model or DRAFT_PLACEHOLDER]
        if settings.placement is not None:
            argv += placement_args(settings.placement)
    if settings.draft_max is not None:
        argv += length_args(wanted, dialect, settings.draft_max)
    if settings.n_match is not None and wanted == "ngram-mod":
        if generation == "old":
            raise UnsupportedSpec("this llama-server predates --spec-ngram-mod-n-match (pre-refactor builds share "
                                  "one n-gram size); update llama.cpp to set ngram-mod's lookup length")
        argv += [NGRAM_MOD_N_MATCH, str(settings.n_match)]
    if settings.p_min is not None and family == "draft":
        flag = (dialect.p_min_flag if dialect is not None else None) or (
            "--spec-draft-p-min" if generation == "new" else "--draft-p-min")
        argv += [flag, f"{settings.p_min:g}"]
    if settings.synth_len is not None:
        argv += ["--spec-synth-len", f"{settings.synth_len:g}"]
    if dialect is not None and not all(dialect.knows(a) for a in argv if a.startswith("-")):
        missing = [a for a in argv if a.startswith("-") and not dialect.knows(a)]
        raise UnsupportedSpec(f"this llama-server does not accept {', '.join(missing)}")
    if bad := unknown_flags(argv, generation):
        raise UnsupportedSpec(f"this llama.cpp build ({generation} flags) does not accept {', '.join(bad)}")
    return argv


def dialect_from_facts(facts: Mapping[str, object]) -> FlagDialect:
    """The flag dialect as `decide --facts` describes it (no flag list: every listed type is trusted)."""
    def text(name: str) -> str | None:
        v = facts.get(name)
        return v if isinstance(v, str) and v else None

    generation = text("engine.flag_generation") or "unknown"
    types = tuple(t.strip() for t in (text("engine.spec_types") or "").split(",") if t.strip())
    return FlagDialect(
        generation=generation if generation in ("new", "old") else "unknown",  # type: ignore[arg-type]
        spec_types=types, draft_max_flag=text("engine.draft_max_flag"),
        draft_model_flag=text("engine.draft_model_flag"), p_min_flag=text("engine.p_min_flag"),
        has_spec_synth=False, has_metrics_flag=False)


def recommended_args(facts: Mapping[str, object], default_draft_max: int | None, notes: list[str]) -> tuple[str, ...]:
    """The flags to recommend: the user's own options (`spec.server_args`) then the measured ON arm's
    speculative flags (`spec.argv`), else flags built from the dialect facts."""
    own = facts.get("spec.server_args")
    theirs = tuple(shlex.split(own)) if isinstance(own, str) and own else ()
    measured = facts.get("spec.argv")
    if isinstance(measured, str) and measured:
        return theirs + tuple(shlex.split(measured))
    method = str(facts.get("spec.method") or "")
    draft_max = facts.get("spec.draft_max")
    p_min = facts.get("spec.draft_p_min")
    model = facts.get("spec.draft_model")
    n_match = facts.get("spec.ngram_mod_n_match")
    settings = SpecSettings(
        method=method, draft_model=model if isinstance(model, str) and model else None,
        draft_max=draft_max if isinstance(draft_max, int) and draft_max > 0 else default_draft_max,
        p_min=float(p_min) if isinstance(p_min, int | float) and not isinstance(p_min, bool) else None,
        n_match=n_match if isinstance(n_match, int) and not isinstance(n_match, bool) and n_match > 0 else None)
    dialect = dialect_from_facts(facts)
    if dialect.generation == "unknown":
        # `decide --facts` without the build's flags: write the current dialect, and say so
        dialect = replace(dialect, generation="new")
        notes.append(CURRENT_DIALECT_NOTE)
    stated = dialect.draft_max_flag
    if dialect.generation == "new" and stated and stated != "--spec-draft-n-max":
        notes.append(f"not emitted: this llama.cpp build (new flags) does not accept {stated}")
        return ()
    try:
        argv = spec_args(settings, dialect)
    except UnsupportedSpec as exc:
        notes.append(str(exc))
        return ()
    family = methods.family(method)
    if family in ("draft", "eagle3") and settings.draft_model is None:
        notes.append(f"replace {DRAFT_PLACEHOLDER} with the draft model you measured")
    if dialect.generation == "new" and family == "draft":
        notes.append("in current llama.cpp -md alone does not turn speculation on; keep --spec-type draft-simple")
    return theirs + tuple(argv)


def parallel_notes(cut: ParallelCutoff, measured_k: int) -> list[str]:
    """The concurrency cutoff for llama.cpp, which drafts one length per server and cannot switch by batch."""
    notes = list(cut.notes)
    if cut.max_parallel is not None:
        off = cut.max_parallel + 1
        notes.append(f"on for up to {cut.max_parallel} simultaneous request(s), off at {off} or more: give this "
                     f"speculating server {PARALLEL_FLAG} {cut.max_parallel} (further requests wait in line) and "
                     "serve more users from a server without speculation")
    if cut.k != measured_k and cut.k > 0:
        notes.append(f"llama.cpp drafts one length per server: the schedule prefers {cut.k} at your concurrency; "
                     f"the flags above keep the measured {measured_k}")
    return notes
