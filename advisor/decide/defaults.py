"""The engine's defaults in place of the tuner's choice when the choice measured slower than them (issue 26).

After the A/B, a full check with the tuner measures the chosen settings against the engine's own defaults for
the method on the same held-out prompts (advisor/steps/ab_default.py → `ab.vs_default_*`: the defaults'
ms/token ÷ the choice's, so below 1 the choice is the slower). When that interval lies wholly below 1× the
choice is slower beyond noise, and the flags recommended are the defaults' (after the user's own options, as
for the choice); an interval that includes 1× keeps the choice. No threshold of its own: the interval is at
the A/B's level (policy.ab.ci_level) and 1× is break-even.

Light on imports: `decide --facts` and the headline (advisor/report/headline.py) use it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from advisor.decide.invariants import BREAK_EVEN
from advisor.numbers import finite
from advisor.text import percent
from advisor.text.message import Message, msg


@dataclass(frozen=True, slots=True)
class DefaultsInstead:
    """The defaults recommended instead of the choice: the comparison that says so, and the speedup expected
    with them against speculation off (chained, not measured: `chained`)."""

    chosen_argv: str    # the choice's speculative flags (spec.argv), shell-quoted
    default_argv: str   # the defaults' (ab.vs_default_argv)
    ratio: float        # the choice against the defaults (ab.vs_default_speedup), ×
    ratio_low: float    # its interval's bounds, both below 1
    ratio_high: float
    speedup: float | None = None  # the defaults against speculation off, chained (None without an A/B speedup)
    low: float | None = None      # its range from the two intervals' bounds (None without both)
    high: float | None = None
    level: float | None = None    # the level of each interval chained (the A/B's), a fraction

    def facts(self, facts: Mapping[str, object]) -> dict[str, object]:
        """`facts` with the defaults as the measured ON arm's flags, so the recommendation writes them."""
        return {**facts, "spec.argv": self.default_argv}

    def reason(self) -> Message:
        """Why the defaults are recommended, as a message (both languages)."""
        level = percent(self.level) if self.level is not None else "—"
        return msg("choice.defaults_instead", chosen=self.chosen_argv, defaults=self.default_argv,
                   ratio=self.ratio, low=self.ratio_low, high=self.ratio_high, level=level)


def _text(facts: Mapping[str, object], name: str) -> str:
    value = facts.get(name)
    return value.strip() if isinstance(value, str) else ""


def defaults_instead(facts: Mapping[str, object], level: float | None = None) -> DefaultsInstead | None:
    """The defaults to recommend instead of the choice, when the comparison's interval lies wholly below 1×;
    None when it includes 1×, is missing, or the engine's flags are not the measured ones (only llama.cpp's
    recommendation is the measured ON arm's `spec.argv`). `level`: the interval's level when the facts do not
    name the A/B's (`ab.ci_level`)."""
    if (_text(facts, "engine.kind") or "llama.cpp") != "llama.cpp":
        return None
    chosen, default = _text(facts, "spec.argv"), _text(facts, "ab.vs_default_argv")
    ratio = finite(facts.get("ab.vs_default_speedup"))
    low, high = finite(facts.get("ab.vs_default_ci_low")), finite(facts.get("ab.vs_default_ci_high"))
    if not chosen or not default or chosen == default or ratio is None or low is None or high is None:
        return None
    if not 0.0 < low <= high < BREAK_EVEN or ratio <= 0.0:
        return None
    # A chained estimate, not a measurement: no A/B ran the defaults against speculation off. The A/B measured
    # the choice against off (off ms/token ÷ the choice's) and the comparison the choice against the defaults
    # (the defaults' ÷ the choice's), on the same prompts but in pairs of their own; their ratio is the defaults
    # against off. Its range pairs the two intervals' opposite ends, so it covers the chained ratio whenever both
    # intervals cover theirs: at least 1 − 2 × (1 − level) of the time (Bonferroni; ≥ 90% for two 95% intervals).
    ab, ab_low, ab_high = (finite(facts.get(k)) for k in ("ab.speedup", "ab.ci_low", "ab.ci_high"))
    speedup = ab / ratio if ab is not None else None
    bounds = (ab_low / high, ab_high / low) if ab_low is not None and ab_high is not None else (None, None)
    return DefaultsInstead(chosen_argv=chosen, default_argv=default, ratio=ratio, ratio_low=low, ratio_high=high,
                           speedup=speedup, low=bounds[0], high=bounds[1],
                           level=finite(facts.get("ab.ci_level")) or level)
