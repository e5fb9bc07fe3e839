"""SIGKILL during a run, then resume: the history opens, passes integrity_check, and the resumed run reaches
the same verdict as an uninterrupted one.

The engine here is a deterministic stand-in (fixed ms/token per prompt and arm) because a real engine's
timings differ run to run, and the claim under test is about the session, the recorder, the store and the
decision — all real — given the same inputs. Real-engine runs of the same code are in test_check_real.py.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from tests.paths import REPO

CHILD = textwrap.dedent('''
    import hashlib, json, sys, time
    from dataclasses import replace
    from pathlib import Path
    from advisor.evidence.schema import Environment
    from advisor.arms.arms import Arm, Arms
    from advisor.run.launch import resolve_model
    from advisor.config import CheckConfig
    from advisor.run.session import Session
    from advisor.history.store import RunStore
    from probes.base import Unavailable
    from probes.engines.base import CompletionResult, EngineInfo, SpecState

    class Scripted:
        """Deterministic engine: ms/token depends only on (arm, prompt text)."""
        kind = "llama.cpp"
        def __init__(self, arm):
            self.arm, self.base_url = arm, f"scripted://{arm}"
        def info(self):
            return EngineInfo(kind="llama.cpp", base_url=self.base_url, version="scripted", model="m",
                              spec=SpecState(active=self.arm == "on", method="ngram-mod", draft_max=8, source="test"))
        def spec_counters(self):
            return Unavailable("not-supported", "scripted")
        def complete(self, prompt, *, max_tokens, temperature=0.0, seed=0, slot=None, cache_prompt=True):
            time.sleep(0.05)
            h = int(hashlib.sha256(str(prompt).encode()).hexdigest()[:6], 16) / 0xFFFFFF
            ms = 10.0 * (1 + 0.3 * h) / (1.25 + 0.1 * h if self.arm == "on" else 1.0)
            return CompletionResult(text="same output", prompt_tokens=10, cached_tokens=0, completion_tokens=32,
                                    prompt_ms=5.0, decode_ms=ms * 31, draft_tokens=None, draft_accepted=None,
                                    ttft_ms=5.0, total_ms=ms * 32, stop_reason="limit")

    class ScriptedSession(Session):
        def _start(self):
            # the model file is recorded (and on resume compared) as a real start does it
            self._same_models(self._model_files(resolve_model(self.config), None))
            engine = EngineInfo(kind="llama.cpp", base_url="scripted://", version="scripted", model="m")
            self.evidence = replace(self.evidence, environment=Environment(engine=engine))
            return Arms(off=Arm("off", Scripted("off")), on=Arm("on", Scripted("on")))

    db, out, resume = Path(sys.argv[1]), Path(sys.argv[2]), (sys.argv[3] if len(sys.argv) > 3 else None)
    with RunStore(db) as store:
        cfg = CheckConfig(quick=False, steps=("ab",), out_dir=out)
        done = ScriptedSession(cfg, store=store, resume_run_id=resume).run()
    facts = done.facts
    print(json.dumps({"verdict": done.verdict.verdict, "ab_decision": facts.get("ab.decision"),
                      "ab": facts.get("ab.speedup"), "n": facts.get("ab.n_prompts")}))
''')


def _child(tmp: Path, db: Path, out: Path, *resume: str) -> subprocess.Popen[str]:
    script = tmp / "child.py"
    script.write_text(CHILD)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen([sys.executable, str(script), str(db), str(out), *resume], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


def _units(db: Path) -> list[tuple[str, str]]:
    if not db.exists():
        return []
    with sqlite3.connect(db) as conn:
        try:
            return conn.execute("SELECT run_id, unit_key FROM units WHERE step = 'ab'").fetchall()
        except sqlite3.OperationalError:
            return []


def test_sigkill_then_resume_reaches_the_same_verdict(tmp_path: Path) -> None:
    # The uninterrupted reference run.
    ref = _child(tmp_path, tmp_path / "ref.db", tmp_path / "ref")
    out, err = ref.communicate(timeout=120)
    assert ref.returncode == 0, err[-2000:]
    reference = json.loads(out.strip().splitlines()[-1])

    db = tmp_path / "killed.db"
    victim = _child(tmp_path, db, tmp_path / "killed")
    deadline = time.monotonic() + 60
    while len(_units(db)) < 8 and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(victim.pid, signal.SIGKILL)
    victim.wait(timeout=10)
    units = _units(db)
    assert 8 <= len(units) < 60, "the kill must land mid-run"

    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        payloads = [json.loads(p) for (p,) in conn.execute("SELECT payload_json FROM units WHERE step = 'ab'")]
    assert all("off" in p and "on" in p for p in payloads), "every stored A/B unit is a whole pair"

    run_id = units[0][0]
    resumed = _child(tmp_path, db, tmp_path / "resumed", run_id)
    out, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err[-2000:]
    # The scripted ON arm is ~1.3× faster, so the A/B itself decides ENABLE; the overall verdict stays
    # INCONCLUSIVE because an A/B-only run has no trap canary or baseline noise figure (fail closed).
    assert reference["ab_decision"] == "ENABLE" and reference["verdict"] == "INCONCLUSIVE"
    assert json.loads(out.strip().splitlines()[-1]) == reference
