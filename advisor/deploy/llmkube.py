"""`llmkube`: the flags as an LLMKube `InferenceService` change to `spec.extraArgs`.

LLMKube appends `spec.extraArgs` after the flags it generates for the llama.cpp and vLLM runtimes, so the
speculative flags belong there. Without a manifest the output is a merge patch. With the user's manifest
the file comes back with only the `extraArgs` lines rewritten — every other line, comment and the key
order stay byte-for-byte — and the result is re-read to prove that nothing but `spec.extraArgs` changed.
"""

from __future__ import annotations

import copy

import advisor.deploy.yaml_emit as yaml_emit
from advisor.deploy.base import DRAFT_MODEL_FLAGS, LLAMACPP, DeployError, DeployRequest, header
from advisor.deploy.yaml_read import (
    Document,
    YamlSubsetError,
    load_all,
    load_documents,
    split_key,
    strip_comment,
)
from advisor.recommend.dialect import strip_spec_args

RUNTIMES = (LLAMACPP, "vllm")  # the runtimes LLMKube passes extraArgs to
KIND = "InferenceService"


def render(req: DeployRequest) -> str:
    """A merge patch, or the user's manifest with `spec.extraArgs` rewritten."""
    if req.engine not in RUNTIMES:
        raise DeployError(f"LLMKube passes extraArgs only to its llama.cpp and vLLM runtimes, not {req.engine}",
                          hint="use --format-flags plain")
    notes = _notes(req)
    if req.manifest_text is None:
        return _patch(req, notes)
    return _patch_manifest(req, req.manifest_text, notes)


def _notes(req: DeployRequest) -> list[str]:
    notes = []
    if any(a in DRAFT_MODEL_FLAGS for a in req.spec_argv):
        notes.append("# spec-advisor: the draft model path must exist inside the pod; mount it next to the model")
    if req.engine == "vllm" and req.spec_argv:
        notes.append("# spec-advisor: remove spec.vllmConfig.speculative if set; both would configure speculation")
    return notes


def _patch(req: DeployRequest, notes: list[str]) -> str:
    lines = header(req) + notes
    if not req.spec_argv:
        lines += ["# spec-advisor: nothing to add to spec.extraArgs. If it carries speculative flags (--spec-*, "
                  "--draft-*, -md, --speculative-*), remove them, or pass --manifest FILE to get the manifest "
                  "back with them removed."]
        return "\n".join(lines) + "\n"
    lines += ["# spec-advisor: apply with kubectl patch inferenceservice NAME --type merge --patch-file FILE",
              "# spec-advisor: a merge patch replaces the whole extraArgs list; pass --manifest FILE to keep "
              "your other extraArgs"]
    lines += yaml_emit.emit({"spec": {"extraArgs": list(req.spec_argv)}})
    return "\n".join(lines) + "\n"


def _target(docs: list[Document]) -> Document:
    found = [d for d in docs if isinstance(d.value, dict) and d.value.get("kind") == KIND]
    if len(found) != 1:
        raise DeployError(f"the manifest holds {len(found)} {KIND} documents; spec-advisor changes exactly one",
                          hint=f"pass a file with the one {KIND} to change")
    spec = found[0].value.get("spec") if isinstance(found[0].value, dict) else None
    if not isinstance(spec, dict):
        raise DeployError(f"the {KIND} has no spec mapping to put extraArgs in")
    return found[0]


def _current_args(doc: Document) -> list[str]:
    assert isinstance(doc.value, dict)
    args = doc.value["spec"].get("extraArgs")
    if args is None:
        return []
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise DeployError("spec.extraArgs must be a list of strings",
                          hint='quote numbers and booleans, e.g. - "42"; Kubernetes rejects them unquoted too')
    return list(args)


def _content(line: str, no: int) -> str:
    try:
        return strip_comment(line.lstrip(" "), no)
    except YamlSubsetError:
        # a block scalar's text (already parsed as such) may hold an unpaired quote; it is still content
        return line.strip()


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _spec_region(lines: list[str], doc: Document) -> tuple[int, int, int]:
    """(first, end, child indent) of the lines inside the top-level `spec:` block."""
    for i in range(doc.start, doc.end):
        text = _content(lines[i], i + 1)
        kv = split_key(text, i + 1) if text and _indent(lines[i]) == 0 else None
        if kv is None or kv[0] != "spec":
            continue
        if kv[1]:
            raise DeployError("spec is written on one line (flow style); spec-advisor edits block-style spec only")
        end = next((j for j in range(i + 1, doc.end)
                    if _content(lines[j], j + 1) and _indent(lines[j]) == 0), doc.end)
        child = next(_indent(lines[j]) for j in range(i + 1, end) if _content(lines[j], j + 1))
        return i + 1, end, child
    raise DeployError(f"no top-level spec: line found in the {KIND}")  # pragma: no cover - _target checked


def _extra_args_span(lines: list[str], first: int, end: int, child: int) -> tuple[int, int] | None:
    """Line range [start, stop) of the existing `extraArgs` entry (its value included), if any."""
    for i in range(first, end):
        text = _content(lines[i], i + 1)
        kv = split_key(text, i + 1) if text and _indent(lines[i]) == child else None
        if kv is None or kv[0] != "extraArgs":
            continue
        stop = i + 1
        for j in range(i + 1, end):
            body = _content(lines[j], j + 1)
            if not body:
                continue
            if _indent(lines[j]) < child or (_indent(lines[j]) == child and not body.startswith("-")):
                break
            stop = j + 1
        return i, stop
    return None


def _rewrite(lines: list[str], doc: Document, args: list[str]) -> list[str]:
    first, end, child = _spec_region(lines, doc)
    span = _extra_args_span(lines, first, end, child)
    pad = " " * child
    block = [f"{pad}extraArgs: []"] if not args else [f"{pad}extraArgs:", *yaml_emit.emit(args, child + 2)]
    if span is not None:
        return lines[:span[0]] + block + lines[span[1]:]
    last = max(j for j in range(first, end) if _content(lines[j], j + 1))
    return lines[:last + 1] + block + lines[last + 1:]


def _without_extra_args(value: object) -> object:
    plain = copy.deepcopy(value)
    if isinstance(plain, dict) and isinstance(plain.get("spec"), dict):
        plain["spec"].pop("extraArgs", None)
    return plain


def _verify(before: str, after: str, target: int, args: list[str]) -> None:
    old, new = load_all(before), load_all(after)
    same = len(old) == len(new) and all(
        (_without_extra_args(a) == _without_extra_args(b)) if i == target else a == b
        for i, (a, b) in enumerate(zip(old, new, strict=True)))
    doc = new[target] if same else None
    spec = doc.get("spec") if isinstance(doc, dict) else None
    if not same or not isinstance(spec, dict) or (spec.get("extraArgs") or []) != args:
        raise DeployError("internal check failed: the rewritten manifest differs outside spec.extraArgs",
                          hint="please report this with the manifest; nothing was changed")


def _strip_own_header(text: str) -> str:
    lines = text.splitlines(keepends=True)
    n = 0
    while n < len(lines) and lines[n].startswith("# spec-advisor"):
        n += 1
    return "".join(lines[n:])


def _patch_manifest(req: DeployRequest, manifest: str, notes: list[str]) -> str:
    text = _strip_own_header(manifest)
    docs = load_documents(text)
    doc = _target(docs)
    current = _current_args(doc)
    kept, removed = strip_spec_args(current)
    args = kept + list(req.spec_argv)
    lines = header(req) + notes
    if removed:
        lines.append("# spec-advisor: removed from spec.extraArgs: " + " ".join(removed))
    if args == current:
        return "\n".join([*lines, "# spec-advisor: spec.extraArgs already matches; nothing changed"]) + "\n" + text
    newline = "\r\n" if "\r\n" in text else "\n"
    rewritten = newline.join(_rewrite(text.splitlines(), doc, args))
    if text.endswith(("\n", "\r")):
        rewritten += newline
    _verify(text, rewritten, docs.index(doc), args)
    return newline.join(lines) + newline + rewritten
