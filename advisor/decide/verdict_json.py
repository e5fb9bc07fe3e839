"""A saved verdict (verdict.json, the history's verdict column, a `--json` answer) read back as the typed
`Verdict`, and the verdict with its facts as the run folder saves it.

The file is untrusted (hand-edited, an older release, another program): every value is checked, whatever
does not fit is left out, and an unknown verdict word fails closed to INCONCLUSIVE with a warning saying so.
`verdict_to_json(verdict_from_json(j)) == j` for every file `verdict_to_json` wrote
(tests/advisor/decide/test_verdict_json.py).
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Mapping
from typing import cast, get_args

from advisor.decide.blocking import Blocking
from advisor.decide.defaults import DefaultsInstead
from advisor.decide.evaluate import Check, Outcome
from advisor.decide.rules import VerdictName
from advisor.decide.verdict import TEXT_KEYS, Verdict, verdict_to_json
from advisor.numbers import finite
from advisor.perf.interval import Claim, PredictiveInterval, Unknown
from advisor.recommend.types import Recommendation

VERDICTS: tuple[VerdictName, ...] = get_args(VerdictName)


def saved_verdict(verdict: Verdict, facts: Mapping[str, object]) -> dict[str, object]:
    """verdict.json: the verdict's JSON keys, then the facts it was decided from."""
    return {**verdict_to_json(verdict), "facts": dict(facts)}


def saved_facts(data: object) -> dict[str, object]:
    """The facts a saved verdict carries (empty when it has none)."""
    facts = data.get("facts") if isinstance(data, Mapping) else None
    return {str(k): v for k, v in facts.items()} if isinstance(facts, Mapping) else {}


def _strings(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    return tuple(str(v) for v in value) if isinstance(value, list | tuple) else ()


def _text(value: object) -> str:
    return "" if value is None else str(value)


def _flags(value: object) -> Recommendation | None:
    """One recommendation: an object (argv, or a command line), a bare command line, or the first of a list."""
    if isinstance(value, list | tuple):
        found = [f for f in (_flags(v) for v in value) if f is not None]
        return found[0] if found else None
    if isinstance(value, str):
        value = {"command": value}
    if not isinstance(value, Mapping):
        return None
    argv = _strings(value.get("argv")) if isinstance(value.get("argv"), list | tuple) else ()
    if not argv and isinstance(command := value.get("command"), str) and command.strip():
        try:
            argv = tuple(shlex.split(command))
        except ValueError:  # an unbalanced quote: the line as one argument rather than nothing
            argv = (command,)
    rec = Recommendation(engine=_text(value.get("engine")), argv=argv, steps=_strings(value.get("steps")),
                         notes=_strings(value.get("notes")))
    return rec if rec.argv or rec.steps or rec.notes else None


def _check(row: Mapping[str, object]) -> Check:
    raw = row.get("passed")
    passed = raw if isinstance(raw, bool) else None
    outcome = row.get("outcome")
    if outcome not in get_args(Outcome):  # rows from older verdicts carry only `passed`
        outcome = "holds" if passed is True else "clear" if passed is False else "unknown"
    return Check(rule=_text(row.get("rule")), branch=_text(row.get("branch")), fact=_text(row.get("fact")),
                 op=_text(row.get("op")), expected=row.get("expected"), actual=row.get("actual"), passed=passed,
                 outcome=cast(Outcome, outcome), leads_to=_text(row.get("leads_to")))


def _blocking(item: Mapping[str, object]) -> Blocking:
    return Blocking(*(_text(item.get(k)) for k in ("code", "reason", "remedy", "reason_zh", "remedy_zh")))


def _interval(data: Mapping[str, object], predicted: float | None) -> PredictiveInterval | None:
    low, high, level = (finite(data.get(k)) for k in ("predicted_speedup_low", "predicted_speedup_high",
                                                    "prediction_level"))
    claim = data.get("prediction_claim")
    if predicted is None or low is None or high is None or level is None or claim not in get_args(Claim):
        return None
    unknowns = tuple(cast(Unknown, u) for u in _strings(data.get("prediction_unknowns")) if u in get_args(Unknown))
    first = data.get("measure_first")
    # sigma is not saved: the bounds are what every reader uses
    return PredictiveInterval(speedup=predicted, low=low, high=high, level=level, sigma=math.nan,
                              unknowns=unknowns, claim=cast(Claim, claim),
                              measure_first=first if isinstance(first, str) else None)


def _defaults_instead(value: object) -> DefaultsInstead | None:
    """The defaults recommended instead of the choice, when the file says so with every figure it needs."""
    if not isinstance(value, Mapping):
        return None
    chosen, default = value.get("chosen_argv"), value.get("default_argv")
    ratio, low, high = (finite(value.get(k)) for k in ("ratio", "ratio_low", "ratio_high"))
    if not isinstance(chosen, str) or not isinstance(default, str) or ratio is None or low is None or high is None:
        return None
    return DefaultsInstead(chosen_argv=chosen, default_argv=default, ratio=ratio, ratio_low=low, ratio_high=high,
                           speedup=finite(value.get("speedup")), low=finite(value.get("low")),
                           high=finite(value.get("high")), level=finite(value.get("level")))


def verdict_from_json(data: object) -> Verdict:
    """The typed verdict of a saved verdict object; never raises (a non-object reads as an empty INCONCLUSIVE)."""
    obj: Mapping[str, object] = data if isinstance(data, Mapping) else {}
    raw = obj.get("verdict")
    word = str(raw or "").upper()
    warnings = _strings(obj.get("warnings"))
    verdict: VerdictName = "INCONCLUSIVE"
    if word in VERDICTS:
        verdict = cast(VerdictName, word)
    else:
        warnings += (f"unrecognised verdict {raw!r}; shown as INCONCLUSIVE",)
    decided_by = obj.get("decided_by")
    rule_id, _, branch_id = decided_by.partition("/") if isinstance(decided_by, str) else ("", "", "")
    predicted = finite(obj.get("predicted_speedup"))
    trace = obj.get("trace")
    blocking = obj.get("blocking")
    measured_with = obj.get("measured_with")
    return Verdict(
        verdict=verdict, because=_strings(obj.get("because")),
        trace=tuple(_check(r) for r in trace if isinstance(r, Mapping)) if isinstance(trace, list | tuple) else (),
        missing_facts=_strings(obj.get("missing_facts")), predicted_speedup=predicted,
        prediction_is_prior=bool(obj.get("prediction_is_prior")), flags=_flags(obj.get("flags")),
        alternatives=_strings(obj.get("alternatives")), warnings=warnings, rule_id=rule_id, branch_id=branch_id,
        path=_strings(obj.get("path")), measured_with=measured_with if isinstance(measured_with, str) else None,
        caveats=_strings(obj.get("caveats")),
        # the Chinese lists as verdict_to_json writes them (`because_zh`, …); an older file may lack some
        translations={"zh": {key: _strings(obj.get(f"{key}_zh")) for key in TEXT_KEYS if obj.get(f"{key}_zh")}},
        blocking=tuple(_blocking(b) for b in blocking if isinstance(b, Mapping))
        if isinstance(blocking, list | tuple) else (),
        try_flags=_flags(obj.get("try_flags")), assumptions=_strings(obj.get("assumptions")),
        prediction_interval=_interval(obj, predicted), defaults_instead=_defaults_instead(obj.get("defaults_instead")))
