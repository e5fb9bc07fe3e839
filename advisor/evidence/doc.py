"""docs/evidence.md, generated from the schema itself so the description can never drift from the code.

`python -m advisor.evidence.doc > docs/evidence.md` writes it; tests/advisor/evidence/test_evidence_schema.py
checks it is current. Each dataclass is listed with its docstring and, per field, the type and the comment
written beside it.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import sys
import typing

from advisor.evidence import draft, placement, schema, steps, tuner, units, warnings
from advisor.text import message

# The order a reader meets them in: the file, then what it holds.
CLASSES: tuple[type, ...] = (
    schema.Evidence, schema.ConfigRecord, schema.Environment, schema.ModelFile, draft.DraftSetup, placement.Placement,
    placement.ModelPlacement, schema.WorkloadSummary,
    schema.StepRecord, warnings.StepWarning, message.Message, schema.Reconciliation, steps.PreflightEvidence,
    steps.Guard,
    steps.BaselineEvidence,
    steps.RequestRecord, steps.AcceptanceEvidence, steps.CategoryAcceptance, steps.CanaryEvidence,
    steps.CanaryRepeat, steps.CanaryRerun, steps.VerifyEvidence, steps.VerifyCurve, steps.VerifyPoint,
    tuner.TuneEvidence,
    tuner.MethodProbe, tuner.KSpeedup, tuner.SurfacePoint, tuner.TunerChoice, tuner.TunerSummary,
    steps.BatchEvidence, steps.BatchLevel, steps.BatchRound, steps.ABEvidence, units.AcceptanceUnit,
    units.CounterDelta, units.VerifyUnit, units.ABUnit, units.ArmResult,
)
_COMMENT = re.compile(r"^\s+(\w+)\s*:[^#\n]*#\s*(.+)$")


def _type(tp: object) -> str:
    text = str(tp).replace("typing.", "").replace("collections.abc.", "")
    text = re.sub(r"<class '([\w.]+)'>", lambda m: m.group(1).rsplit(".", 1)[-1], text)
    return re.sub(r"\b[a-z_]+(?:\.[a-z_]+)+\.([A-Z]\w*)", r"\1", text)


def _comments(cls: type) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in inspect.getsource(cls).splitlines():
        if m := _COMMENT.match(line):
            out[m.group(1)] = m.group(2).strip()
    return out


def _section(cls: type) -> list[str]:
    hints = typing.get_type_hints(cls)
    notes = _comments(cls)
    doc = inspect.cleandoc(cls.__doc__ or "").replace("\n", " ")
    lines = [f"### `{cls.__name__}`", "", doc, "", "| field | type | note |", "|---|---|---|"]
    for f in dataclasses.fields(cls):
        note = notes.get(f.name, "").replace("|", "\\|")
        shown = _type(hints[f.name]).replace("|", "\\|")  # a bare | would split the table cell
        lines.append(f"| `{f.name}` | `{shown}` | {note} |")
    return [*lines, ""]


def render() -> str:
    """The whole document."""
    codes = ", ".join(f"`{c.value}`" for c in warnings.WarningCode)
    head = [
        "# evidence.json — what a check leaves behind",
        "",
        "Generated from `advisor/evidence/` by `python -m advisor.evidence.doc > docs/evidence.md`; "
        "`tests/advisor/evidence/test_evidence_schema.py` fails when it is stale.",
        "",
        f"A run folder holds `evidence.json`, written atomically after every step. Schema version "
        f"{schema.SCHEMA_VERSION}; files of schema 1 (the first release) still load, are re-decided and "
        "re-reported (`advisor/evidence/io.py` upgrades them). Times are ms (`_ms`), speeds tok/s (`_tok_s`), "
        "speedups plain ratios (×), rates 0..1; a value that could not be measured is null. A probed field "
        "that could not be read is `{\"unavailable\": reason, \"detail\": …}`. Prompt and output texts are "
        "not stored (only digests) unless the check ran with `--keep-prompts`.",
        "",
        "`steps` maps a step id (preflight, baseline, acceptance, verify, tune, batch, ab) to its `StepRecord`, "
        "whose `evidence` is the step's own type below. The history database stores the same records, and "
        "each measurement unit (`advisor/evidence/units.py`) whole, in one transaction.",
        "",
        f"Warning codes (`WarningCode`): {codes}.",
        "",
        "Environment fields hold the probes' own dataclasses: `GpuReport` (probes/gpu/probe.py), `HostReport` "
        "(probes/host.py), `ModelInfo` (probes/model/info.py), `LlamaServerBinary` "
        "(probes/engines/llamacpp/binary.py), `EngineInfo` (probes/engines/base.py) and `SamplerSummary` "
        "(probes/gpu/sampler.py); `DraftSetup.tokenizer` is a `TokenizerPair` "
        "(probes/model/tokenizer_pair.py); `Environment.placement` holds a `Placement` per managed arm "
        "(probes/engines/llamacpp/placement.py, read from the server's load log).",
        "",
    ]
    body = [line for cls in CLASSES for line in _section(cls)]
    return "\n".join(head + body).rstrip() + "\n"


if __name__ == "__main__":  # pragma: no cover
    sys.stdout.write(render())
