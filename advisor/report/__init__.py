"""Turning one run folder into a report: the canonical report JSON, then Markdown, HTML and JSON, in English
and Chinese."""
