"""Speculative flags ↔ LLMKube's `spec.speculativeDecoding` block, and merge patches between two specs.

Recent LLMKube releases configure llama.cpp's speculation with `spec.speculativeDecoding` (`type` in
llama.cpp's own `--spec-type` spellings, `nDraftMax` → `--spec-draft-n-max`, `pMin` → `--spec-draft-p-min`,
`draftModelRef` → `-md` with the referenced Model's file); older ones only with `spec.extraArgs`. The block
is preferred where the cluster's CRD has it; flags the block cannot express stay in extraArgs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from advisor.deploy.base import DRAFT_MODEL_FLAGS
from advisor.recommend.dialect import strip_spec_args

DRAFT_MODEL_REF_PLACEHOLDER = "DRAFT-MODEL"   # a Model CR name the user replaces (the draft's own Model)
_TYPE = "--spec-type"
_N_MAX = frozenset({"--spec-draft-n-max", "--draft-max", "--draft-n-max", "--draft"})
_P_MIN = frozenset({"--spec-draft-p-min", "--draft-p-min"})
_OFF_TYPES = frozenset({"", "none", "disabled"})
SPEC_FIELDS = ("speculativeDecoding", "extraArgs")   # the only spec fields a cluster check ever changes


@dataclass(frozen=True, slots=True)
class SpecBlock:
    """The `spec.speculativeDecoding` block for a set of flags, and the flags it cannot hold."""

    block: dict[str, object] | None      # None: speculation off
    leftover: tuple[str, ...]         # speculative flags with no field in the block (they go to extraArgs)
    draft_model: str | None = None    # the -md path: it needs a Model CR (draftModelRef) in the cluster


def speculative_block(spec_argv: Sequence[str]) -> SpecBlock:
    """`--spec-type ngram-mod --spec-draft-n-max 8` → {"type": "ngram-mod", "nDraftMax": 8}."""
    block: dict[str, object] = {}
    leftover: list[str] = []
    draft: str | None = None
    args = list(spec_argv)
    i = 0
    while i < len(args):
        flag, value = args[i], args[i + 1] if i + 1 < len(args) else None
        if flag == _TYPE and value is not None:
            block["type"] = value
        elif flag in _N_MAX and value is not None and value.isdigit():
            block["nDraftMax"] = int(value)
        elif flag in _P_MIN and value is not None:
            block["pMin"] = float(value)
        elif flag in DRAFT_MODEL_FLAGS and value is not None:
            draft = value
            block["draftModelRef"] = DRAFT_MODEL_REF_PLACEHOLDER
        else:
            leftover.append(flag)
            if value is not None and not value.startswith("-"):
                leftover.append(value)
                i += 1
            i += 1
            continue
        i += 2
    if draft is not None:
        block.setdefault("type", "draft-simple")
    if not block or block.get("type", "") in _OFF_TYPES:
        return SpecBlock(None, tuple(leftover), draft)
    return SpecBlock({"type": block.pop("type"), **block}, tuple(leftover), draft)


def speculation_fields(spec_argv: Sequence[str], current_extra: Sequence[str] | None, *,
                       spec_field: bool, draft_model_ref: str | None = None) -> dict[str, object]:
    """The two speculation fields of a spec that runs `spec_argv` (empty: speculation off), the other
    extraArgs kept in their order: `speculativeDecoding` where the CRD has it, else everything in extraArgs."""
    kept, _removed = strip_spec_args(list(current_extra or []))
    if spec_field:
        parsed = speculative_block(spec_argv)
        block = parsed.block
        if block is not None and "draftModelRef" in block and draft_model_ref:
            block = {**block, "draftModelRef": draft_model_ref}
        extra = kept + list(parsed.leftover)
    else:
        block, extra = None, kept + list(spec_argv)
    return {"speculativeDecoding": block,
            "extraArgs": extra if extra or current_extra is not None else None}


def spec_is_on(spec: dict[str, object]) -> bool:
    """True when an InferenceService spec asks llama.cpp for speculation (the block or flags in extraArgs)."""
    block = spec.get("speculativeDecoding")
    kind = block.get("type") if isinstance(block, Mapping) else None
    if str(kind or "") not in _OFF_TYPES:
        return True
    extra = spec.get("extraArgs")
    _kept, removed = strip_spec_args([str(a) for a in extra] if isinstance(extra, list) else [])
    return bool(removed)


def merge_diff(current: object, target: object) -> object:
    """The JSON merge patch (RFC 7386) that turns `current` into `target`: keys `target` lacks become null."""
    if not isinstance(current, dict) or not isinstance(target, dict):
        return target
    patch: dict[str, object] = {}
    for key in current.keys() - target.keys():
        patch[key] = None
    for key, value in target.items():
        if key not in current:
            patch[key] = value
        elif current[key] != value:
            patch[key] = merge_diff(current[key], value) if value is not None else None
    return patch


def fields_of(spec: dict[str, object]) -> dict[str, object]:
    """The speculation fields of a spec as they are (None where absent)."""
    return {k: spec.get(k) for k in SPEC_FIELDS}


def with_fields(spec: dict[str, object], fields: dict[str, object]) -> dict[str, object]:
    """`spec` with the speculation fields replaced (None removes one)."""
    out = {k: v for k, v in spec.items() if k not in SPEC_FIELDS}
    out.update({k: v for k, v in fields.items() if v is not None})
    return out
