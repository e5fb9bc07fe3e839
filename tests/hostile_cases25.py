"""Issue 25's hostile cases, joined to the corpus by tests/hostile_cases.py `corpus()`: options after `--` in
the spellings llama-server also reads (class 1), one server twice (2), keys in URLs (3), `--resume` (4) and
the tool's own data as an output (5). Each expects exit 2 with one message line; cases that name files which
must survive list them in `unchanged` (the driver hashes them after the case, the judge compares).
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from advisor.config import CheckConfig

if TYPE_CHECKING:
    from tests.hostile_cases import Case, Content

ROOT = Path(__file__).resolve().parent.parent
GOOD_RUN = ROOT / "tests" / "fixtures" / "runs" / "demo-quick"
GOOD_FACTS = ROOT / "tests" / "fixtures" / "facts" / "dense_enable.json"
CHECK = ("check", "--no-history", "--out", "{d}/run")


def _run_folder(dst: Path) -> None:
    shutil.copytree(GOOD_RUN, dst)
    (dst / "logs").mkdir()
    (dst / "logs" / "off.log").write_text("server log\n")


def _history(runs: Mapping[str, tuple[CheckConfig, str, dict[str, object] | None]]) -> Callable[[Path], None]:
    """A history database holding `runs` under fixed ids: (config, status, recorded model file or None)."""
    def build(db: Path) -> None:
        from advisor.history.store import RunStore

        db.parent.mkdir(parents=True, exist_ok=True)
        with RunStore(db) as store:
            for run_id, (config, status, model) in runs.items():
                made = store.begin_run(config.to_dict(), {})
                if model is not None:
                    store.record_environment(made, {"model_file": model})
                store.finish_run(made, status, None, None)  # type: ignore[arg-type]
                with sqlite3.connect(db) as conn:
                    conn.execute("UPDATE runs SET run_id = ? WHERE run_id = ?", (run_id, made))
    return build


def _demo_fingerprint(changed: bool) -> dict[str, object] | None:
    from advisor.demo.model import demo_model_path
    from advisor.run.model_identity import fingerprint, to_record

    demo = demo_model_path()
    if demo is None:
        return None
    record = to_record(fingerprint(demo))
    return {**record, "head_sha256": "0" * 64} if changed and record else record


def _options(case: type[Case]) -> list[Case]:
    passthrough = {
        "spec-underscore": ("--spec_type", "ngram-mod"), "api-key-underscore": ("--api_key", "k"),
        "cache-ram-underscore": ("--cache_ram", "8192"), "model-draft-underscore": ("--model_draft", "{d}/x.gguf"),
        "hf-repo-underscore": ("--hf_repo", "a/b"), "model-url-underscore": ("--model_url", "http://x/m.gguf"),
        "spec-double-underscore": ("--spec__type", "ngram-mod"), "mmproj-url": ("-mmu", "http://x/p.gguf"),
        "path": ("--path", "/"), "log-prompts-dir": ("--log-prompts-dir", "{d}"), "n-predict": ("-n", "5"),
        "ctx-1": ("-c", "1"), "parallel-64": ("-np", "64"), "spec-equals": ("--spec-type=ngram-mod",),
        "slot-save-path": ("--slot_save_path", "{d}"), "log-file": ("--log_file", "{d}/log"),
    }
    cases = [case(f"opts-{k}", (*CHECK, "--", *v), origin="25.1") for k, v in passthrough.items()]
    cases.append(case("opts-env-spec-type", CHECK, env={"LLAMA_ARG_SPEC_TYPE": "ngram-mod"}, origin="25.1"))
    return cases


def _endpoints(case: type[Case]) -> list[Case]:
    pairs = {
        "trailing-slash": ("http://127.0.0.1:1", "http://127.0.0.1:1/"),
        "localhost": ("http://localhost:1", "http://127.0.0.1:1"),
        "default-port": ("http://127.0.0.1", "http://127.0.0.1:80/"),
        "case": ("HTTP://127.0.0.1:1", "http://127.0.0.1:1"),
    }
    cases = [case(f"same-endpoint-{k}", (*CHECK, "--engine-url", a, "--engine-url-b", b), origin="25.2")
             for k, (a, b) in pairs.items()]
    cases.append(case("url-user-password", (*CHECK, "--engine-url", "http://user:pw@127.0.0.1:1"), origin="25.3"))
    cases.append(case("url-b-user-password", (*CHECK, "--engine-url", "http://127.0.0.1:1", "--engine-url-b",
                                              "http://u:pw@127.0.0.1:2"), origin="25.3"))
    return cases


def _resume(case: type[Case]) -> list[Case]:
    runs = {"R-complete": (CheckConfig(quick=True, out_dir=None), "complete", _demo_fingerprint(False)),
            "R-aborted": (CheckConfig(quick=True, steps=("baseline",)), "aborted", _demo_fingerprint(False)),
            "R-other-model": (CheckConfig(quick=True), "aborted", _demo_fingerprint(True)),
            "R-no-model": (CheckConfig(quick=True), "aborted", None),
            "R-attached": (CheckConfig(engine_url="http://127.0.0.1:1"), "aborted", None)}
    history: dict[str, Content] = {"data/history.sqlite3": _history(runs)}
    argv: dict[str, tuple[str, ...]] = {
        "empty": ("--resume", ""), "blank": ("--resume", "   "), "complete": ("--resume", "R-complete"),
        "option-temperature": ("--resume", "R-aborted", "--temperature", "0.7"),
        "option-keep-prompts": ("--resume", "R-aborted", "--keep-prompts"),
        "option-threads": ("--resume", "R-aborted", "--threads", "3"),
        "option-steps": ("--resume", "R-aborted", "--steps", "ab"),
        "option-model": ("--resume", "R-aborted", "--model", "{d}/m.gguf"),
        "option-out": ("--resume", "R-aborted", "--out", "{d}/elsewhere"),
        "option-server-args": ("--resume", "R-aborted", "--", "-ngl", "0"),
        "other-url": ("--resume", "R-attached", "--engine-url", "http://127.0.0.1:2"),
        "other-model": ("--resume", "R-other-model"), "no-model": ("--resume", "R-no-model"),
        "no-history": ("--resume", "R-aborted", "--no-history"), "unknown": ("--resume", "R-none"),
    }
    return [case(f"resume-{k}", ("check", *v), history, origin="25.4") for k, v in argv.items()]


def _owned(case: type[Case]) -> list[Case]:
    run: dict[str, Content] = {"run": _run_folder, "other": _run_folder, "facts.json": GOOD_FACTS.read_bytes()}
    kept = ("run/evidence.json", "run/verdict.json", "run/logs/off.log", "other/evidence.json",
            "other/verdict.json", "facts.json")
    targets = {
        "evidence": "{d}/run/evidence.json", "verdict": "{d}/run/verdict.json", "log": "{d}/run/logs/off.log",
        "logs-new": "{d}/run/logs/new.md", "other-evidence": "{d}/other/evidence.json",
        "other-verdict": "{d}/other/verdict.json", "history": "{d}/data/history.sqlite3",
        "lock": "{d}/data/check.lock",
    }
    files: dict[str, Content] = {**run, "data/history.sqlite3": "", "data/check.lock": ""}
    cases = [case(f"owned-report-{k}", ("report", "{d}/run", "-o", v), files, origin="25.5", unchanged=kept)
             for k, v in targets.items()]
    cases.append(case("owned-report-facts-source", ("report", "--facts", "{d}/facts.json", "-o", "{d}/facts.json"),
                      files, origin="25.5", unchanged=kept))
    cases.append(case("owned-report-json-into-run", ("report", "{d}/run", "--format", "json", "-o",
                                                     "{d}/run/evidence.json"), files, origin="25.5", unchanged=kept))
    cases.append(case("owned-check-out-old-run", ("check", "--no-history", "--out", "{d}/run"), files,
                      origin="25.5", unchanged=kept))
    cases.append(case("owned-check-out-logs-only", ("check", "--no-history", "--out", "{d}/logsonly"),
                      {**files, "logsonly/logs/on.log": "x\n"}, origin="25.5",
                      unchanged=(*kept, "logsonly/logs/on.log")))
    cases.append(case("owned-gui-screenshot-evidence", ("gui", "--open", "{d}/run", "--screenshot",
                                                        "{d}/run/evidence.json"), files, origin="25.5",
                      unchanged=kept))
    cases.append(case("owned-gui-screenshot-verdict", ("gui", "--screenshot", "{d}/other/verdict.json"), files,
                      origin="25.5", unchanged=kept))
    return cases


def cases(case: type[Case]) -> list[Case]:
    """Issue 25's cases, built with the corpus's own `Case` (passed in: this module is imported by it)."""
    return [*_options(case), *_endpoints(case), *_resume(case), *_owned(case)]

