"""Bundled prompt library: one JSONL file per category, read with importlib.resources."""
