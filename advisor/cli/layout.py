"""The README's layout block, generated from the packages' own docstrings (`python -m advisor.cli.layout` prints
it; tests/project/test_readme_layout.py fails when README.md's block differs), so the listing names only what exists."""

from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path

from advisor.cli import usage

BEGIN, END = "<!-- layout:begin (python -m advisor.cli.layout) -->", "<!-- layout:end -->"
ROOT = Path(__file__).resolve().parents[2]
TREES = ("probes", "advisor", "ui")
WITH_MODULES = ("probes", "advisor")  # ui/'s modules are one widget or view each; its package line says so
WIDTH, INDENT = 116, 22


def _summary(path: Path) -> str:
    """The first sentence of a module's docstring (empty when it has none)."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    paragraph = " ".join(doc.split("\n\n")[0].split())
    return re.split(r"(?<=\.)\s", paragraph, maxsplit=1)[0]


def _entries(tree: str) -> list[tuple[str, Path]]:
    """(shown name, file holding its docstring): the package, its subpackages, then its own modules."""
    base = ROOT / tree
    out = [(f"{tree}/", base / "__init__.py")]
    for sub in sorted(p for p in base.iterdir() if (p / "__init__.py").is_file()):
        out.append((f"  {sub.name}/", sub / "__init__.py"))
    if tree in WITH_MODULES:
        for module in sorted(p for p in base.glob("*.py") if p.name not in {"__init__.py", "__main__.py"}):
            out.append((f"  {module.name}", module))
    return out


def layout_block() -> str:
    """One line per package of probes/, advisor/ and ui/ and per top-level module of the first two, with its
    docstring's first sentence, in alphabetical order (the data flow is in docs/design.md §3)."""
    lines = []
    for tree in TREES:
        for name, path in _entries(tree):
            text = _summary(path) or "(no docstring)"
            wrapped = textwrap.wrap(text, WIDTH - INDENT) or [""]
            lines.append(f"{name:<{INDENT}}{wrapped[0]}")
            lines += [" " * INDENT + rest for rest in wrapped[1:]]
    return "```\n" + "\n".join(lines) + "\n```"


def readme_block(readme: str) -> str | None:
    """The layout part of a README (between its markers), or None when the markers are missing."""
    return usage.readme_block(readme, BEGIN, END)


def main() -> None:
    """Print the block with its markers (paste it into README.md, or let the test tell you it is stale)."""
    print(f"{BEGIN}\n{layout_block()}\n{END}")


if __name__ == "__main__":
    main()
