"""Load and save `evidence.json`: the one place that reads or writes the file.

Saving redacts secrets, writes non-finite numbers as null and replaces the file atomically. Loading reads
only a regular file of bounded size, upgrades schema-1 files from the first release (so nobody's history is
lost) and decodes into `Evidence`; every problem is an `EvidenceError` (a UserError) naming what is wrong.
Whether the numbers agree with each other is checked where they become facts (advisor/facts/checks.py).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from advisor.atomic import write_atomic
from advisor.evidence.codec import EvidenceError, decode, encode
from advisor.evidence.jsonfile import EVIDENCE_FILE, MAX_EVIDENCE_BYTES, read_json_file
from advisor.evidence.kinds import EVIDENCE_TYPES
from advisor.evidence.schema import SCHEMA_VERSION, Evidence, StepRecord
from advisor.evidence.warnings import WarningCode
from advisor.redact import redact

__all__ = ["EVIDENCE_FILE", "MAX_EVIDENCE_BYTES", "evidence_path", "load_evidence", "read_json_file",
           "save_evidence", "to_json_text"]


def evidence_path(path: Path) -> Path:
    """The evidence file of a run folder, or `path` itself when it names a file."""
    return path / EVIDENCE_FILE if path.is_dir() else path


def to_json_text(evidence: Evidence) -> str:
    """The text of evidence.json: secrets redacted, NaN as null, one key per line."""
    return json.dumps(redact(encode(evidence)), indent=1, allow_nan=False, ensure_ascii=False)


def save_evidence(evidence: Evidence, run_dir: Path) -> Path:
    """Write `run_dir/evidence.json` atomically; returns its path."""
    run_dir.mkdir(parents=True, exist_ok=True)
    return write_atomic(run_dir / EVIDENCE_FILE, to_json_text(evidence))


def load_evidence(path: Path) -> Evidence:
    """Read a run folder's evidence.json (or the file itself) into `Evidence`."""
    file = evidence_path(path)
    data = read_json_file(file, what="an evidence file")
    if isinstance(data, dict) and "report_schema_version" in data:
        raise EvidenceError(f"{file} is a report, not an evidence file",
                            hint="reports are rendered from a run folder; pass the run folder instead")
    return evidence_from_json(data, origin=str(file))


def evidence_from_json(data: object, *, origin: str = "evidence") -> Evidence:
    """Decode parsed evidence JSON (schema 1 or 2)."""
    if not isinstance(data, Mapping) or "schema_version" not in data:
        raise EvidenceError(f"{origin} is not an evidence file (no schema_version)",
                            hint="for a flat object of facts use --facts FILE.json")
    version = data["schema_version"]
    if version == 1:
        data = upgrade_schema_1(data)
    elif isinstance(version, int) and not isinstance(version, bool) and version > SCHEMA_VERSION:
        raise EvidenceError(f"{origin} has evidence schema {version!r}; this version reads 1 and {SCHEMA_VERSION}",
                            hint="update spec-advisor to read runs written by a newer release")
    elif isinstance(version, int) and not isinstance(version, bool) and version < 1:
        raise EvidenceError(f"{origin} has evidence schema {version!r}, older than any spec-advisor release "
                            f"wrote (1 is the first); it is not supported",
                            hint="measure again with `spec-advisor check`; no update reads it")
    elif version != SCHEMA_VERSION:
        raise EvidenceError(f"{origin} has an invalid evidence schema {_shown(version)}; this version reads 1 "
                            f"and {SCHEMA_VERSION}", hint="the file is damaged or was not written by spec-advisor")
    steps_raw = data.get("steps")
    body = {k: v for k, v in data.items() if k != "steps"}
    evidence = decode(Evidence, body, origin)
    if steps_raw is not None and not isinstance(steps_raw, Mapping):
        raise EvidenceError(f"{origin}.steps: expected an object, got {type(steps_raw).__name__}")
    steps = {str(sid): _step(str(sid), raw, f"{origin}.steps.{sid}") for sid, raw in (steps_raw or {}).items()}
    return replace(evidence, steps=steps)


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _step(step_id: str, raw: object, path: str) -> StepRecord:
    if not isinstance(raw, Mapping):
        raise EvidenceError(f"{path}: expected an object, got {type(raw).__name__}")
    cls = EVIDENCE_TYPES.get(step_id)
    if cls is None:
        raise EvidenceError(f"{path}: unknown step '{step_id}'", hint="known: " + ", ".join(EVIDENCE_TYPES))
    head = decode(StepRecord, {k: v for k, v in raw.items() if k != "evidence"}, path)
    payload = raw.get("evidence")
    evidence = decode(cls, payload, f"{path}.evidence") if payload else None
    return StepRecord(head.status, head.reason, head.elapsed_s, head.warnings, evidence)


def upgrade_schema_1(data: Mapping[str, object]) -> dict[str, object]:
    """A schema-1 file (the first release's dicts) in schema-2 shape; the numbers are untouched."""
    out = dict(data)
    raw_env = out.get("environment")
    env = dict(raw_env) if isinstance(raw_env, Mapping) else {}
    binary = env.get("binary")
    if isinstance(binary, Mapping) and "flag_dialect" in binary:
        binary = dict(binary)
        binary["dialect"] = binary.pop("flag_dialect")
        env["binary"] = binary
    out["environment"] = env
    steps = out.get("steps")
    if isinstance(steps, Mapping):
        out["steps"] = {sid: _upgrade_step(rec) for sid, rec in steps.items()}
    out["schema_version"] = SCHEMA_VERSION
    return out


def _upgrade_step(rec: object) -> object:
    if not isinstance(rec, Mapping):
        return rec
    rec = dict(rec)
    warnings = []
    for w in rec.get("warnings") or []:
        if isinstance(w, Mapping) and isinstance(w.get("code"), str) and w["code"].startswith("guard-gpu"):
            # schema 1 wrote the GPU index into the code (guard-gpu0-throttle); it lives in the message now
            w = {**w, "code": WarningCode.for_guard(w["code"].removeprefix("guard-")).value}
        warnings.append(w)
    rec["warnings"] = warnings
    return rec
