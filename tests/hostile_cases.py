"""The hostile-input corpus: what a user (or a damaged file) can hand the CLI, and what must come back.

Every case expects exit code 2 with one message line on stderr (`spec-advisor: …`, maybe a `  hint:` line),
no traceback, nothing on stdout that pretends to be the error, within the driver's time and memory limits
(tests/hostile_driver.py). Broken-pipe cases expect a quiet exit instead. `{d}` in an argument is the case's
own folder, which also holds its data and config folders (SPEC_ADVISOR_DATA_DIR / _CONFIG_DIR).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from advisor.workloads.loaders import MAX_PROMPT_FILE_BYTES
from tests import hostile_gguf as g
from tests.hostile_driver import digest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
GOOD_FACTS = FIXTURES / "facts" / "dense_enable.json"
GOOD_RUN = FIXTURES / "runs" / "demo-quick"
# Enough distinct prompts that a file is refused for its hostile last line, not for being short.
GOOD_JSONL = "".join(json.dumps({"prompt": f"Describe harbour number {i} and its {i * 7} boats."}) + "\n"
                     for i in range(30))
SPARSE_SIZE = 64 * 1024 * 1024  # apparent size of the sparse GGUFs (a few KB on disk)


class Fifo:
    """A named pipe: opening it for reading blocks until a writer comes, which never happens here."""


class Folder:
    """An empty directory."""


@dataclass(frozen=True, slots=True)
class Link:
    """A symbolic link to `target` (relative to the case folder; need not exist)."""

    target: str


@dataclass(frozen=True, slots=True)
class Sparse:
    """`head` followed by zeros up to `size` bytes, written as a hole (takes a few KB on disk)."""

    head: bytes
    size: int = SPARSE_SIZE


Content = bytes | str | Fifo | Folder | Link | Sparse | Callable[[Path], None]
Expect = Literal["user-error", "quiet"]


@dataclass(frozen=True, slots=True)
class Case:
    """One hostile input: the command line, the files it names, and what the issue item it comes from."""

    id: str
    argv: tuple[str, ...]
    files: Mapping[str, Content] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=dict)
    expect: Expect = "user-error"
    broken_pipe: bool = False
    origin: str = ""   # the issue item or area ("6", "9", "url", …)
    limit_s: float = 30.0
    unchanged: tuple[str, ...] = ()  # files (relative to the case folder) the case must leave as they were


# ---- file contents -----------------------------------------------------------------------------------------

def facts(**changes: object) -> str:
    """The dense ENABLE fixture with `changes` (dots written as __)."""
    data = json.loads(GOOD_FACTS.read_text())
    data.update({k.replace("__", "."): v for k, v in changes.items()})
    return json.dumps(data)


def _copy_run(dst: Path, edit: Callable[[dict[str, Any]], None] | None = None) -> None:
    dst.mkdir(parents=True, exist_ok=True)
    data = json.loads((GOOD_RUN / "evidence.json").read_text())
    if edit is not None:
        edit(data)
    (dst / "evidence.json").write_text(json.dumps(data))


def run_with(edit: Callable[[dict[str, Any]], None] | None) -> Callable[[Path], None]:
    """A run folder holding the demo evidence, edited."""
    return lambda dst: _copy_run(dst, edit)


def _gpus_5(d: dict[str, Any]) -> None:
    d["environment"]["gpu"]["gpus"] = 5


def _ab_inverted(d: dict[str, Any]) -> None:
    ab = d["steps"]["ab"]
    ab["status"] = "done"
    ab["evidence"].update(decision="ENABLE", speedup=0.5, ci_low=1.9, ci_high=1.1)


def _ab_rate(d: dict[str, Any]) -> None:
    d["steps"]["ab"]["status"] = "done"
    d["steps"]["ab"]["evidence"]["outputs_match_rate"] = 3.5


def _ab_negative(d: dict[str, Any]) -> None:
    d["steps"]["ab"]["status"] = "done"
    d["steps"]["ab"]["evidence"]["n_prompts"] = -10


def _steps_string(d: dict[str, Any]) -> None:
    d["steps"] = "all of them"


def _schema_99(d: dict[str, Any]) -> None:
    d["schema_version"] = 99


def rules_with(extra: Mapping[str, Content]) -> Callable[[Path], None]:
    """A copy of the built-in rules folder plus `extra` files."""
    def build(dst: Path) -> None:
        shutil.copytree(ROOT / "rules", dst, ignore=shutil.ignore_patterns("cases", "__pycache__", "*.md"))
        for name, content in extra.items():
            write(dst / name, content)
    return build


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def write(path: Path, content: Content) -> None:
    """Create one corpus file (or pipe, folder, link)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, Fifo):
        os.mkfifo(path)
    elif isinstance(content, Folder):
        path.mkdir()
    elif isinstance(content, Link):
        path.symlink_to(content.target)
    elif isinstance(content, Sparse):
        with path.open("wb") as fh:
            fh.write(content.head)
            fh.truncate(content.size)
    elif isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        content(path)


# ---- the corpus ----------------------------------------------------------------------------------------------

CHECK = ("check", "--no-history", "--out", "{d}/run")
DECIDE = ("decide", "--facts", "{d}/facts.json")
FACTS_OK = {"facts.json": GOOD_FACTS.read_bytes()}


def _urls() -> list[Case]:
    urls = {
        "ipv6-unclosed": "http://[::1:1", "ipv6-bracket-junk": "http://[::1]x:80", "ipv6-zone": "http://[fe80::1%25eth0]:80",
        "long-100k": "http://" + "a" * 100_000, "nul": "http://127.0.0.1:8080\x00", "crlf-header":
        "http://127.0.0.1:80\r\nHost: evil.com", "tab": "http://127.0.0.1\t:80", "zero-width": "http://\u200b127.0.0.1",
        "bidi": "http://127.0.0.1\u202e:80", "port-0": "http://127.0.0.1:0", "port-65536": "http://127.0.0.1:65536",
        "port-arabic-digits": "http://127.0.0.1:\u0668\u0660", "file-scheme": "file:///etc/passwd",
        "javascript": "javascript:alert(1)", "empty": "", "octal-loopback": "http://0127.0.0.1",
        "short-loopback": "http://127.1", "backslash-at": "http://127.0.0.1\\@evil.com", "query": "http://127.0.0.1:8080/?x=1",
        "double-at": "http://a@b@127.0.0.1", "remote": "http://192.168.1.10:8080", "loopback-suffix":
        "http://127.0.0.1.nip.io:8080", "localhost-suffix": "http://localhost.evil.com:80", "hex-loopback":
        "http://0x7f000001:80", "mapped-v6": "http://[::ffff:8.8.8.8]:80", "decimal-loopback": "http://2130706433:80",
    }
    cases = [Case(f"url-check-{k}", (*CHECK, "--engine-url", v), origin="10 url") for k, v in urls.items()]
    cases += [Case(f"url-probe-{k}", ("probe", "--no-scan", "--engine-url", urls[k]), origin="10 url")
              for k in ("ipv6-unclosed", "long-100k", "nul", "remote")]
    cases.append(Case("url-b-ipv6-unclosed", (*CHECK, "--engine-url", "http://127.0.0.1:1", "--engine-url-b",
                                              "http://[::1:1"), origin="10 url"))
    return cases


def _facts() -> list[Case]:
    bad: dict[str, Content] = {
        "inverted-ci": facts(ab__speedup=0.5, ab__ci_low=1.9, ab__ci_high=1.1),
        "point-above-ci": facts(ab__speedup=2.5),
        "enable-below-one": facts(ab__speedup=0.95, ab__ci_low=0.9, ab__ci_high=1.0),
        "skip-above-margin": facts(ab__decision="SKIP"),
        "rate-above-one": facts(acceptance__rate=1.7),
        "match-rate-above-one": facts(ab__outputs_match_rate=2.0),
        "negative-count": facts(ab__n_prompts=-4),
        "negative-speed": facts(baseline__decode_tok_s=-92.5),
        "acceptance-ci-order": facts(acceptance__rate_ci_low=0.9, acceptance__rate_ci_high=0.5),
        "pays-beyond-stops": facts(batch__pays_up_to=8, batch__stops_paying_at=4),
        "nan": GOOD_FACTS.read_text().replace("92.5", "NaN"),
        "infinity": GOOD_FACTS.read_text().replace("92.5", "Infinity"),
        "digits-5000": '{"ab.n_prompts": ' + "9" * 5000 + "}",
        "huge-exponent": '{"ab.speedup": 1e999999}',
        "deep-nesting": '{"gpu.name": ' + nested(100_000) + "}",
        "deep-objects": '{"a":' * 50_000 + "1" + "}" * 50_000,
        "latin1": '{"gpu.name": "GeForce caf\u00e9"}'.encode("latin-1"),
        "utf16": GOOD_FACTS.read_text().encode("utf-16"),
        "bom": "\ufeff" + GOOD_FACTS.read_text(),
        "fifo": Fifo(), "folder": Folder(), "dangling": Link("nowhere.json"),
        "list": "[1, 2, 3]", "string": '"facts"', "empty": "", "truncated": GOOD_FACTS.read_text()[:200],
        "unknown-name": '{"ab.speeedup": 1.2}', "wrong-type": '{"ab.n_prompts": "forty"}',
        "bool-as-int": '{"ab.n_prompts": true}', "int-as-bool": '{"model.moe": 1}',
        "big-file": '{"gpu.name": "' + "x" * (2 * 1024 * 1024) + '"}',
        "binary": bytes(range(256)) * 4,
        "duplicate-keys": '{"ab.ci_low": 1.33, "ab.ci_low": 9.0}',
    }
    cases = [Case(f"facts-{k}", DECIDE, {"facts.json": v}, origin="6" if i < 10 else "10 facts")
             for i, (k, v) in enumerate(bad.items())]
    cases.append(Case("facts-missing", DECIDE, origin="10 facts"))
    cases += [Case(f"report-facts-{k}", ("report", "--facts", "{d}/facts.json", "-o", "{d}/r.html"),
                   {"facts.json": bad[k]}, origin="6") for k in ("inverted-ci", "rate-above-one", "fifo")]
    return cases


def _evidence() -> list[Case]:
    runs: dict[str, Content] = {
        "gpus-5": run_with(_gpus_5), "ab-inverted": run_with(_ab_inverted), "ab-rate": run_with(_ab_rate),
        "ab-negative": run_with(_ab_negative), "steps-string": run_with(_steps_string),
        "schema-99": run_with(_schema_99),
    }
    files: dict[str, Content] = {
        "fifo": Fifo(), "list": "[]", "deep": nested(200_000), "digits": '{"schema_version": ' + "7" * 5000 + "}",
        "latin1": '{"status": "termin\u00e9"}'.encode("latin-1"), "empty": "",
    }
    cases: list[Case] = []
    for k, v in runs.items():
        origin = "6" if k.startswith("ab") else "10 evidence"
        cases.append(Case(f"evidence-decide-{k}", ("decide", "{d}/run"), {"run": v}, origin=origin))
        cases.append(Case(f"evidence-report-{k}", ("report", "{d}/run", "-o", "{d}/r.md"), {"run": v}, origin=origin))
        cases.append(Case(f"evidence-gui-{k}", ("gui", "--open", "{d}/run", "--screenshot", "{d}/s.png"),
                          {"run": v}, env={"QT_QPA_PLATFORM": "offscreen"}, origin=origin))
    for k, v in files.items():
        cases.append(Case(f"evidence-file-{k}", ("decide", "{d}/run/evidence.json"), {"run/evidence.json": v},
                          origin="9" if k == "fifo" else "10 evidence"))
    verdicts: dict[str, Content] = {
        "deep": nested(200_000), "fifo": Fifo(), "latin1": '"termin\u00e9"'.encode("latin-1")}
    for k, v in verdicts.items():
        cases.append(Case(f"verdict-gui-{k}", ("gui", "--open", "{d}/run", "--screenshot", "{d}/s.png"),
                          {"run": run_with(None), "run/verdict.json": v}, origin="10 evidence"))
    cases.append(Case("evidence-dir-fifo", ("report", "{d}/run"), {"run/evidence.json": Fifo()}, origin="9"))
    cases.append(Case("evidence-missing", ("decide", "{d}/nothing"), origin="10 evidence"))
    cases.append(Case("evidence-gui-missing", ("gui", "--open", "{d}/nothing", "--screenshot", "{d}/s.png"),
                      env={"QT_QPA_PLATFORM": "offscreen"}, origin="10 evidence"))
    return cases


def _safetensors(header: str) -> bytes:
    raw = header.encode()
    return len(raw).to_bytes(8, "little") + raw


def _gguf() -> list[Case]:
    sparse = {
        "array-2e60-strings": g.bare([g.array_head("tokenizer.ggml.tokens", g.STRING, 2**60)]),
        "array-2e60-u8": g.bare([g.array_head("tokenizer.ggml.scores", g.U8, 2**60)]),
        "array-16m-strings": g.bare([g.array_head("tokenizer.ggml.tokens", g.STRING, 2**24 + 1)]),
        "nested-2e40": g.bare([g.array_head("x.nested", g.ARRAY, 2**40)]),
        "dims-2e32": g.bare([], [g.s("t") + b"\xff\xff\xff\xff"]),
        "block-count-1e12": g.llama([g.u64("llama.block_count", 10**12)]),
        "n-kv-9999999": g.gguf([], n_kv=9_999_999),
        "n-tensors-9999999": g.gguf([], n_tensors=9_999_999),
        "key-length-2e62": g.gguf([], n_kv=1) + (2**62).to_bytes(8, "little"),
    }
    small: dict[str, Content] = {
        "alignment-string": g.llama([g.string("general.alignment", "sixty-four")]),
        "alignment-zero": g.llama([g.u32("general.alignment", 0)]),
        "alignment-odd": g.llama([g.u32("general.alignment", 7)]),
        "head-count-kv-string": g.llama([g.string("llama.attention.head_count_kv", "two")]),
        "head-count-string": g.llama([g.string("llama.attention.head_count", "two")]),
        "block-count-string": g.llama([g.string("llama.block_count", "one")]),
        "embedding-list-strings": g.llama([g.array_head("llama.embedding_length", g.STRING, 1) + g.s("8")]),
        "deep-nested-arrays": g.llama([g.array_head("x.deep", g.ARRAY, 1) + b"\x09\x00\x00\x00\x01" + b"\0" * 7
                                       + (b"\x09\x00\x00\x00" + b"\x01" + b"\0" * 7) * 200_000]),
        "unknown-value-type": g.llama([g.kv("x.odd", 99, b"")]),
        "bad-magic": b"GGUX" + b"\0" * 60, "version-99": g.gguf([], version=99), "short": b"GGUF\x03",
        "empty": b"", "text": "not a model\n", "fifo": Fifo(), "folder-without-config": Folder(),
        "dangling": Link("gone.gguf"), "truncated-tensor": g.llama([], [g.tensor("blk.0.w", (1 << 20, 1 << 10))]),
    }
    cases: list[Case] = []
    for k, head in sparse.items():
        cases.append(Case(f"gguf-probe-{k}", ("probe", "--no-scan", "--model", "{d}/m.gguf"), {"m.gguf": Sparse(head)},
                          origin="9"))
    for k, v in small.items():
        origin = "9" if k == "fifo" else "10 gguf"
        cases.append(Case(f"gguf-probe-{k}", ("probe", "--no-scan", "--model", "{d}/m.gguf"), {"m.gguf": v},
                          origin=origin))
    hf: dict[str, Mapping[str, Content]] = {
        "config-fifo": {"config.json": Fifo()}, "config-deep": {"config.json": nested(100_000)},
        "config-list": {"config.json": "[]"}, "config-latin1": {"config.json": '{"a": "\u00e9"}'.encode("latin-1")},
        "layers-1e12": {"config.json": '{"num_hidden_layers": 1000000000000, "hidden_size": 8}'},
        "quantization-list": {"config.json": '{"num_hidden_layers": 2, "hidden_size": 8, "quantization_config": [4]}'},
        "safetensors-header-2e63": {"config.json": "{}", "w.safetensors": (2**63).to_bytes(8, "little")},
        "safetensors-fifo": {"config.json": "{}", "w.safetensors": Fifo()},
        "safetensors-offsets-text": {"config.json": "{}",
                                     "w.safetensors": _safetensors('{"t": {"data_offsets": "ab"}}')},
    }
    for k, files in hf.items():
        cases.append(Case(f"hf-probe-{k}", ("probe", "--no-scan", "--model", "{d}/m"),
                          {f"m/{n}": c for n, c in files.items()}, origin="9" if "fifo" in k else "10 hf"))
    for k in ("array-2e60-strings", "block-count-1e12", "dims-2e32"):
        cases.append(Case(f"gguf-check-{k}", (*CHECK, "--model", "{d}/m.gguf"), {"m.gguf": Sparse(sparse[k])},
                          origin="9"))
    for k in ("fifo", "head-count-kv-string", "alignment-string"):
        cases.append(Case(f"gguf-check-{k}", (*CHECK, "--model", "{d}/m.gguf"), {"m.gguf": small[k]}, origin="9"))
        cases.append(Case(f"gguf-draft-{k}", (*CHECK, "--draft-model", "{d}/m.gguf"), {"m.gguf": small[k]},
                          origin="9"))
    return cases


def _rules() -> list[Case]:
    extra: dict[str, Mapping[str, Content]] = {
        "branch-string": {"x.toml": 'schema = 1\nid = "x"\nbranch = ["x"]\n'},
        "branch-table-not-list": {"x.toml": 'schema = 1\nid = "x"\nbranch = { id = "a" }\n'},
        "when-string": {"x.toml": 'schema = 1\nid = "x"\n[[branch]]\nid = "a"\nwhen = "all"\nverdict = "SKIP"\n'},
        "next-int": {"x.toml": 'schema = 1\nid = "x"\n[[branch]]\nid = "a"\nwhen.all = [["ab.measured", "is-true"]]\n'
                               'next = 5\n[[branch]]\nid = "b"\ndefault = true\nverdict = "SKIP"\n'},
        "thresholds-string": {"x.toml": 'schema = 1\nid = "x"\nthresholds = "x"\n'},
        "references-string": {"x.toml": 'schema = 1\nid = "x"\nreferences = "abc"\n[[branch]]\nid = "b"\n'
                                        'default = true\nverdict = "SKIP"\n'},
        "non-utf8": {"x.toml": b'schema = 1\nid = "\xff\xfe"\n'},
        "dangling-symlink": {"zz.toml": Link("missing.toml")},
        "fifo": {"zz.toml": Fifo()},
        "folder-named-toml": {"zz.toml": Folder()},
        "bad-toml": {"x.toml": "schema = 1\nid = \n"},
        "unknown-fact": {"x.toml": 'schema = 1\nid = "x"\n[[branch]]\nid = "a"\nwhen.all = [["ab.mesured", "is-true"]]'
                                   '\nverdict = "SKIP"\n[[branch]]\nid = "b"\ndefault = true\nverdict = "SKIP"\n'},
        "duplicate-id": {"zz.toml": (ROOT / "rules" / "root.toml").read_text()},
        "policy-typo": {"policy.toml": (ROOT / "rules" / "policy.toml").read_text() + "\n[ab]\nmin_sped = 1\n"},
        "policy-non-utf8": {"policy.toml": b"[ab]\nmin_speedup = \xff\n"},
        "deep-toml": {"x.toml": "a = " + "[" * 100_000 + "]" * 100_000 + "\n"},
    }
    cases = [Case(f"rules-dir-{k}", (*DECIDE, "--rules", "{d}/rules"), {**FACTS_OK, "rules": rules_with(v)},
                  origin="10 rules") for k, v in extra.items()]
    cases.append(Case("rules-dir-is-a-file", (*DECIDE, "--rules", "{d}/facts.json"), FACTS_OK, origin="10 rules"))
    cases.append(Case("rules-dir-missing", (*DECIDE, "--rules", "{d}/none"), FACTS_OK, origin="10 rules"))
    overrides: dict[str, Mapping[str, Content]] = {
        "threshold-typo": {"thresholds.toml": "[acceptance]\nmin_acceptance_rat = 0.4\n"},
        "threshold-wrong-type": {"thresholds.toml": '[acceptance]\nmin_acceptance_rate = "high"\n'},
        "threshold-unknown-rule": {"thresholds.toml": "[acceptanse]\nmin_acceptance_rate = 0.4\n"},
        "thresholds-non-utf8": {"thresholds.toml": b"[acceptance]\nmin_acceptance_rate = 0.4 # \xff\n"},
        "thresholds-dangling": {"thresholds.toml": Link("gone.toml")},
        "question-branch-string": {"x.toml": 'schema = 1\nid = "x"\nbranch = ["x"]\n'},
        "policy-typo": {"policy.toml": "[ab]\nmin_sped = 1.1\n"},
    }
    for k, v in overrides.items():
        files = {**FACTS_OK, **{f"cfg/rules/{n}": c for n, c in v.items()}}
        cases.append(Case(f"override-decide-{k}", DECIDE, files, origin="7"))
    for k in ("threshold-typo", "policy-typo", "question-branch-string"):
        files = {f"cfg/rules/{n}": c for n, c in overrides[k].items()}
        cases.append(Case(f"override-check-{k}", CHECK, files, origin="7", limit_s=20))
        cases.append(Case(f"override-rules-{k}", ("rules", "--tree"), files, origin="7"))
    return cases


def _suffix(key: str) -> str:
    return "jsonl" if key.endswith("jsonl") else "txt"


def _arguments() -> list[Case]:
    prompts: dict[str, Content] = {
        "fifo": Fifo(), "folder": Folder(), "empty": "", "blank-lines": "\n\n   \n",
        "latin1": "caf\u00e9\n".encode("latin-1"),
        "deep-jsonl": GOOD_JSONL + '{"prompt": ' + nested(100_000) + "}\n",
        "digits-jsonl": GOOD_JSONL + '{"prompt": ' + "1" * 5000 + "}\n",
        "number-jsonl": GOOD_JSONL + '{"prompt": 5}\n', "list-jsonl": GOOD_JSONL + "[1]\n",
        "binary": bytes(range(256)) * 16, "big": "x" * (MAX_PROMPT_FILE_BYTES + 1), "dangling": Link("gone.txt"),
    }
    # the suffix picks the format (.jsonl: one JSON object per line; else one prompt per line)
    cases = [Case(f"prompts-{k}", (*CHECK, "--prompts", f"{{d}}/p.{_suffix(k)}"), {f"p.{_suffix(k)}": v},
                  origin="10 prompts") for k, v in prompts.items()]
    cases.append(Case("prompts-missing", (*CHECK, "--prompts", "{d}/none.txt"), origin="10 prompts"))
    args = {
        "history-limit-huge": ("history", "--limit", "99999999999999999999999"),
        "history-limit-negative": ("history", "--limit", "-1"), "history-limit-text": ("history", "--limit", "many"),
        "history-compare-unknown": ("history", "--compare", "a", "b"),
        "temperature-nan": (*CHECK, "--temperature", "nan"), "temperature-inf": (*CHECK, "--temperature", "inf"),
        "temperature-negative": (*CHECK, "--temperature", "-1"),
        "concurrency-negative": (*CHECK, "--concurrency", "-3"), "concurrency-zero": (*CHECK, "--concurrency", "0"),
        "concurrency-huge": (*CHECK, "--concurrency", "1" + "0" * 30),
        "draft-max-negative": (*CHECK, "--draft-max", "-1"), "threads-zero": (*CHECK, "--threads", "0"),
        "draft-ctx-negative": (*CHECK, "--draft-ctx", "-5"),
        "draft-gpu-layers-text": (*CHECK, "--draft-gpu-layers", "x"),
        "steps-unknown": (*CHECK, "--steps", "baseline,warp"), "steps-empty": (*CHECK, "--steps", ","),
        "mix-unknown": (*CHECK, "--mix", "poetry=1"), "mix-negative": (*CHECK, "--mix", "code=-1"),
        "mix-nan": (*CHECK, "--mix", "code=nan"), "mix-garbage": (*CHECK, "--mix", "==,="),
        "resume-unknown": ("check", "--resume", "nope"),
        "out-is-a-file": ("check", "--no-history", "--out", "{d}/afile"),
        "out-under-a-file": ("check", "--no-history", "--out", "{d}/afile/run"),
        "out-unwritable": ("check", "--no-history", "--out", "/proc/spec-advisor-hostile/run"),
        "api-key-file-missing": (*CHECK, "--api-key-file", "{d}/none"),
        "api-key-file-fifo": (*CHECK, "--api-key-file", "{d}/fifo"),
        "api-key-file-empty": (*CHECK, "--api-key-file", "{d}/empty"),
        "llama-server-missing": (*CHECK, "--llama-server", "{d}/none"),
        "llama-server-not-executable": (*CHECK, "--llama-server", "{d}/afile"),
        "llama-server-fifo": (*CHECK, "--llama-server", "{d}/fifo"),
        "model-missing": (*CHECK, "--model", "{d}/none.gguf"),
        "draft-model-missing": (*CHECK, "--draft-model", "{d}/none.gguf"),
        "decide-port-huge": (*DECIDE, "--port", "99999"), "decide-port-negative": (*DECIDE, "--port", "-1"),
        "decide-host-newline": (*DECIDE, "--format-flags", "systemd", "--host", "127.0.0.1\nExecStartPre=/bin/sh"),
        "decide-manifest-missing": (*DECIDE, "--format-flags", "llmkube", "--manifest", "{d}/none.yaml"),
        "decide-manifest-fifo": (*DECIDE, "--format-flags", "llmkube", "--manifest", "{d}/fifo"),
        "report-format-unknown": ("report", "--facts", "{d}/facts.json", "--format", "pdf"),
        "gui-screenshot-missing-folder": ("gui", "--screenshot", "{d}/no/such/folder/s.png"),
        "unknown-command": ("frobnicate",), "unknown-option": ("decide", "--frobnicate"),
    }
    common: dict[str, Content] = {**FACTS_OK, "afile": "x", "fifo": Fifo(), "empty": ""}
    cases += [Case(f"args-{k}", v, common, env={"QT_QPA_PLATFORM": "offscreen"} if k.startswith("gui") else {},
                   origin="10 args") for k, v in args.items()]
    # A session error (no engine answers on port 1) must reach stderr, not stdout.
    cases.append(Case("session-error-on-stderr", (*CHECK, "--engine-url", "http://127.0.0.1:1"), origin="10 session"))
    pipes = {"rules-tree": ("rules", "--tree"), "decide": DECIDE, "help": ("--help",), "history": ("history",),
             "decide-json": (*DECIDE, "--json"), "report-stdout": ("report", "--facts", "{d}/facts.json")}
    cases += [Case(f"pipe-{k}", v, FACTS_OK, expect="quiet", broken_pipe=True, origin="10 pipe")
              for k, v in pipes.items()]
    return cases


def corpus() -> list[Case]:
    """Every case, in a stable order; ids are unique."""
    from tests.hostile_cases25 import cases as issue25

    cases = [*_urls(), *_facts(), *_evidence(), *_gguf(), *_rules(), *_arguments(), *issue25(Case)]
    ids = [c.id for c in cases]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    return cases


def prepare(case: Case, root: Path) -> dict[str, Any]:
    """Create the case's folder and files; the driver's job description."""
    d = root / case.id
    d.mkdir(parents=True)
    for name, content in case.files.items():
        write(d / name, content)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(d), "LANG": "C.UTF-8",
           "PYTHONPATH": os.environ.get("PYTHONPATH", ""), "SPEC_ADVISOR_DATA_DIR": str(d / "data"),
           "SPEC_ADVISOR_CONFIG_DIR": str(d / "cfg"), "QT_QPA_PLATFORM": "offscreen", **case.env}
    argv = [a.replace("{d}", str(d)) for a in case.argv]
    return {"id": case.id, "argv": argv, "dir": str(d), "env": env, "broken_pipe": case.broken_pipe,
            "limit_s": case.limit_s, "unchanged": {rel: digest(d / rel) for rel in case.unchanged}}


def judge(case: Case, result: Mapping[str, Any]) -> str:
    """'' when the result is what the case expects, else why not (one line)."""
    err, out = str(result["stderr"]), str(result["stdout"])
    if result["timed_out"]:
        return f"still running after {result['seconds']:.0f} s (killed)"
    if changed := result.get("changed"):
        return f"overwrote what it must keep: {', '.join(changed)}"
    if "Traceback" in err or "Traceback" in out:
        return "traceback: " + err.strip().splitlines()[-1][:200] if err.strip() else "traceback on stdout"
    if case.expect == "quiet":
        if result["rc"] not in (0, 141) or err.strip():
            return f"rc {result['rc']}, stderr {err.strip()[:200]!r}"
        return ""
    if result["rc"] != 2:
        return f"rc {result['rc']} (expected 2); stderr {err.strip()[-200:]!r}"
    lines = err.rstrip("\n").splitlines()
    if not lines or not lines[0].startswith("spec-advisor: "):
        return f"stderr does not start with 'spec-advisor: ': {err[:200]!r}"
    # one message line; a hint may follow, and a hint that is a menu (no engine found) continues indented
    if len(lines) > 1 and not (lines[1].startswith("  hint: ") and all(x.startswith("    ") for x in lines[2:])):
        return f"{len(lines)} lines on stderr: {err[:300]!r}"
    if "Check failed" in out:
        return "the error went to stdout"
    return ""


if __name__ == "__main__":  # pragma: no cover - list the corpus
    for c in corpus():
        print(c.origin.ljust(12), c.id, file=sys.stdout)
