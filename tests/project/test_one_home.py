"""One home for every verdict-shaping number: rules/ holds them, the shipped code holds no copy.

The scan reads number tokens (not comments or strings) of every module under advisor/, probes/ and ui/.
A policy value written as a literal elsewhere would not move when a user overrides the policy, which is
the defect this guards against (a copied 1.10 in the canary chart, a copied 1.02 margin in the A/B chart).
"""

from __future__ import annotations

import io
import tokenize
from pathlib import Path

import pytest

from advisor.core.policy import default_policy, flat_values
from tests.paths import REPO

SHIPPED = ("advisor", "probes", "ui")
# Values that are policy numbers wherever they appear in code.
ALWAYS = {1.1: "canary.max_repeat_inflation", 1.02: "ab.min_speedup", 2.35: "ab.boundary"}
# Values that are policy numbers when the line talks about what the policy governs.
IN_CONTEXT = {
    0.02: ("margin", "delta", "δ", "min_speedup"),
    0.5: ("mbu", "memory_bound", "load_per_core", "low_rate", "acceptance", "rate <"),
    10.0: ("cv_pct", "cv_off"),
    20: ("min_pairs",),
    1.5: ("mismatch",),
}


def _numbers(path: Path) -> list[tuple[int, float, str]]:
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.NUMBER:
            try:
                value = float(tok.string.replace("_", ""))
            except ValueError:
                continue
            out.append((tok.start[0], value, lines[tok.start[0] - 1].lower()))
    return out


def _modules() -> list[Path]:
    return sorted(p for pkg in SHIPPED for p in (REPO / pkg).rglob("*.py"))


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(REPO)))
def test_no_policy_literal_outside_rules(path: Path) -> None:
    copies = []
    for line_no, value, line in _numbers(path):
        if value in ALWAYS:
            copies.append(f"line {line_no}: {value} (policy {ALWAYS[value]})")
        elif value in IN_CONTEXT and any(word in line for word in IN_CONTEXT[value]):
            copies.append(f"line {line_no}: {value} next to {IN_CONTEXT[value]}")
    assert not copies, f"{path.name} copies policy numbers; read them from the loaded rule set: {copies}"


def test_the_scanned_values_are_the_policys() -> None:
    values = flat_values(default_policy())
    for value, name in ALWAYS.items():
        assert values[name] == pytest.approx(value), name


def test_the_scan_sees_a_copy(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("MARGIN = 1.02\nMEMORY_BOUND_MBU = 0.5  # a copy\nx = 0.5 * y\n", encoding="utf-8")
    found = [(n, v) for n, v, line in _numbers(bad)
             if v in ALWAYS or (v in IN_CONTEXT and any(w in line for w in IN_CONTEXT[v]))]
    assert found == [(1, 1.02), (2, 0.5)]


# An interval's level written into a sentence ("95% CI", "95% 置信区间") would not move when the policy's level does:
# sentences name it with a placeholder ({ci}, {batch_ci}, {acc_ci} in advisor/text; {policy.ab.ci_level:.0%} in rule
# texts), filled from the run's own level or the policy.
LEVEL_IN_WORDS = __import__("re").compile(r"\d+(\.\d+)?\s*%\s*(CI|CIs|confidence|置信)")


def _string_tokens(path: Path) -> list[tuple[int, str]]:
    text = path.read_text(encoding="utf-8")
    return [(tok.start[0], tok.string) for tok in tokenize.generate_tokens(io.StringIO(text).readline)
            if tok.type == tokenize.STRING or getattr(tokenize, "FSTRING_MIDDLE", -1) == tok.type]


@pytest.mark.parametrize("path", [p for pkg in SHIPPED for p in sorted((REPO / pkg).rglob("*.py"))],
                         ids=lambda p: str(p.relative_to(REPO)))
def test_no_interval_level_written_into_a_string(path: Path) -> None:
    bad = [f"{path.name}:{line}: {s[:80]}" for line, s in _string_tokens(path) if LEVEL_IN_WORDS.search(s)
           and not s.lstrip("rbuf").startswith(('"""', "'''"))]  # docstrings describe, they are not said
    assert not bad, "a level written as a number: " + "; ".join(bad)


def test_no_interval_level_written_into_a_rule_text() -> None:
    import tomllib

    def texts(node: object) -> list[str]:
        if isinstance(node, dict):
            return [t for k, v in node.items() for t in (texts(v) if not isinstance(v, str) else
                                                          [v] if k.startswith(("because", "text", "warning")) else [])]
        if isinstance(node, list):
            return [t for v in node for t in texts(v)]
        return []

    bad = [f"{p.name}: {t[:80]}" for p in sorted((REPO / "rules").glob("*.toml"))
           for t in texts(tomllib.loads(p.read_text(encoding="utf-8"))) if LEVEL_IN_WORDS.search(t)]
    assert not bad, "; ".join(bad)


def test_the_level_scan_sees_a_copy() -> None:
    assert LEVEL_IN_WORDS.search("Measured 1.3× (95% CI 1.2–1.4)") and LEVEL_IN_WORDS.search("95% 置信区间")
    assert not LEVEL_IN_WORDS.search("{ci} CI 1.2–1.4") and not LEVEL_IN_WORDS.search("30% of replies")
