"""The numbers and values in rule files, checked at load time: a threshold is a finite value of the type of the
fact it is compared with, inside that fact's range.

Why: a threshold written as a string ends a check in a TypeError at evaluation, and `nan` compares false with
everything, so `["ab.ci_low", "<", nan]` never holds and a guard silently passes (an INCONCLUSIVE became an
ENABLE). Every problem is a `RuleError` naming the file, the rule/branch and the threshold.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from advisor.facts.checks import FRACTION_UNIT, SIGNED_FACTS
from advisor.facts.specs import CHOICES, FACT_SPECS


def threshold_problem(value: object) -> str | None:
    """Why `value` cannot be a threshold at all (a table entry), or None: a finite number, a bool or a string."""
    if isinstance(value, bool | str):
        return None
    if isinstance(value, int | float):
        return None if math.isfinite(value) else f"{value!r} is not a finite number"
    return f"{type(value).__name__} {value!r} is not a number, true/false or a string"


def operand_problem(fact: str, op: str, value: object) -> str | None:
    """Why `value` (already resolved: a literal, a threshold's or a policy's value) cannot stand on the right of
    `fact op …`, or None."""
    spec = FACT_SPECS[fact]
    if spec.type in ("int", "float"):
        if isinstance(value, bool) or not isinstance(value, int | float):
            return f"'{fact}' is a number, so it cannot be compared with {value!r}"
        if not math.isfinite(value):
            return f"{value!r} is not a finite number (NaN compares false with everything: the check could never hold)"
        if spec.unit == FRACTION_UNIT and not 0.0 <= value <= 1.0:
            return f"'{fact}' is a fraction 0..1, so {value!r} is outside its range"
        if value < 0 and fact not in SIGNED_FACTS:
            return f"'{fact}' cannot be negative, so {value!r} is outside its range"
        return None
    if spec.type == "bool":
        return None if isinstance(value, bool) else f"'{fact}' is true/false, so it cannot be compared with {value!r}"
    if not isinstance(value, str):
        return f"'{fact}' is text, so it cannot be compared with {value!r}"
    choices = CHOICES.get(fact)
    if choices is not None and value not in choices:
        return f"'{fact}' can only be one of {', '.join(choices)}, never {value!r}"
    return None


def condition_problem(fact: str, op: str, value: object, resolve: Callable[[str], object]) -> str | None:
    """Why the condition's value cannot be compared with its fact, or None. `$name` values are resolved with
    `resolve`; `@fact` values must name a fact of the same kind."""
    values = value if isinstance(value, list) else [value]
    resolved: list[object] = []
    for v in values:
        if isinstance(v, str) and v.startswith("@"):
            other = FACT_SPECS[v[1:]].type
            mine = FACT_SPECS[fact].type
            if (other in ("int", "float")) != (mine in ("int", "float")) or (other == "bool") != (mine == "bool"):
                return f"'{fact}' ({mine}) cannot be compared with fact '{v[1:]}' ({other})"
            continue
        shown = v
        if isinstance(v, str) and v.startswith("$"):
            shown = resolve(v[1:])
        problem = operand_problem(fact, op, shown)
        if problem is not None:
            return problem + (f" (threshold {v} = {shown!r})" if shown is not v else "")
        resolved.append(shown)
    if op == "between" and len(resolved) == 2 and resolved[0] > resolved[1]:  # type: ignore[operator]
        return f"'between' needs [low, high] with low ≤ high, got {resolved!r}"
    return None
