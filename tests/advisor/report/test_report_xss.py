"""Hostile strings (model names, fact names, reasons, categories) render inert in HTML and Markdown.

Parse-level checks always run; when /usr/bin/chromium exists the HTML is also loaded headless and
its DOM dumped, to show that none of the payloads' side effects (retitling the page, adding an
element or attribute) happened. A positive control proves the same browser does run inline scripts.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import pytest

from advisor.ab.types import PairResult
from advisor.decide.verdict_json import verdict_from_json
from advisor.evidence.codec import EvidenceError, encode
from advisor.evidence.io import evidence_from_json
from advisor.evidence.schema import Evidence, StepRecord
from advisor.evidence.steps import ABEvidence, AcceptanceEvidence, CategoryAcceptance, Guard
from advisor.evidence.warnings import StepWarning, WarningCode
from advisor.report.model import build_report, report_json
from advisor.report.render_html import CSP, render_html
from advisor.report.render_markdown import render_markdown
from advisor.report.tree import Report
from advisor.text.message import Message
from tests.report_sample import sample_run

CHROMIUM = Path("/usr/bin/chromium")
PAYLOADS = (
    "<script>document.title='PWNED-1'</script>",
    "\"><img src=x onerror=\"document.title='PWNED-2'\">",
    "</script><script>document.documentElement.setAttribute('data-pwned','3')</script>",
    "'><svg onload=\"document.title='PWNED-4'\"></svg>",
    "<!--<script>document.title='PWNED-5'</script>",
    "\u2028</SCRIPT\u2029><iframe srcdoc='x'></iframe>",
)


def _hostile_evidence() -> Evidence:
    """Every text field typed evidence has, filled with a payload (step ids and statuses are closed sets)."""
    run = sample_run()
    gpu = run.environment.gpu
    assert gpu is not None and run.environment.engine is not None and run.environment.model is not None
    env = replace(run.environment,
                  gpu=replace(gpu, gpus=(replace(gpu.gpus[0], name=PAYLOADS[2]),)),
                  engine=replace(run.environment.engine, version=PAYLOADS[4], model=PAYLOADS[0]),
                  model=replace(run.environment.model, file_type=PAYLOADS[5], name=PAYLOADS[1]))
    steps = {
        "baseline": StepRecord("failed", reason=Message.plain(PAYLOADS[2]),
                               warnings=(StepWarning(WarningCode.NOISY, Message.plain(PAYLOADS[3])),)),
        "acceptance": StepRecord("done", evidence=AcceptanceEvidence(per_category={
            p: CategoryAcceptance(0.5, 0.4, 0.6, 2, 10, 5) for p in PAYLOADS})),
        "ab": StepRecord("done", evidence=ABEvidence(
            decision="SKIP", guards={PAYLOADS[0]: Guard(False, Message.plain(PAYLOADS[1]))}, reasons=PAYLOADS,
            pairs=(PairResult(PAYLOADS[3], 12.0, 11.0, False), PairResult(PAYLOADS[4], 12.0, 10.0, True)))),
    }
    return replace(run, run_id=PAYLOADS[0], config=replace(run.config, spec_type=PAYLOADS[1]), environment=env,
                   steps=steps, prompts={p: p for p in PAYLOADS})


def _hostile_report() -> Report:
    facts = {**{f"gpu.{p}": p for p in PAYLOADS}, "ab.speedup": 1.1}
    verdict = {"verdict": "SKIP", "because": list(PAYLOADS), "warnings": list(PAYLOADS),
               "alternatives": list(PAYLOADS), "missing_facts": list(PAYLOADS),
               # one recommendation (a verdict has one), every payload in each of its texts
               "flags": {"engine": " ".join(PAYLOADS), "argv": list(PAYLOADS), "steps": list(PAYLOADS),
                         "notes": list(PAYLOADS)},
               "trace": [{"rule": p, "branch": p, "fact": p, "op": p, "expected": p, "actual": p, "passed": None,
                          "outcome": "reason", "leads_to": p} for p in PAYLOADS]}
    return build_report(_hostile_evidence(), facts, verdict_from_json(verdict), include_prompts=True)


def test_hostile_step_ids_and_statuses_are_refused_at_load() -> None:
    data = encode(sample_run())
    data["steps"][PAYLOADS[0]] = {"status": "done"}
    with pytest.raises(EvidenceError, match="unknown step"):
        evidence_from_json(data)
    data = encode(sample_run())
    data["steps"]["ab"]["status"] = PAYLOADS[1]
    with pytest.raises(EvidenceError, match="expected one of"):
        evidence_from_json(data)


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.script_text: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.script_text.append(data)


@pytest.fixture(scope="module")
def hostile() -> tuple[Report, str]:
    report = _hostile_report()
    return report, render_html(report)


def test_payloads_are_in_the_report(hostile: tuple[Report, str]) -> None:
    report, _ = hostile
    text = json.dumps(report_json(report), ensure_ascii=False)
    assert all(json.dumps(p, ensure_ascii=False)[1:-1] in text for p in PAYLOADS)  # kept, as data


def test_html_parse_level(hostile: tuple[Report, str]) -> None:
    report, html = hostile
    parser = _Collector()
    parser.feed(html)
    names = [t for t, _ in parser.tags]
    assert names.count("script") == 1
    (script_attrs,) = [a for t, a in parser.tags if t == "script"]
    assert script_attrs == {"type": "application/json", "id": "report-data"}
    assert not {"img", "iframe", "object", "embed", "link", "base", "form"} & set(names)
    assert [t for t, a in parser.tags if t == "svg" and "onload" in a] == []
    assert not [(t, k) for t, a in parser.tags for k in a if k.lower().startswith("on")]
    assert not [(t, a) for t, a in parser.tags if t == "meta" and (a.get("http-equiv") or "").lower() == "refresh"]
    csp = [a for t, a in parser.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    assert csp == [{"http-equiv": "Content-Security-Policy", "content": CSP}] and "script-src" not in CSP
    raw = "".join(parser.script_text)
    assert not re.search(r"[<>&\u2028\u2029]", raw)  # nothing that can close or confuse the block
    assert json.loads(raw) == report_json(report)


def test_markdown_has_no_raw_html(hostile: tuple[Report, str]) -> None:
    report, _ = hostile
    md = render_markdown(report)
    # Code spans and fenced blocks are shown literally by every Markdown renderer; check the rest.
    outside_code = re.sub(r"(?ms)^(`{3,}).*?^\1\s*$", "", md)
    outside_code = re.sub(r"(`+).+?\1", "", outside_code)
    assert "<" not in outside_code and ">" not in outside_code.replace("\n>", "\n")
    assert "](" not in outside_code  # no links can be formed


def _dump_dom(path: Path, profile: Path) -> str:
    cmd = [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
           "--dump-dom", path.as_uri()]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=90, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.mark.slow
@pytest.mark.skipif(not CHROMIUM.exists() or shutil.which(str(CHROMIUM)) is None,
                    reason="needs /usr/bin/chromium (apt-get install chromium; scripts/setup installs it)")
def test_chromium_runs_no_payload(hostile: tuple[Report, str], tmp_path: Path) -> None:
    _, html = hostile
    control = tmp_path / "control.html"  # proves this browser runs inline scripts and we can see it
    control.write_text("<!doctype html><title>before</title><script>document.title='RAN'</script>", "utf-8")
    assert "<title>RAN</title>" in _dump_dom(control, tmp_path / "p0")

    page = tmp_path / "report.html"
    page.write_text(html, encoding="utf-8")
    dom = _dump_dom(page, tmp_path / "p1")
    assert "PWNED" not in re.search(r"<title>(.*?)</title>", dom, re.S).group(1)  # type: ignore[union-attr]
    assert "data-pwned" not in dom.split("<body", 1)[0] and 'data-pwned="3"' not in dom
    assert not re.search(r"<(img|iframe|svg onload)\b", dom)
    assert f'content="{CSP}"' in dom and 'id="report-data"' in dom


@pytest.mark.slow
@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium")
def test_chromium_csp_blocks_inline_script(tmp_path: Path) -> None:
    # Defence in depth: even a script that escaped escaping would be refused by the report's CSP.
    page = tmp_path / "csp.html"
    page.write_text(f'<!doctype html><meta http-equiv="Content-Security-Policy" content="{CSP}">'
                    "<title>before</title><script>document.title='RAN'</script>", "utf-8")
    assert "<title>before</title>" in _dump_dom(page, tmp_path / "p2")
