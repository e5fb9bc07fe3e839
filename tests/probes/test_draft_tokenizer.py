"""llama.cpp's draft/target tokenizer checks, read from GGUF headers; the real llama-server agrees with them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from advisor.arms.draft import check_tokenizers
from advisor.arms.server import ManagedServer, ServerConfig
from advisor.demo.model import demo_model_path
from advisor.errors import UserError
from probes.engines.llamacpp.adapter import LlamaCppAdapter
from probes.model.tokenizer_pair import Vocab, check_pair, compare_vocabs, vocab_from_metadata
from tests.draft_models import renamed_token, shorter_vocab, write_draft, write_vocab_only

pytestmark = pytest.mark.skipif(demo_model_path() is None, reason="the demo model supplies the tokenizer")
TOKENS = tuple(f"t{i}" for i in range(300))


def _vocab(**fields: Any) -> Vocab:
    base: dict[str, Any] = dict(model="gpt2", type="bpe", tokens=TOKENS, bos=1, eos=2, add_bos=False, add_eos=False)
    return Vocab(**{**base, **fields})


@pytest.fixture(scope="module")
def drafts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("drafts")


def _demo() -> Path:
    path = demo_model_path()
    assert path is not None
    return path


# --- the rule itself, on vocabularies built by hand ----------------------------------------------------------

@pytest.mark.parametrize(("draft", "code"), [
    (_vocab(type="spm"), "vocab-type"),
    (_vocab(add_bos=True), "add-bos"),
    (_vocab(add_eos=True, eos=2), "add-eos"),
    (_vocab(tokens=TOKENS[:100]), "vocab-size"),
    (_vocab(tokens=(*TOKENS[:7], "other", *TOKENS[8:])), "token-text"),
])
def test_each_difference_llama_cpp_refuses(draft: Vocab, code: str) -> None:
    pair = compare_vocabs(_vocab(), draft)
    assert pair.compatible is False and [m.code for m in pair.reasons] == [code]


def test_what_llama_cpp_lets_through() -> None:
    # BOS id differs but neither adds BOS; 128 tokens fewer; a special token (id < 5) renamed.
    for draft in (_vocab(bos=7), _vocab(tokens=TOKENS[:-128]), _vocab(tokens=("x", *TOKENS[1:]))):
        assert compare_vocabs(_vocab(), draft).compatible is True
    assert [m.code for m in compare_vocabs(_vocab(add_bos=True), _vocab(add_bos=True, bos=7)).reasons] == ["bos-id"]
    token = compare_vocabs(_vocab(), _vocab(tokens=(*TOKENS[:9], "new", *TOKENS[10:]))).reasons[0]
    assert (token.token_id, token.target, token.draft) == (9, "t9", "new")


def test_defaults_follow_llama_cpp_per_tokenizer_model() -> None:
    tokens = list(TOKENS)
    spm = vocab_from_metadata({"tokenizer.ggml.model": "llama", "tokenizer.ggml.tokens": tokens})
    assert (spm.type, spm.bos, spm.eos, spm.add_bos, spm.add_eos) == ("spm", 1, 2, True, False)
    llama3 = vocab_from_metadata({"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "llama3",
                                  "tokenizer.ggml.tokens": tokens, "tokenizer.ggml.bos_token_id": 5})
    assert (llama3.type, llama3.bos, llama3.eos, llama3.add_bos) == ("bpe", 5, 11, True)
    stated = vocab_from_metadata({"tokenizer.ggml.model": "t5", "tokenizer.ggml.tokens": tokens,
                                  "tokenizer.ggml.eos_token_id": 999, "tokenizer.ggml.add_eos_token": False})
    assert (stated.type, stated.eos, stated.add_eos) == ("ugm", 1, False)  # an id outside the vocabulary is ignored
    # a file that states add-BOS agrees with one whose model adds it by default
    assert compare_vocabs(spm, vocab_from_metadata({"tokenizer.ggml.model": "llama", "tokenizer.ggml.tokens": tokens,
                                                    "tokenizer.ggml.add_bos_token": True})).compatible is True


# --- model files ----------------------------------------------------------------------------------------------

def test_the_demo_model_pairs_with_itself() -> None:
    assert check_tokenizers(_demo(), _demo()).compatible is True


def test_a_different_vocabulary_is_refused_with_one_clear_line(drafts: Path) -> None:
    bad = write_draft(drafts, "renamed", renamed_token(100))
    with pytest.raises(UserError) as en:
        check_tokenizers(_demo(), bad)
    message = str(en.value)
    assert "\n" not in message and message.startswith("renamed.gguf cannot draft for SmolLM2")
    assert "token 100 is 't' in the target but 'zzqq-not-a-token' in the draft" in message
    assert "same family" in en.value.hint
    with pytest.raises(UserError) as zh:
        check_tokenizers(_demo(), bad, lang="zh")
    assert "分词器不同" in str(zh.value) and "词元 100" in str(zh.value) and "\n" not in str(zh.value)


def test_every_reason_is_named(tmp_path: Path) -> None:
    spm = write_vocab_only(tmp_path / "spm.gguf", "llama", [f"<{i}>" for i in range(300)], add_bos_token=True)
    with pytest.raises(UserError) as err:
        check_tokenizers(_demo(), spm)
    text = str(err.value)
    for part in ("vocabulary type 'bpe' vs 'spm'", "adds BOS: False vs True", "vocabulary sizes 49152 and 300",
                 "token 5 is"):
        assert part in text, text


def test_a_pair_that_cannot_be_checked_is_not_refused(tmp_path: Path) -> None:
    folder = tmp_path / "hf-draft"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    for draft in (folder, tmp_path / "Qwen" / "Qwen2.5-0.5B", tmp_path / "weights.safetensors"):
        pair = check_pair(_demo(), draft)
        assert pair.compatible is None and "is not a GGUF file" in pair.detail
    (tmp_path / "weights.safetensors").write_bytes(b"\x00" * 64)
    assert check_tokenizers(_demo(), tmp_path / "weights.safetensors").compatible is None


# --- the real llama-server ------------------------------------------------------------------------------------

CASES = {"same": None, "renamed-token": renamed_token(100), "bos-id-not-added": {"tokenizer.ggml.bos_token_id": 3},
         "100-fewer-tokens": shorter_vocab(100), "200-fewer-tokens": shorter_vocab(200)}


@pytest.mark.engine
@pytest.mark.parametrize("case", list(CASES))
def test_llama_server_pairs_exactly_what_we_accept(case: str, llama_binary: Any, drafts: Path,
                                                   tmp_path: Path) -> None:
    # The installed llama-server does not exit on a refused pair: it logs the refusal and serves with
    # speculation off, which /slots shows. So the check must come first, and here it must agree.
    draft = write_draft(drafts, case, CASES[case])
    ours = check_pair(_demo(), draft).compatible
    config = ServerConfig(model=_demo(), spec_type="draft-simple", draft_model=draft, threads=2, ctx_size=1024,
                          label=case)
    with ManagedServer(llama_binary, config, tmp_path) as server:
        adapter = LlamaCppAdapter(server.base_url)
        try:
            engine = adapter.info().spec.active  # type: ignore[union-attr]
        finally:
            adapter.close()
    assert ours is engine, f"{case}: we say {ours}, llama-server says {engine}"
