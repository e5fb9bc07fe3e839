"""The one style of every `--json` on stdout: an object with `schema_version` first, two-space indent,
UTF-8 as written (no \\u escapes, so Chinese stays readable), strict JSON (NaN → null), a final newline.

`schema_version` versions the command's output shape (bumped when a key changes meaning or goes away; new
keys may appear without a bump). A command whose answer is a list wraps it under a named key.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, TextIO

from advisor.evidence.jsonsafe import json_safe

CLI_JSON_SCHEMA_VERSION = 1


def dumps(payload: Mapping[str, Any]) -> str:
    """`payload` with `schema_version` in front, as the text every command prints."""
    body = {"schema_version": CLI_JSON_SCHEMA_VERSION, **{k: v for k, v in payload.items() if k != "schema_version"}}
    return json.dumps(json_safe(body), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def dump(payload: Mapping[str, Any], out: TextIO) -> None:
    """Write `dumps(payload)` to `out`."""
    out.write(dumps(payload))
