"""Dependency direction ui → advisor → probes and no import cycles, checked on the source.

Every import counts, at any depth (inside functions and TYPE_CHECKING blocks too): a lazy import is still
a dependency. There is exactly one named exception: the GUI command opens the window with a lazy import
of `ui`, so that `advisor` stays importable where PySide6 is not installed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.paths import REPO

PACKAGES = ("advisor", "probes", "ui")
QT = ("PySide6", "pyqtgraph", "shiboken6")
# (module, imported package) pairs allowed against the direction, each with its reason.
EXCEPTIONS = {("advisor.cli.gui", "ui"): "the `gui` command opens the desktop window (imported in run())"}


def _module_name(path: Path) -> str:
    rel = path.relative_to(REPO).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Absolute names of everything `path` imports, at any depth; relative imports resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    module = _module_name(path)
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)] + ([node.module] if node.module else [])
                names.add(".".join(base))
            elif node.module:
                names.add(node.module)
                names.update(f"{node.module}.{a.name}" for a in node.names)
    return names


def _files(package: str) -> list[Path]:
    return sorted((REPO / package).rglob("*.py"))


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for pkg in PACKAGES for p in _files(pkg)}


def _violations(path: Path, forbidden: tuple[str, ...]) -> set[str]:
    module = _module_name(path)
    return {n for n in _imports(path) if n.split(".")[0] in forbidden and (module, n.split(".")[0]) not in EXCEPTIONS}


@pytest.mark.parametrize("path", _files("probes"), ids=lambda p: str(p.relative_to(REPO)))
def test_probes_import_neither_advisor_nor_ui(path: Path) -> None:
    bad = _violations(path, ("advisor", "ui", *QT))
    assert not bad, f"{path.name} imports {sorted(bad)}"


@pytest.mark.parametrize("path", _files("advisor"), ids=lambda p: str(p.relative_to(REPO)))
def test_advisor_imports_no_qt_and_no_ui(path: Path) -> None:
    bad = _violations(path, ("ui", *QT))
    assert not bad, f"{path.name} imports {sorted(bad)}"


def test_the_one_exception_is_still_needed() -> None:
    for (module, package), why in EXCEPTIONS.items():
        path = _modules()[module]
        assert any(n.split(".")[0] == package for n in _imports(path)), f"stale exception: {module} ({why})"


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for module, path in mods.items():
        for name in _imports(path):
            while name and name not in mods:
                name = name.rpartition(".")[0]
            # a module may import its own package (its __init__); that is not a cycle of modules
            if name and name != module and not module.startswith(name + "."):
                graph[module].add(name)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycles() -> None:
    cycles = _cycles(_graph())
    assert not cycles, "import cycles: " + "; ".join(" ↔ ".join(c) for c in cycles)


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_advisor_imports_without_qt_installed() -> None:
    import subprocess
    import sys

    # Block PySide6/pyqtgraph, then import every advisor module: the core must work on a headless server.
    code = (
        "import sys, pkgutil, importlib\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('PySide6','pyqtgraph','shiboken6','ui'):\n"
        "            raise ImportError('blocked ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "import advisor\n"
        "for m in pkgutil.walk_packages(advisor.__path__, 'advisor.'):\n"
        "    if not m.name.endswith('__main__'): importlib.import_module(m.name)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
