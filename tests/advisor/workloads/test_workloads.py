"""Workloads: the bundled library, user prompt loaders, de-duplication, selection and context checks."""

from __future__ import annotations

import json
import random
import re
import time
from collections import Counter
from pathlib import Path

import pytest

from advisor.errors import UserError
from advisor.workloads import (
    CATEGORIES,
    MIN_DISTINCT_PROMPTS,
    Message,
    Prompt,
    WorkloadError,
    check_context,
    dedupe,
    load_library,
    load_user_prompts,
    select,
    split_for_position,
    trap_prompt,
)
from advisor.workloads.normalize import normalize, shingles
from advisor.workloads.similarity import similar_pairs

# A realistic-length prompt (about 40 words) for the near-duplicate cases.
BASE = (
    "Write a friendly email to my neighbours inviting them to a small garden party on Saturday afternoon. "
    "Mention that there will be a barbecue, vegetarian options and lemonade for the children, and ask them "
    "to let me know by Thursday whether they can come."
)


def _user(text: str, pid: str = "p", category: str = "user") -> Prompt:
    return Prompt(pid, category, text, "profile", "user")


def _write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def _jsonl(tmp_path: Path, records: list[object], name: str = "prompts.jsonl") -> Path:
    return _write(tmp_path, name, "\n".join(json.dumps(r) for r in records) + "\n")


# --- the bundled library -------------------------------------------------------------------------------


def test_library_covers_every_category_with_enough_prompts() -> None:
    library = load_library()
    counts = Counter(p.category for p in library)
    held_out = Counter(p.category for p in library if p.split == "ab")
    assert len(CATEGORIES) >= 9 and "refactor" in CATEGORIES
    assert set(counts) == set(CATEGORIES)
    # The A/B's full budget is 60 pairs + 25% spare, and a user's mix may lean on one or two categories.
    for category in CATEGORIES:
        assert counts[category] >= 48, category
        assert held_out[category] >= 30, category


def test_library_ids_are_unique_and_named_after_their_category() -> None:
    prompts = load_library()
    assert len({p.id for p in prompts}) == len(prompts)
    for p in prompts:
        assert re.fullmatch(rf"{p.category}-\d{{3}}", p.id), p.id
        assert p.source == "library" and p.messages is None and p.text == p.text.strip()


def test_library_has_no_duplicates_or_near_duplicates() -> None:
    everything = (*load_library(), trap_prompt())
    result = dedupe(everything)
    assert result.dropped == (), result.summary()
    assert result.kept == everything  # the whole library survives the loader's dedupe unchanged, in order


def test_split_is_deterministic_disjoint_and_spread_over_categories() -> None:
    prompts = load_library()
    assert load_library() == prompts
    for p in prompts:
        assert p.split == split_for_position(int(p.id.rsplit("-", 1)[1])), p.id
    ab, profile = load_library(split="ab"), load_library(split="profile")
    assert {p.id for p in ab}.isdisjoint({p.id for p in profile})
    assert len(ab) + len(profile) == len(prompts)
    assert len(ab) >= 30
    assert 0.35 <= len(ab) / len(prompts) <= 0.45
    for category in CATEGORIES:
        assert Counter(p.split for p in prompts if p.category == category).keys() == {"ab", "profile"}


def test_library_filters_by_category() -> None:
    math = load_library(categories=["math", "code"])
    assert {p.category for p in math} == {"math", "code"}
    assert load_library(categories="json") == load_library(categories=["json"])


def test_unknown_category_suggests_the_close_name() -> None:
    with pytest.raises(WorkloadError, match="unknown prompt category 'summary'") as info:
        load_library(categories=["summary"])
    assert "summarization" in info.value.hint


def test_summarization_prompts_carry_a_source_passage() -> None:
    for p in load_library(categories=["summarization"]):
        longest = max(len(block.split()) for block in p.text.split("\n\n"))
        assert 80 <= longest <= 250, p.id


def _given(prompt_text: str) -> str:
    """The text a prompt hands over to work on: everything after its first paragraph (the request)."""
    parts = prompt_text.split("\n\n", 1)
    return parts[1] if len(parts) == 2 else ""


def test_refactor_prompts_carry_a_code_block_to_rework() -> None:
    for p in load_library(categories=["refactor"]):
        lines = _given(p.text).splitlines()
        assert 8 <= len(lines) <= 40, p.id


def test_editing_prompts_carry_the_text_to_edit() -> None:
    prompts = load_library(categories=["editing"])
    words = [len(_given(p.text).split()) for p in prompts]
    assert min(words) >= 20
    # Most hand over a whole paragraph, so a good answer copies most of it (n-gram drafting's best case).
    assert sum(80 <= n <= 200 for n in words) >= len(prompts) * 2 // 3


def test_translation_prompts_include_non_english_sources() -> None:
    texts = [p.text for p in load_library(categories=["translation"])]
    assert sum(bool(re.search(r"[\u4e00-\u9fff]", t)) for t in texts) >= 3
    assert sum(bool(re.search(r"[éèàçüöäßñ]", t)) for t in texts) >= 4


def test_trap_prompt_is_fixed_and_outside_the_library() -> None:
    trap = trap_prompt()
    assert trap == trap_prompt()
    assert trap.split == "canary" and trap.source == "canary"
    assert trap.id not in {p.id for p in load_library()}
    assert "exactly as written" in trap.text and trap.text.count("\n") >= 10


# --- loaders -------------------------------------------------------------------------------------------


def test_text_file_one_prompt_per_line_skipping_blanks(tmp_path: Path) -> None:
    path = _write(tmp_path, "mine.txt", "first prompt\n\n  second prompt  \r\nthird\n\n")
    prompts = load_user_prompts(path)
    assert [p.text for p in prompts] == ["first prompt", "second prompt", "third"]
    assert [p.id for p in prompts] == ["user-0001", "user-0002", "user-0003"]
    assert [p.split for p in prompts] == ["profile", "ab", "profile"]
    assert all(p.source == "user" and p.category == "user" for p in prompts)


def test_text_file_keeps_lines_that_look_like_json(tmp_path: Path) -> None:
    path = _write(tmp_path, "mine.txt", '{"prompt": "x"}\n')
    assert load_user_prompts(path)[0].text == '{"prompt": "x"}'


def test_jsonl_with_prompt_or_text_and_optional_fields(tmp_path: Path) -> None:
    path = _jsonl(
        tmp_path,
        [
            {"prompt": "Explain DNS.", "category": "chat", "id": "dns"},
            {"text": "Sort a list in Go."},
            {"prompt": "Translate hello.", "id": 7},
        ],
        name="prompts.data",  # no telling suffix: detected from the first line
    )
    prompts = load_user_prompts(path)
    assert [(p.id, p.category, p.text) for p in prompts] == [
        ("dns", "chat", "Explain DNS."),
        ("user-0002", "user", "Sort a list in Go."),
        ("7", "user", "Translate hello."),
    ]


def test_chat_jsonl_keeps_messages_and_answers_the_last_user_turn(tmp_path: Path) -> None:
    conversation = [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Name a prime."},
        {"role": "assistant", "content": "7"},
        {"role": "user", "content": [{"type": "text", "text": "And an even one?"}]},
        {"role": "assistant", "content": "2"},  # a reference answer: dropped, the model writes this turn
    ]
    prompts = load_user_prompts(_jsonl(tmp_path, [{"messages": conversation, "category": "chat"}]))
    (prompt,) = prompts
    assert prompt.text == "And an even one?"
    assert prompt.messages == (
        Message("system", "You are terse."),
        Message("user", "Name a prime."),
        Message("assistant", "7"),
        Message("user", "And an even one?"),
    )
    assert "You are terse." in prompt.full_text()


def test_utf8_bom_is_accepted(tmp_path: Path) -> None:
    path = _write(tmp_path, "bom.txt", "\ufeffhello there\n".encode())
    assert load_user_prompts(path)[0].text == "hello there"


# --- error cases ---------------------------------------------------------------------------------------


def test_workload_error_is_a_user_error() -> None:
    assert issubclass(WorkloadError, UserError)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(WorkloadError, match="prompt file not found"):
        load_user_prompts(tmp_path / "nope.txt")


def test_directory_is_not_a_file(tmp_path: Path) -> None:
    with pytest.raises(WorkloadError, match="is not a file"):
        load_user_prompts(tmp_path)


@pytest.mark.parametrize("content", ["", "\n\n  \n"])
def test_empty_file(tmp_path: Path, content: str) -> None:
    with pytest.raises(WorkloadError, match="is empty"):
        load_user_prompts(_write(tmp_path, "empty.txt", content))


def test_not_utf8_names_the_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "latin1.txt", "caf\xe9 ok\nna\xefve\n".encode("latin-1"))
    with pytest.raises(WorkloadError, match=r"not UTF-8 text \(byte 0xe9 on line 1\)"):
        load_user_prompts(path)


def test_bad_json_line_names_the_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "p.jsonl", '{"prompt": "a"}\n\n{"prompt": "b",}\n')
    with pytest.raises(WorkloadError, match=r"line 3: not valid JSON"):
        load_user_prompts(path)


@pytest.mark.parametrize(
    ("record", "message"),
    [
        (["a list"], "expected a JSON object, got list"),
        ({"title": "no prompt"}, 'needs a non-empty "prompt" or "text"'),
        ({"prompt": "   "}, 'needs a non-empty "prompt" or "text"'),
        ({"prompt": "x", "category": ["a"]}, '"category" must be a string'),
        ({"messages": []}, "must be a non-empty list"),
        ({"messages": [{"role": "system", "content": "hi"}]}, "no user message"),
        ({"messages": [{"role": "wizard", "content": "hi"}]}, "unknown role 'wizard'"),
        ({"messages": [{"role": "user", "content": [{"type": "image_url"}]}]}, "only text content"),
        ({"prompt": "bell\u0007"}, "control character U\\+0007"),
        ({"prompt": "half \ud800 surrogate"}, "lone surrogate"),
    ],
)
def test_bad_records_are_explained_with_their_line(tmp_path: Path, record: object, message: str) -> None:
    path = _jsonl(tmp_path, [{"prompt": "fine"}, record])
    with pytest.raises(WorkloadError, match=message) as info:
        load_user_prompts(path)
    assert "line 2" in str(info.value)


def test_repeated_ids_are_refused(tmp_path: Path) -> None:
    path = _jsonl(tmp_path, [{"prompt": "a", "id": "x"}, {"prompt": "b", "id": "x"}])
    with pytest.raises(WorkloadError, match="ids must be unique; repeated: x"):
        load_user_prompts(path)


def test_too_few_prompts_after_dedupe_says_how_many(tmp_path: Path) -> None:
    lines = ["Tell me a joke about cats.", "tell me a JOKE about cats!", "What is a monad?"]
    prompts = load_user_prompts(_write(tmp_path, "few.txt", "\n".join(lines)))
    with pytest.raises(WorkloadError, match="only 2 distinct prompts remain after removing 1 duplicates; at least 20"):
        dedupe(prompts, min_count=MIN_DISTINCT_PROMPTS)


def test_over_context_prompts_are_named() -> None:
    prompts = [_user("short", "a"), _user("word " * 50, "b"), _user("word " * 90, "c")]
    count = len  # one token per character is enough for the test
    check_context(prompts[:1], n_ctx=64, count_tokens=count)
    with pytest.raises(WorkloadError, match=r"2 prompt\(s\) do not fit the 200-token context") as info:
        check_context(prompts, n_ctx=200, count_tokens=count)
    assert "b (250 tokens)" in str(info.value) and "c (450 tokens)" in str(info.value)
    with pytest.raises(WorkloadError, match="keeping 100 tokens for the answer"):
        check_context(prompts[:2], n_ctx=300, count_tokens=count, reserve_tokens=100)


def test_context_counts_every_turn_of_a_conversation() -> None:
    turns = (Message("system", "s" * 100), Message("user", "hi"))
    chat = Prompt("c", "chat", "hi", "profile", "user", turns)
    with pytest.raises(WorkloadError, match="c \\(102 tokens\\)"):
        check_context([chat], n_ctx=50, count_tokens=lambda text: len(text.replace("\n", "")))


# --- de-duplication ------------------------------------------------------------------------------------


def test_one_changed_word_is_a_near_duplicate() -> None:
    changed = BASE.replace("Saturday", "Sunday")
    other = "Explain how vaccines train the immune system."
    result = dedupe([_user(BASE, "a"), _user(other, "b"), _user(changed, "c")])
    assert [p.id for p in result.kept] == ["a", "b"]
    (dropped,) = result.dropped
    assert (dropped.prompt.id, dropped.kept_id, dropped.reason) == ("c", "a", "near")
    assert 0.8 <= dropped.similarity < 1.0
    assert "c is a near-duplicate of a" in result.summary()


def test_recased_and_repunctuated_copy_is_an_exact_duplicate() -> None:
    copy = BASE.upper().replace(",", "").replace(".", " !") + "   "
    result = dedupe([_user(BASE, "a"), _user(copy, "b")])
    assert [(d.prompt.id, d.kept_id, d.reason) for d in result.dropped] == [("b", "a", "exact")]
    assert "b repeats a" in result.summary()


def test_invisible_and_full_width_variants_are_exact_duplicates() -> None:
    variants = ["Hello world", "Hello\u200b world", "Ｈｅｌｌｏ　ｗｏｒｌｄ", "hello world\n"]
    result = dedupe([_user(t, str(i)) for i, t in enumerate(variants)])
    assert [p.id for p in result.kept] == ["0"]


def test_distinct_prompts_are_kept() -> None:
    texts = ["Write a poem about cats.", "Write a poem about dogs.", "Explain photosynthesis.", "???", "!!"]
    # Short prompts that differ in one word ask for different answers; punctuation-only prompts stay apart.
    result = dedupe([_user(t, str(i)) for i, t in enumerate(texts)])
    assert result.dropped == ()
    assert result.summary() == "5 distinct prompts, no duplicates"


def test_a_shared_system_prompt_does_not_make_chats_duplicates() -> None:
    system = Message("system", "You are a helpful assistant for a hardware store. " * 20)
    chats = [
        Prompt(str(i), "chat", q, "profile", "user", (system, Message("user", q)))
        for i, q in enumerate(["Which drill for concrete?", "How do I fix a leaking tap?"])
    ]
    assert dedupe(chats).dropped == ()


def test_similar_pairs_matches_brute_force() -> None:
    rng = random.Random(5)
    vocab = ["".join(rng.choice("abcdef") for _ in range(rng.randint(1, 5))) for _ in range(80)]
    texts: list[str] = []
    for _ in range(250):
        if texts and rng.random() < 0.4:
            words = rng.choice(texts).split()
            words[rng.randrange(len(words))] = rng.choice(vocab)
            texts.append(" ".join(words))
        else:
            texts.append(" ".join(rng.choice(vocab) for _ in range(rng.randint(1, 40))))
    sets = [shingles(normalize(t)) for t in texts]
    for threshold in (0.5, 0.8, 1.0):
        brute = [
            (i, j)
            for i in range(len(sets))
            for j in range(i + 1, len(sets))
            if len(sets[i] & sets[j]) / len(sets[i] | sets[j]) >= threshold - 1e-9
        ]
        assert [(i, j) for i, j, _ in similar_pairs(sets, threshold)] == brute


def test_dedupe_is_fast_for_a_few_thousand_prompts() -> None:
    library = [p.text for p in load_library()]
    rng = random.Random(9)
    # Sentences recombined from the library: natural text, distinct, with some shared phrasing.
    sentences = [s for text in library for s in re.split(r"(?<=[.?!])\s+", text) if len(s) > 20]
    prompts = [_user(" ".join(rng.sample(sentences, 3)), f"g{i}") for i in range(2000)]
    start = time.perf_counter()
    dedupe(prompts)
    assert time.perf_counter() - start < 15.0  # about a second here; the bound only catches a quadratic slip


# --- selection -----------------------------------------------------------------------------------------


def test_select_is_deterministic_and_takes_n_per_category() -> None:
    library = load_library(split="profile")
    first = select(library, 3, seed=42)
    assert first == select(library, 3, seed=42)
    assert Counter(p.category for p in first) == dict.fromkeys(CATEGORIES, 3)
    assert select(library, 3, seed=43) != first
    assert [p.category for p in first[: len(CATEGORIES)]] == list(CATEGORIES)  # interleaved round-robin


def test_select_all_or_more_than_available_keeps_everything() -> None:
    library = load_library(split="ab")
    assert sorted(p.id for p in select(library, None, seed=1)) == sorted(p.id for p in library)
    assert len(select(library, 1000, seed=1)) == len(library)
    with pytest.raises(ValueError, match="at least 1"):
        select(library, 0, seed=1)
