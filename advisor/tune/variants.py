"""Variants of the measured method's own knobs that the tuner probes beside other methods: ngram-mod's lookup
length (--spec-ngram-mod-n-match) and a draft model's --spec-draft-p-min.

Which values: the budget's lists (`Budget.tune_n_match`, `Budget.tune_p_min`, with their reasons), less the
engine's own default as its --help states it (step 2 already measured the default). A knob the binary does not
list is never probed, so every variant can be written in its dialect.
"""

from __future__ import annotations

from dataclasses import dataclass

from advisor import methods
from advisor.config import Budget
from advisor.recommend.llamacpp import NGRAM_MOD_N_MATCH, spec_type
from probes.engines.llamacpp.binary import FlagDialect


@dataclass(frozen=True, slots=True)
class Variant:
    """One setting of a knob, the rest at the engine's default (None: not set)."""

    n_match: int | None = None           # tokens
    p_min: float | None = None           # probability 0–1


@dataclass(frozen=True, slots=True)
class KnobDefaults:
    """The engine's own values of the knobs, from its --help (None: not stated or not a number)."""

    n_match: int | None = None
    p_min: float | None = None


def knob_defaults(dialect: FlagDialect | None) -> KnobDefaults:
    """What --help says the knobs default to."""
    if dialect is None:
        return KnobDefaults()
    n_match = dialect.default(NGRAM_MOD_N_MATCH)
    p_min = dialect.default(dialect.p_min_flag) if dialect.p_min_flag else None
    return KnobDefaults(n_match=int(n_match) if n_match is not None and n_match.isdigit() else None,
                        p_min=_float(p_min))


def variants(method: str, has_draft_model: bool, dialect: FlagDialect | None, budget: Budget) -> list[Variant]:
    """The knob settings worth a probe for `method` (the one step 2 measured) on this binary."""
    if dialect is None or dialect.generation != "new":
        return []  # pre-refactor builds have no per-type n-match flag; their p-min default differs (0.75)
    defaults = knob_defaults(dialect)
    out: list[Variant] = []
    if spec_type(method) == "ngram-mod" and not has_draft_model and dialect.knows(NGRAM_MOD_N_MATCH):
        out += [Variant(n_match=n) for n in dict.fromkeys(budget.tune_n_match) if n > 0 and n != defaults.n_match]
    if methods.family(method) == "draft" and has_draft_model and dialect.p_min_flag and dialect.knows(
            dialect.p_min_flag):
        out += [Variant(p_min=p) for p in dict.fromkeys(budget.tune_p_min)
                if 0.0 <= p <= 1.0 and (defaults.p_min is None or abs(p - defaults.p_min) > 1e-9)]
    return out


def _float(text: str | None) -> float | None:
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None
