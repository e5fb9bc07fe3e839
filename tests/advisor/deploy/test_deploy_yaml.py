"""The small YAML writer and subset reader: round trips, agreement with PyYAML where installed, clear refusals."""

from __future__ import annotations

import importlib.util
import re

import pytest

from advisor.deploy.yaml_load import ManifestYamlError, load_all
from advisor.recommend.yaml_emit import dump, quote

HAVE_PYYAML = importlib.util.find_spec("yaml") is not None
needs_pyyaml = pytest.mark.skipif(not HAVE_PYYAML, reason="PyYAML is not in the venv (optional cross-check)")

TRICKY = ["on", "no", "yes", "0755", "1e3", "null", "~", "", " lead", "trail ", "a: b", "- x", "#hash",
          "x #y", "'single'", '"double"', "back\\slash", "tab\there", "new\nline", "ünïcødé 中文", "emoji 🙂",
          "\x00\x07\x1b", "\u2028sep", "--spec-type", "{json: 1}", "[list]", "&anchor", "*alias", "!tag",
          "%dir", "@at", "`tick", "|", ">", "?", ":", "$HOME", "50%"]
SNIPPETS = [
    "a: 1\nb: [1, 'two', \"three\"]\nc: {x: y, z: [1, 2]}\n",
    "list:\n- a\n- b: 1\n  c: 2\n-\n- - nested\n  - again\n",
    "k: |\n  line one\n\n  line three\n    indented\nnext: >-\n  folded\n  text\n\n  para\n",
    "keep: |+\n  x\n\nafter: 1\nstrip: >\n  a\n   b\n  c\n",
    "# c\n---\na: 1 # comment\n'q k': \"v # not comment\"\n---\nb: ~\n...\n",
    "empty_map: {}\nempty_list: []\nnull_value:\nfloat: 1.5\nneg: -3\nbool: true\nurl: http://x:80/a\n",
    "it's: an apostrophe's value\nquote_in_plain: a\"b\n",
    "a:\n  - x: 1\n    y:\n      - 2\n  - z\n",
]


@pytest.mark.parametrize("text", TRICKY)
def test_quote_round_trips(text: str) -> None:
    assert load_all(f"k: {quote(text)}\n") == [{"k": text}]


@needs_pyyaml
@pytest.mark.parametrize("text", TRICKY)
def test_quote_round_trips_through_pyyaml(text: str) -> None:
    import yaml

    assert yaml.safe_load(f"k: {quote(text)}\n") == {"k": text}


def test_dump_nested_round_trip() -> None:
    value = {"spec": {"extraArgs": TRICKY, "n": 3, "f": 0.75, "b": False, "none": None, "empty": [],
                      "items": [{"name": "A", "value": "1"}, ["x", "y"]]}}
    assert load_all(dump(value)) == [value]


@needs_pyyaml
def test_dump_agrees_with_pyyaml() -> None:
    import yaml

    value = {"services": {"s": {"command": TRICKY, "deploy": {"devices": [{"count": "all", "caps": ["gpu"]}]}}}}
    assert yaml.safe_load(dump(value)) == value


@needs_pyyaml
@pytest.mark.parametrize("text", SNIPPETS)
def test_reader_agrees_with_pyyaml(text: str) -> None:
    import yaml

    assert load_all(text) == list(yaml.safe_load_all(text))


@pytest.mark.parametrize("text", [
    "a: &x 1\nb: *x\n", "a: !!int 1\n", "? complex\n: key\n", "a: 'open\n  close'\n", "%YAML 1.2\n---\na: 1\n",
    "a:\n\t- 1\n", "a: |2\n  x\n", "a: b: c\n", "a: 1\na: 2\n", "a:\n  b: 1\n c: 2\n", "--- a: 1\n",
])
def test_reader_refuses_what_it_does_not_support(text: str) -> None:
    with pytest.raises(ManifestYamlError, match="line"):
        load_all(text)


def test_yaml_1_2_scalars() -> None:
    # documented choice: the YAML 1.2 core schema (Kubernetes' own YAML-1.1 quirks do not apply to strings)
    assert load_all("a: yes\nb: 0x1F\nc: 0o17\nd: .inf\ne: 1e3\n") == [
        {"a": "yes", "b": 31, "c": 15, "d": float("inf"), "e": 1000.0}]


BILLION_LAUGHS = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{n}: &{n} [{', '.join([f'*{p}'] * 9)}]\n" for p, n in zip("abcdefgh", "bcdefghi", strict=True))


@pytest.mark.parametrize(("text", "message"), [
    (BILLION_LAUGHS, "line 1: anchors and aliases"),
    ("a: *undefined\n", "anchors and aliases"),
    ("a: !!python/object/apply:os.system ['echo hi']\n", "tags are not supported"),
    ("a: !!binary aGk=\n", "tags are not supported"),
    ("a: " + "[" * 10_000 + "]" * 10_000 + "\n", "nested more than 64 levels"),
    ("- " * 5_000 + "x\n", "nested more than 64 levels"),
    ("[" + "1," * 100_000 + "1]\n", "more than 32768 values"),
    ("a: " + "x" * (300 * 1024) + "\n", "is 300 KiB; spec-advisor reads at most 256 KiB"),
    ("a: " + "9" * 5_000 + "\n", "number too long"),
    ("a: ok\nb: bell\x07\n", "line 2: character #x0007"),
    ("a: {x: 1, x: 2}\n", "duplicate key 'x'"),
    ("{[a]: 1}\n", "a key that is a list or mapping"),
    ("a:\n  b: 1\n\tc: 2\n", "line 3: a tab where YAML needs spaces"),
    ("a: [1, 2\n", "line 2: expected ',' or ']'"),
])
def test_hostile_or_malformed_yaml_is_a_clear_error(text: str, message: str) -> None:
    with pytest.raises(ManifestYamlError, match=re.escape(message)) as info:
        load_all(text)
    assert "\n" not in str(info.value) and info.value.hint


def test_only_plain_data_is_built() -> None:
    (doc,) = load_all("a: [1, 2.5, true, ~, x]\nb: {c: '1'}\n<<: 7\n")
    assert doc == {"a": [1, 2.5, True, None, "x"], "b": {"c": "1"}, "<<": 7}  # no merge key either


def test_64_levels_still_read() -> None:
    assert load_all("a: " + "[" * 63 + "]" * 63 + "\n")[0] is not None
