"""Read a JSON file a user named, with bounds: apart from `io.py` so a `--facts` file is read without
importing the evidence schema (most of the package; `spec-advisor decide --facts` starts faster without it)."""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path
from typing import Any

from advisor.evidence.codec import EvidenceError

EVIDENCE_FILE = "evidence.json"
# A quick check writes ~100 KB and a full one a few MB; far larger is not an evidence file.
MAX_EVIDENCE_BYTES = 64 * 1024 * 1024


def read_json_file(path: Path, *, what: str, max_bytes: int = MAX_EVIDENCE_BYTES) -> Any:
    """Parse a JSON file the user named: a regular file of bounded size, UTF-8, not absurdly nested."""
    try:
        info = path.stat()
    except OSError as exc:
        raise EvidenceError(f"cannot read {path}: {exc.strerror or exc}",
                            hint=f"pass a run folder, its {EVIDENCE_FILE}, or --facts FILE.json") from exc
    if not stat.S_ISREG(info.st_mode):
        raise EvidenceError(f"{path} is not a regular file (a pipe or device cannot hold {what})")
    if info.st_size > max_bytes:
        raise EvidenceError(f"{path} is {info.st_size / 1e6:.0f} MB; {what} is far smaller")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise EvidenceError(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise EvidenceError(f"cannot read {path}: {exc.strerror or exc}") from exc
    try:
        return without_lone_surrogates(json.loads(text, object_pairs_hook=_unique_keys))
    except json.JSONDecodeError as exc:
        raise EvidenceError(f"{path} is not valid JSON: {exc}") from None
    except _DuplicateKey as exc:
        raise EvidenceError(f"{path} names {exc} twice in one object; which value is meant?") from None
    except RecursionError:
        raise EvidenceError(f"{path} is not usable JSON: nested too deeply") from None
    except ValueError:  # Python refuses integers of more than 4300 digits
        raise EvidenceError(f"{path} is not usable JSON: a number has thousands of digits") from None


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # json decodes a valid pair into one character: any left is lone


def _clean(text: str) -> str:
    return text if text.isascii() else _LONE_SURROGATE.sub("\ufffd", text)


def without_lone_surrogates(doc: Any) -> Any:
    """`doc` with every lone surrogate (`"\\udcff"` is valid JSON, but no UTF-8 file, terminal or database can
    hold it) in its strings and keys replaced by U+FFFD; containers are edited in place, without recursion."""
    if isinstance(doc, str):
        return _clean(doc)
    stack = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key in [k for k in node if isinstance(k, str) and not k.isascii()]:
                node[_clean(key)] = node.pop(key)
            items = node.items()
        elif isinstance(node, list):
            items = enumerate(node)  # type: ignore[assignment]
        else:
            continue
        for key, value in list(items):
            if isinstance(value, str):
                node[key] = _clean(value)
            elif isinstance(value, dict | list):
                stack.append(value)
    return doc


class _DuplicateKey(Exception):
    """A JSON object names one key twice (json.loads would silently keep the last)."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(repr(key[:80]))
        out[key] = value
    return out
