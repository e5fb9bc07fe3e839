"""The layers inside `advisor/`: every import, at any depth, goes to the same layer or a lower one, and no
two packages import each other, however indirectly (issue 28 item 3).

A layer names what its packages are for; the order says who may know about whom. Measuring code (arms, steps)
and the session (run) sit below the report, so no measurement imports report prose: sentences come from the
catalogue (`advisor.text`) at the bottom. A new package must be given a layer here before its first import.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from tests.paths import REPO
from tests.project.test_boundaries import _cycles, _files, _imports, _module_name

ADVISOR = REPO / "advisor"

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (  # bottom first
    ("foundations", ("__init__", "atomic", "config", "errors", "lang", "methods", "numbers", "paths", "redact", "stats",
                     "termsafe", "userfile")),
    ("shared", ("core", "text", "workloads", "owned")),
    ("records", ("ab", "evidence", "events", "jsonout")),
    ("models", ("perf", "recommend", "deploy", "tune")),
    ("measuring", ("arms", "steps", "demo")),
    ("judging", ("facts", "decide")),
    ("remembering", ("history",)),  # past runs with their typed verdicts (advisor/decide/verdict_json.py)
    ("orchestrating", ("run", "cluster")),
    ("presenting", ("report",)),
    ("interface", ("cli", "__main__")),
)
LEVEL: dict[str, int] = {unit: i for i, (_, units) in enumerate(LAYERS) for unit in units}


def _unit(module: str) -> str | None:
    """The package (or top-level module) of `advisor` a dotted name belongs to; None outside advisor. A name
    that is neither (`from advisor import __version__`) is an attribute of the package's __init__."""
    parts = module.split(".")
    if parts[0] != "advisor":
        return None
    if len(parts) == 1 or not ((ADVISOR / parts[1]).is_dir() or (ADVISOR / f"{parts[1]}.py").is_file()):
        return "__init__"
    return parts[1]


def package_graph() -> dict[str, set[str]]:
    """advisor's packages and top-level modules → those they import (their own excluded)."""
    graph: dict[str, set[str]] = {}
    for path in _files("advisor"):
        unit = _unit(_module_name(path))
        assert unit is not None
        deps = graph.setdefault(unit, set())
        for name in _imports(path):
            target = _unit(name)
            if target is not None and target != unit:
                deps.add(target)
    return graph


def upward(graph: Mapping[str, set[str]]) -> list[str]:
    """Every import from a unit to one in a higher layer (or to a unit no layer names), in words."""
    bad = []
    for unit, deps in sorted(graph.items()):
        for dep in sorted(deps):
            if unit not in LEVEL or dep not in LEVEL:
                bad.append(f"{unit if unit not in LEVEL else dep} has no layer in tests/project/test_layers.py")
            elif LEVEL[dep] > LEVEL[unit]:
                bad.append(f"{unit} ({LAYERS[LEVEL[unit]][0]}) imports {dep} ({LAYERS[LEVEL[dep]][0]}), a higher layer")
    return bad


def test_every_import_goes_down_or_sideways() -> None:
    bad = upward(package_graph())
    assert not bad, "\n".join(bad)


def test_no_package_level_cycles() -> None:
    cycles = _cycles(package_graph())
    assert not cycles, "package cycles: " + "; ".join(" ↔ ".join(c) for c in cycles)


def test_every_package_has_a_layer_and_every_layer_exists() -> None:
    graph = package_graph()
    assert set(graph) <= set(LEVEL), f"no layer for {sorted(set(graph) - set(LEVEL))}"
    assert set(LEVEL) <= set(graph), f"layers name what is gone: {sorted(set(LEVEL) - set(graph))}"


@pytest.mark.parametrize(("graph", "found"), [
    ({"steps": {"report"}}, "steps (measuring) imports report (presenting), a higher layer"),
    ({"core": {"decide"}}, "core (shared) imports decide (judging), a higher layer"),
    ({"newpkg": {"core"}}, "newpkg has no layer in tests/project/test_layers.py"),
])
def test_an_upward_import_is_caught(graph: dict[str, set[str]], found: str) -> None:
    assert found in upward(graph)


def test_a_package_cycle_is_caught() -> None:
    assert _cycles({"facts": {"perf"}, "perf": {"decide"}, "decide": {"facts"}}) == [["decide", "facts", "perf"]]
