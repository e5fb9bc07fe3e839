"""Every `FILE.md §N` citation in code, rules and docs resolves to a heading of this repository's docs/, and
every module path the docs and README name exists (the project owns its design: design.md §8)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.paths import REPO

SCANNED = ("advisor", "probes", "ui", "rules", "bench", "tests", "docs", "packaging", "scripts", "README.md")
CITATION = re.compile(r"\b([a-z][a-z-]*\.md) ?§ ?(\d+(?:\.\d+)*)")
# Documents the team started from live outside the repository; nothing shipped may point at them.
OUTSIDE = re.compile(r"\bDESIGN(?:\.md)? ?§|reference/(?:reliability|engines|aesthetics|peers)\.md|shared/reference/")
HEADING = re.compile(r"^#{1,6} +(\d+(?:\.\d+)*)\.? ")
MODULE_PATH = re.compile(r"`((?:advisor|probes|ui|bench|rules|tests|scripts)/[\w/.-]*)`")


def _files() -> list[Path]:
    found: list[Path] = []
    for name in SCANNED:
        path = REPO / name
        if path.is_file():
            found.append(path)
        elif path.is_dir():
            found += [p for p in path.rglob("*") if p.suffix in {".py", ".toml", ".md"}
                      and "__pycache__" not in p.parts and p.resolve() != Path(__file__).resolve()]
    return found


def _sections(doc: Path) -> set[str]:
    return {m.group(1) for line in doc.read_text(encoding="utf-8").splitlines() if (m := HEADING.match(line))}


def test_every_citation_resolves_to_a_heading_in_docs() -> None:
    sections: dict[str, set[str]] = {}
    broken: list[str] = []
    for path in _files():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for doc_name, number in CITATION.findall(line):
                doc = REPO / "docs" / doc_name
                if doc_name not in sections:
                    sections[doc_name] = _sections(doc) if doc.is_file() else set()
                if number not in sections[doc_name]:
                    broken.append(f"{path.relative_to(REPO)}:{n}: {doc_name} §{number}")
    assert not broken, "citations with no such heading in docs/:\n" + "\n".join(broken)
    assert {"design.md", "reliability.md", "engine-facts.md"} <= set(sections)  # the scan found real citations


def test_nothing_cites_documents_outside_the_repository() -> None:
    outside = [f"{p.relative_to(REPO)}:{n}: {line.strip()[:120]}" for p in _files()
               for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if OUTSIDE.search(line)]
    assert not outside, "cite docs/ of this repository instead:\n" + "\n".join(outside)


def test_module_paths_named_in_the_docs_exist() -> None:
    docs = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    missing = [f"{doc.name}: {name}" for doc in docs for name in MODULE_PATH.findall(doc.read_text(encoding="utf-8"))
               if "*" not in name and not (REPO / name.rstrip("/")).exists()]
    assert not missing, "paths that do not exist:\n" + "\n".join(missing)


def test_the_checker_sees_a_broken_citation(tmp_path: Path) -> None:
    doc = tmp_path / "x.md"
    doc.write_text("# Title\n\n## 2. Two\n\n### 2.5 Two and a half\n", encoding="utf-8")
    assert _sections(doc) == {"2", "2.5"}
    assert CITATION.findall("see reliability.md §2.5 and design.md §4") == [("reliability.md", "2.5"),
                                                                               ("design.md", "4")]
    assert OUTSIDE.search("(DESIGN §4 step 2)") and OUTSIDE.search("reference/engines.md §1.6")
