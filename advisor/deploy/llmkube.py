"""`llmkube`: the flags as an LLMKube `InferenceService` change to `spec.extraArgs`.

LLMKube appends `spec.extraArgs` after the flags it generates for the llama.cpp and vLLM runtimes, so the
speculative flags belong there. Without a manifest the output is a merge patch. With the user's manifest
the file comes back with only the `extraArgs` lines rewritten — every other line, comment and the key
order stay byte-for-byte — and the result is re-read to prove that nothing but `spec.extraArgs` changed.
"""

from __future__ import annotations

import copy

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

import advisor.recommend.yaml_emit as yaml_emit
from advisor.deploy.base import DRAFT_MODEL_FLAGS, LLAMACPP, DeployError, DeployRequest, header
from advisor.deploy.yaml_load import Document, load_all, load_documents
from advisor.recommend.dialect import strip_spec_args

RUNTIMES = (LLAMACPP, "vllm")  # the runtimes LLMKube passes extraArgs to
KIND = "InferenceService"
_BREAKS = frozenset("\r\n\x85\u2028\u2029")  # what PyYAML counts as a line break (its marks count these)
_SPACE = _BREAKS | {" ", "\t"}


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


def _target(docs: list[Document]) -> int:
    found = [i for i, d in enumerate(docs) if isinstance(d.value, dict) and d.value.get("kind") == KIND]
    if len(found) != 1:
        raise DeployError(f"the manifest holds {len(found)} {KIND} documents; spec-advisor changes exactly one",
                          hint=f"pass a file with the one {KIND} to change")
    value = docs[found[0]].value
    spec = value.get("spec") if isinstance(value, dict) else None
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


def _entry(mapping: MappingNode, name: str) -> tuple[Node, Node] | None:
    """The (key, value) nodes of `name` in a mapping (keys are scalars: the reader refuses others)."""
    return next(((k, v) for k, v in mapping.value if isinstance(k, ScalarNode) and k.value == name), None)


def _spec_node(doc: Document) -> MappingNode:
    entry = _entry(doc.node, "spec") if isinstance(doc.node, MappingNode) else None
    spec = entry[1] if entry else None
    if not isinstance(spec, MappingNode) or spec.flow_style:
        raise DeployError("spec is written on one line (flow style); spec-advisor edits block-style spec only")
    return spec


def _last_char(text: str, node: Node) -> int:
    """Index of the last character that belongs to `node`'s value (a trailing comment does not)."""
    while isinstance(node, MappingNode | SequenceNode) and not node.flow_style and node.value:
        last = node.value[-1]
        node = last[1] if isinstance(node, MappingNode) else last
    end = node.end_mark.index
    header = text[node.start_mark.index:node.start_mark.index + 2]
    if isinstance(node, ScalarNode) and node.style in ("|", ">") and "+" in header:
        # a kept (|+) block scalar owns its trailing blank lines: end after the last of them
        while end > 0 and text[end - 1] in " \t":
            end -= 1
    else:  # a block scalar's end mark lies past its trailing blank lines, which are not its value
        while end > 1 and text[end - 1] in _SPACE:
            end -= 1
    return end - 1


def _line_start(text: str, index: int) -> int:
    while index > 0 and text[index - 1] not in _BREAKS:
        index -= 1
    return index


def _line_end(text: str, index: int) -> int:
    """Index just after the line break that ends the line holding text[index] (len(text) on a last line)."""
    while index < len(text) and text[index] not in _BREAKS:
        index += 1
    return min(len(text), index + (2 if text.startswith("\r\n", index) else 1))


def _rewrite(text: str, spec: MappingNode, args: list[str], newline: str) -> str:
    """`text` with the extraArgs entry of `spec` replaced (or added after spec's last value)."""
    child = spec.value[0][0].start_mark.column
    pad = " " * child
    block = [f"{pad}extraArgs: []"] if not args else [f"{pad}extraArgs:", *yaml_emit.emit(args, child + 2)]
    entry = _entry(spec, "extraArgs")
    if entry is not None:
        start, stop = _line_start(text, entry[0].start_mark.index), _line_end(text, _last_char(text, entry[1]))
    else:
        start = stop = _line_end(text, _last_char(text, spec))
    head, tail = text[:start], text[stop:]
    new = newline.join(block)
    if head and head[-1] not in _BREAKS:  # inserting after a last line that has no line break
        head += newline
    elif tail or text[stop - 1:stop] in _BREAKS:
        new += newline
    return head + new + tail


def _without_extra_args(value: object) -> object:
    plain = copy.deepcopy(value)
    if isinstance(plain, dict) and isinstance(plain.get("spec"), dict):
        plain["spec"].pop("extraArgs", None)
    return plain


def _verify(old: list[object], after: str, target: int, args: list[str]) -> None:
    new = load_all(after, max_chars=len(after))  # the few added lines may cross the size limit: not the user's
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
    target = _target(docs)
    current = _current_args(docs[target])
    kept, removed = strip_spec_args(current)
    args = kept + list(req.spec_argv)
    lines = header(req) + notes
    if removed:
        lines.append("# spec-advisor: removed from spec.extraArgs: " + " ".join(removed))
    if args == current:
        return "\n".join([*lines, "# spec-advisor: spec.extraArgs already matches; nothing changed"]) + "\n" + text
    newline = "\r\n" if "\r\n" in text else "\n"
    rewritten = _rewrite(text, _spec_node(docs[target]), args, newline)
    _verify([d.value for d in docs], rewritten, target, args)
    return newline.join(lines) + newline + rewritten


def render_for_crd(req: DeployRequest, *, spec_field: bool) -> str:
    """The recommendation for the operator that is installed: `spec.speculativeDecoding` where its CRD has the
    field (recent LLMKube), `spec.extraArgs` where it does not (`render`)."""
    return _spec_patch(req) if spec_field else render(req)


def _spec_patch(req: DeployRequest) -> str:
    """A merge patch of `spec.speculativeDecoding` (flags with no field in the block go to extraArgs)."""
    from advisor.deploy.llmkube_spec import DRAFT_MODEL_REF_PLACEHOLDER, speculative_block

    if req.engine != LLAMACPP:
        raise DeployError("spec.speculativeDecoding configures LLMKube's llama.cpp runtime only, not "
                          f"{req.engine}", hint="use --format-flags llmkube (extraArgs)")
    parsed = speculative_block(req.spec_argv)
    lines = header(req)
    if parsed.block is None:
        lines += ["# spec-advisor: leave speculation off: remove spec.speculativeDecoding (and any --spec-* in "
                  "spec.extraArgs)",
                  "# spec-advisor: kubectl patch inferenceservice NAME --type merge -p "
                  "'{\"spec\":{\"speculativeDecoding\":null}}'"]
        return "\n".join(lines) + "\n"
    if parsed.draft_model is not None:
        lines.append(f"# spec-advisor: draftModelRef names a Model CR holding the draft ({parsed.draft_model}); "
                     f"create it and replace {DRAFT_MODEL_REF_PLACEHOLDER}")
    patch: dict[str, object] = {"speculativeDecoding": parsed.block}
    if parsed.leftover:
        lines.append("# spec-advisor: these flags have no field in spec.speculativeDecoding and go to "
                     "spec.extraArgs (a merge patch replaces the whole list): " + " ".join(parsed.leftover))
        patch["extraArgs"] = list(parsed.leftover)
    lines.append("# spec-advisor: apply with kubectl patch inferenceservice NAME --type merge --patch-file FILE")
    lines += yaml_emit.emit({"spec": patch})
    return "\n".join(lines) + "\n"
