"""README.md's layout block is generated from the packages' docstrings (advisor/cli/layout.py), so it names only
packages and modules that exist; regenerate it with `python -m advisor.cli.layout`."""

from __future__ import annotations

from advisor.cli.layout import layout_block, readme_block
from tests.paths import REPO

README = REPO / "README.md"


def test_readme_layout_block_is_generated_from_the_packages() -> None:
    block = readme_block(README.read_text(encoding="utf-8"))
    assert block is not None, "README.md lost the layout:begin/end markers"
    assert block == layout_block(), "README.md's layout block is stale: run python -m advisor.cli.layout"


def test_every_package_says_what_it_holds() -> None:
    assert "(no docstring)" not in layout_block()
    assert "  arms/" in layout_block() and "pipeline order" not in README.read_text(encoding="utf-8")
