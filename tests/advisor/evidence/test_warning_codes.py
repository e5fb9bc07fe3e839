"""Warning codes: every code a reader looks for is one a step can emit, and every guard maps to a code.

The first release's facts looked for `order-interaction` while the A/B emitted `guard-order-interaction`,
and for `trap` and `repeat-inflation`, which nothing emitted: the trap flag could never be raised by them.
With one Enum, readers name members; this test checks the members they name are reachable from emitters.
"""

from __future__ import annotations

import ast

from advisor.ab.decision import decide_ab
from advisor.ab.simulation import Scenario, to_pairs
from advisor.core.policy import default_policy
from advisor.evidence.warnings import THROTTLE_CODES, TRAP_CODES, WarningCode
from tests.paths import REPO

PREFLIGHT_GUARDS = ("gpu", "gpu0-other-processes", "gpu0-throttle", "gpu0-vram-free", "host-load", "power",
                    "spec-off", "spec-on")


def _ab_guard_names() -> set[str]:
    off, on, first = Scenario("any", g=1.1).generate(1, 20, 1)
    decision = decide_ab(to_pairs(off[0], on[0], first[0]), default_policy().ab)
    return set(decision.guards) | {"statistics"}  # `statistics` is the fail-closed guard


def _explicit_codes() -> set[WarningCode]:
    """`WarningCode.X` named in the steps' source (the codes they emit directly)."""
    names: set[str] = set()
    for path in (REPO / "advisor" / "steps").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "WarningCode":
                names.add(node.attr)
    return {WarningCode[n] for n in names if n in WarningCode.__members__}


def test_every_guard_has_a_code() -> None:
    for name in (*_ab_guard_names(), *PREFLIGHT_GUARDS):
        assert isinstance(WarningCode.for_guard(name), WarningCode), name


def test_codes_readers_look_for_are_emitted() -> None:
    emitted = _explicit_codes() | {WarningCode.for_guard(n) for n in (*_ab_guard_names(), *PREFLIGHT_GUARDS)}
    assert emitted >= TRAP_CODES, TRAP_CODES - emitted
    assert emitted >= THROTTLE_CODES, THROTTLE_CODES - emitted
    assert WarningCode.AB_ORDER_INTERACTION in emitted  # the one the first release missed


def test_schema_1_gpu_codes_load() -> None:
    assert WarningCode.for_guard("gpu0-throttle") is WarningCode.GUARD_GPU_THROTTLE
    assert WarningCode.for_guard("gpu12-vram-free") is WarningCode.GUARD_GPU_VRAM_FREE
