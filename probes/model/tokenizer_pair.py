"""Can this draft model speculate for this target? The tokenizer checks llama.cpp applies, from GGUF headers.

llama.cpp (common/speculative.cpp, `common_speculative_are_compatible`) refuses a draft/target pair unless:
the vocabulary types are equal; the add-BOS flags are equal and, when BOS is added, the BOS ids are equal (the
same for EOS); the vocabulary sizes differ by at most 128 tokens (SPEC_VOCAB_MAX_SIZE_DIFFERENCE); and every
token text from id 5 (SPEC_VOCAB_CHECK_START_TOKEN_ID) up to the smaller size is equal. On a refused pair the
current llama-server logs "the target and draft vocabs are not compatible" after loading both models and then
serves with speculation off (tests/probes/test_draft_tokenizer.py checks that it agrees with this module). Older
builds compared the BOS/EOS ids even where the token is not added; the current rule is the one here.

The values compared are the ones llama.cpp resolves when it loads a vocabulary (src/llama-vocab.cpp): per
tokenizer model a default BOS/EOS id and add-BOS/add-EOS flag, overridden by `tokenizer.ggml.*` keys when the
file has them (an id outside the vocabulary keeps the default; a default outside it is no token at all).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from probes.model.gguf_header import MAGIC, GgufFormatError, read_gguf_header

MAX_VOCAB_SIZE_DIFFERENCE = 128   # SPEC_VOCAB_MAX_SIZE_DIFFERENCE
FIRST_CHECKED_TOKEN_ID = 5        # SPEC_VOCAB_CHECK_START_TOKEN_ID: the first few ids are special tokens

# tokenizer.ggml.model → (llama.cpp vocabulary type, default BOS id, default EOS id, add BOS, add EOS)
_MODELS: dict[str, tuple[str, int | None, int | None, bool, bool]] = {
    "no_vocab": ("none", None, None, False, False),
    "none": ("none", None, None, False, False),
    "llama": ("spm", 1, 2, True, False),
    "bert": ("wpm", 101, None, True, False),
    "gpt2": ("bpe", 11, 11, False, False),
    "hybriddna": ("bpe", 11, 11, False, False),
    "whitespace": ("bpe", 11, 11, False, False),
    "gemma4": ("bpe", None, None, True, False),  # llama.cpp forces add-BOS on for Gemma 4
    "t5": ("ugm", None, 1, False, True),
    "rwkv": ("rwkv", None, None, False, False),
    "plamo2": ("plamo2", 1, 2, False, False),
}
# BPE pre-tokenizers whose default is to add BOS, and those without a BOS token.
_BPE_ADD_BOS = frozenset({"llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2",
                          "jina-v5-nano", "tekken", "chameleon"})
_BPE_NO_BOS = frozenset({"glm4", "chatglm-bpe"})
_FORCED_ADD_BOS_PRE = frozenset({"gemma4", "granite-embed-multi-311m"})

MismatchCode = Literal["vocab-type", "add-bos", "bos-id", "add-eos", "eos-id", "vocab-size", "token-text"]
Value = int | str | bool | None


@dataclass(frozen=True, slots=True)
class Vocab:
    """A model's vocabulary as llama.cpp resolves it (ids are token ids; None: no such token)."""

    model: str                  # tokenizer.ggml.model, e.g. "gpt2"
    type: str                   # llama.cpp vocabulary type: spm, bpe, wpm, ugm, rwkv, plamo2, none
    tokens: tuple[str, ...]
    bos: int | None
    eos: int | None
    add_bos: bool
    add_eos: bool

    @property
    def size(self) -> int:
        """Number of tokens."""
        return len(self.tokens)

    def text(self, token_id: int) -> str:
        """Token text as llama.cpp stores it (an empty entry becomes "[EMPTY_<id>]" on load)."""
        return self.tokens[token_id] or f"[EMPTY_{token_id}]"


@dataclass(frozen=True, slots=True)
class Mismatch:
    """One difference that makes llama.cpp refuse the pair: the target's and the draft's value."""

    code: MismatchCode
    target: Value
    draft: Value
    token_id: int | None = None   # token-text: the first id whose text differs


@dataclass(frozen=True, slots=True)
class TokenizerPair:
    """The verdict on a draft/target pair. `compatible` None: not checked (`detail` says why)."""

    compatible: bool | None
    reasons: tuple[Mismatch, ...] = ()
    detail: str = ""


def _id(value: object) -> int | None:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else None


def vocab_from_metadata(meta: Mapping[str, Any]) -> Vocab:
    """Resolve the vocabulary from GGUF metadata (needs the full `tokenizer.ggml.tokens` list)."""
    model = str(meta.get("tokenizer.ggml.model", ""))
    pre = str(meta.get("tokenizer.ggml.pre", "gemma4" if model == "gemma4" else ""))
    raw = meta.get("tokenizer.ggml.tokens")
    tokens = tuple(str(t) for t in raw) if isinstance(raw, list) else ()
    vtype, bos, eos, add_bos, add_eos = _MODELS.get(model, (model or "unknown", None, None, False, False))
    if vtype == "bpe" and pre in _BPE_ADD_BOS:
        add_bos = True
    if vtype == "bpe" and pre in _BPE_NO_BOS:
        bos = None
    # A default id outside the vocabulary means no such token; a stated id outside it is ignored.
    bos = bos if bos is not None and bos < len(tokens) else None
    eos = eos if eos is not None and eos < len(tokens) else None
    stated_bos, stated_eos = _id(meta.get("tokenizer.ggml.bos_token_id")), _id(meta.get("tokenizer.ggml.eos_token_id"))
    bos = stated_bos if stated_bos is not None and 0 <= stated_bos < len(tokens) else bos
    eos = stated_eos if stated_eos is not None and 0 <= stated_eos < len(tokens) else eos
    if isinstance(flag := meta.get("tokenizer.ggml.add_bos_token"), bool):
        add_bos = flag
    if isinstance(flag := meta.get("tokenizer.ggml.add_eos_token"), bool):
        add_eos = flag
    if pre in _FORCED_ADD_BOS_PRE:
        add_bos = True
    return Vocab(model=model, type=vtype, tokens=tokens, bos=bos, eos=eos, add_bos=add_bos, add_eos=add_eos)


def compare_vocabs(target: Vocab, draft: Vocab) -> TokenizerPair:
    """Every difference llama.cpp would refuse the pair for (it stops at the first; all are listed here)."""
    found: list[Mismatch] = []
    if target.type != draft.type:
        found.append(Mismatch("vocab-type", target.type, draft.type))
    for name, t_add, d_add, t_id, d_id in (("bos", target.add_bos, draft.add_bos, target.bos, draft.bos),
                                           ("eos", target.add_eos, draft.add_eos, target.eos, draft.eos)):
        if t_add != d_add:
            found.append(Mismatch("add-bos" if name == "bos" else "add-eos", t_add, d_add))
        elif t_add and t_id != d_id:
            found.append(Mismatch("bos-id" if name == "bos" else "eos-id", t_id, d_id))
    if abs(target.size - draft.size) > MAX_VOCAB_SIZE_DIFFERENCE:
        found.append(Mismatch("vocab-size", target.size, draft.size))
    for i in range(FIRST_CHECKED_TOKEN_ID, min(target.size, draft.size)):
        if target.text(i) != draft.text(i):
            found.append(Mismatch("token-text", target.text(i), draft.text(i), token_id=i))
            break
    return TokenizerPair(compatible=not found, reasons=tuple(found))


def _is_gguf(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            return fh.read(4) == MAGIC
    except OSError:
        return False


def check_pair(target: Path, draft: Path) -> TokenizerPair:
    """Compare the vocabularies of two model files; not checked when either is not a readable GGUF file."""
    for role, path in (("target", target), ("draft", draft)):
        if not path.is_file() or not _is_gguf(path):
            return TokenizerPair(None, detail=f"the {role} model {path} is not a GGUF file")
    vocabs: list[Vocab] = []
    for role, path in (("target", target), ("draft", draft)):
        try:
            vocabs.append(vocab_from_metadata(read_gguf_header(path, keep_arrays=True).metadata))
        except (GgufFormatError, OSError) as exc:
            return TokenizerPair(None, detail=f"the {role} model {path.name} could not be read: {exc}")
        if not vocabs[-1].tokens:
            return TokenizerPair(None, detail=f"the {role} model {path.name} has no tokenizer.ggml.tokens")
    return compare_vocabs(vocabs[0], vocabs[1])
