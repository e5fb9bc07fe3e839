"""Dependency direction ui → advisor → probes, checked on the source (an AST scan of every import)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
QT = ("PySide6", "pyqtgraph", "shiboken6")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _top_level_imports(path: Path) -> set[str]:
    # Module-level imports only: a command may import Qt inside the function that opens the window.
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _files(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


@pytest.mark.parametrize("path", _files("probes"), ids=lambda p: str(p.relative_to(ROOT)))
def test_probes_import_neither_advisor_nor_ui(path: Path) -> None:
    bad = {n for n in _imports(path) if n.split(".")[0] in ("advisor", "ui", *QT)}
    assert not bad, f"{path.name} imports {sorted(bad)}"


@pytest.mark.parametrize("path", _files("advisor"), ids=lambda p: str(p.relative_to(ROOT)))
def test_advisor_has_no_qt_at_module_level(path: Path) -> None:
    bad = {n for n in _top_level_imports(path) if n.split(".")[0] in ("ui", *QT)}
    assert not bad, f"{path.name} imports {sorted(bad)} at module level"


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
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
