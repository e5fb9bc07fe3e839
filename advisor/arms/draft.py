"""A draft model next to the target, worked out before the ON server starts.

Three things: llama.cpp's tokenizer pairing checks (an incompatible pair is refused before any server starts;
llama-server itself only logs the refusal after loading both models and then serves with speculation off, so
the ON arm would silently measure no speculation); the VRAM the draft needs, weights plus its KV
cache, against what NVML reports free with the target loaded; and where it runs, as the -ngld/-devd/-cd/
-ctkd/-ctvd flags the installed llama-server lists (advisor/recommend/llamacpp.py writes them).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from advisor.config import CheckConfig
from advisor.core.policy import default_policy
from advisor.errors import UserError
from advisor.evidence.draft import CpuReason, DraftSetup
from advisor.recommend.llamacpp import PLACEMENT_FLAGS, DraftPlacement, lists_flag, placement_args
from advisor.text import text
from probes.base import Unavailable
from probes.engines.llamacpp.binary import FlagDialect
from probes.gpu.probe import GpuReport
from probes.model.gguf_header import GgufFormatError, read_gguf_header
from probes.model.kv_cache import CACHE_TYPES, DEFAULT_CACHE_TYPE, kv_cache_bytes, kv_shape
from probes.model.tokenizer_pair import Mismatch, TokenizerPair, check_pair

GIB = 2**30


def _shown(value: object) -> str:
    if isinstance(value, str):
        return repr(value if len(value) <= 24 else value[:21] + "…")  # token texts may hold newlines
    return str(value)


def mismatch_text(m: Mismatch, lang: str = "en") -> str:
    """One difference in words, e.g. "vocabulary sizes 49152 and 32000, more than 128 apart"."""
    return text(lang, f"draft.why.{m.code}", target=_shown(m.target), draft=_shown(m.draft), id=m.token_id)


def check_tokenizers(target: Path, draft: Path, lang: str = "en") -> TokenizerPair:
    """llama.cpp's pairing checks on the two GGUF headers; an incompatible pair is a one-line UserError.

    A pair that cannot be checked (the draft is a Hugging Face name or folder, not a GGUF) comes back with
    `compatible=None` and the reason in `detail`: the engine has the last word then.
    """
    pair = check_pair(target, draft)
    if pair.compatible is False:
        why = "; ".join(mismatch_text(m, lang) for m in pair.reasons)
        raise UserError(text(lang, "draft.incompatible", draft=draft.name, target=target.name, why=why),
                        hint=text(lang, "draft.incompatible_hint"))
    return pair


@dataclass(frozen=True, slots=True)
class DraftNeed:
    """What the draft takes in memory: weights and KV cache in bytes, for `ctx_tokens` cached tokens."""

    weight_bytes: int
    kv_bytes: int | None
    ctx_tokens: int
    n_layer: int | None

    @property
    def total_gib(self) -> float | None:
        """Weights plus KV cache in GiB (None when the KV shape is unknown)."""
        return None if self.kv_bytes is None else (self.weight_bytes + self.kv_bytes) / GIB


def draft_need(draft: Path, ctx_tokens: int, type_k: str = DEFAULT_CACHE_TYPE,
               type_v: str = DEFAULT_CACHE_TYPE) -> DraftNeed | None:
    """The draft's weights (its GGUF tensors) and KV cache (kv_cache_bytes); None when it is not a GGUF."""
    try:
        header = read_gguf_header(draft)
        shape = kv_shape(header.metadata)
    except (GgufFormatError, OSError):
        return None
    return DraftNeed(weight_bytes=sum(t.n_bytes for t in header.tensors),
                     kv_bytes=kv_cache_bytes(shape, ctx_tokens, type_k, type_v) if shape is not None else None,
                     ctx_tokens=ctx_tokens, n_layer=len(shape.kv_heads) if shape is not None else None)


def _free_cards(gpus: GpuReport | None) -> list[tuple[int, float]]:
    cards = gpus.gpus if gpus is not None else ()
    return [(c.index, c.vram_free_gib) for c in cards if not isinstance(c.vram_free_gib, Unavailable)]


def _all_layers(dialect: FlagDialect | None, n_layer: int | None) -> str | None:
    # Builds whose -ngld defaults to "auto" also take "all"; older ones want a count (layers + the output layer).
    if dialect is not None and dialect.default(PLACEMENT_FLAGS["gpu_layers"]) == "auto":
        return "all"
    return str(n_layer + 1) if n_layer is not None else None


def _same_order(gpus: GpuReport | None) -> bool:
    """Several GPUs that CUDA numbers as NVML does. llama.cpp names devices CUDA0, CUDA1, … in CUDA's order,
    fastest first, while NVML counts in PCI bus order; identical cards come out in bus order in both."""
    cards = gpus.gpus if gpus is not None else ()
    names = {c.name for c in cards}
    return len(cards) > 1 and len(names) == 1 and not any(isinstance(n, Unavailable) for n in names)


def _cpu_reason(config: CheckConfig, gpus: GpuReport | None, fits: bool | None) -> CpuReason | None:
    if gpus is not None and not gpus.gpus:
        return "no-gpu"
    if config.draft_gpu_layers == "0":
        return "cpu-layers"
    return "no-room" if fits is False else None


def _user_flags(config: CheckConfig, dialect: FlagDialect | None) -> None:
    """What the user asked for must be a flag this binary lists: refuse it now rather than at launch."""
    if config.draft_kv_type is not None and config.draft_kv_type not in CACHE_TYPES:
        raise UserError(f"unknown draft KV cache type {config.draft_kv_type!r}",
                        hint=f"one of {', '.join(CACHE_TYPES)}")
    asked = {"ctx": config.draft_ctx, "cache_type_k": config.draft_kv_type, "gpu_layers": config.draft_gpu_layers}
    for name, value in asked.items():
        if value is not None and dialect is not None and dialect.flags and not lists_flag(dialect, name):
            raise UserError(f"this llama-server does not list {PLACEMENT_FLAGS[name]} in its --help, so the draft "
                            "cannot be placed as asked", hint="drop the option, or use a build that has the flag")


def plan_draft(config: CheckConfig, draft: Path, *, gpus: GpuReport | None, dialect: FlagDialect | None,
               ctx_size: int, parallel: int, tokenizer: TokenizerPair | None = None,
               min_headroom_gib: float | None = None) -> tuple[DraftSetup, DraftPlacement]:
    """Budget the draft on the GPU with the most free VRAM (the target already loaded) and choose its flags.

    The draft's KV cache holds its per-slot context (`--draft-ctx`, else the target's) for every slot. It goes
    all on the GPU when it fits there with `min_headroom_gib` to spare (default policy.arms.draft_headroom_gib, the
    headroom below which the rule tree SKIPs a draft on the GPU), on that GPU by name when there are several, and
    stays on the CPU when it does not fit (-ngld 0: a half-offloaded draft would push target layers off the GPU).
    Flags the user did not ask for are written only when this llama-server's --help lists them.
    """
    _user_flags(config, dialect)
    kv_type = config.draft_kv_type or DEFAULT_CACHE_TYPE
    per_slot = config.draft_ctx or max(1, ctx_size // max(1, parallel))
    need = draft_need(draft, per_slot * max(1, parallel), kv_type, kv_type)
    cards = _free_cards(gpus)
    index, free = max(cards, key=lambda c: c[1]) if cards else (None, None)
    total = need.total_gib if need is not None else None
    headroom = free - total if free is not None and total is not None else None
    spare = min_headroom_gib if min_headroom_gib is not None else default_policy().arms.draft_headroom_gib
    fits = headroom >= spare if headroom is not None else None
    layers = config.draft_gpu_layers
    if layers is None and fits is not None and lists_flag(dialect, "gpu_layers"):
        layers = _all_layers(dialect, need.n_layer if need else None) if fits else "0"
    on_gpu = bool(fits) and layers != "0"
    device = f"CUDA{index}" if on_gpu and _same_order(gpus) and lists_flag(dialect, "device") else None
    placement = DraftPlacement(gpu_layers=layers, device=device, ctx=per_slot if lists_flag(dialect, "ctx") else None,
                               cache_type_k=config.draft_kv_type, cache_type_v=config.draft_kv_type)
    reason = _cpu_reason(config, gpus, fits)
    setup = DraftSetup(
        path=str(draft), tokenizer=tokenizer, weight_bytes=need.weight_bytes if need else None,
        kv_bytes=need.kv_bytes if need else None, ctx_tokens=need.ctx_tokens if need else None,
        cache_type_k=kv_type, cache_type_v=kv_type, gpu_index=index, vram_free_gib=free,
        headroom_gib=round(headroom, 3) if headroom is not None else None, on_cpu=reason is not None,
        cpu_reason=reason, args=tuple(placement_args(placement)))
    return setup, placement
