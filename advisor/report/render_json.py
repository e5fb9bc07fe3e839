"""The canonical report as JSON text (what `--format json` writes and the HTML embeds)."""

from __future__ import annotations

import json

from advisor.report.model import report_json
from advisor.report.tree import Report


def render_json(report: Report) -> str:
    """Pretty, stable JSON (UTF-8, key order as built) ending in a newline."""
    return json.dumps(report_json(report), ensure_ascii=False, indent=2, allow_nan=False) + "\n"


def script_safe_json(report: Report) -> str:
    """Compact JSON that is safe inside `<script type="application/json">`.

    `<`, `>` and `&` become \\u003c-style escapes so `</script>` or `<!--` in any string cannot end
    or alter the element; U+2028/2029 are escaped because older JavaScript parsers treat them as
    line ends. `JSON.parse` and `json.loads` read the escapes back to the same text.
    """
    text = json.dumps(report_json(report), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for raw, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                         ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(raw, escaped)
    return text
