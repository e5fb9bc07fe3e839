"""Where spec-advisor reads and writes: platformdirs folders, each overridable by an environment variable."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP = "spec-advisor"
DATA_DIR_ENV = "SPEC_ADVISOR_DATA_DIR"      # history database and runs
CONFIG_DIR_ENV = "SPEC_ADVISOR_CONFIG_DIR"  # rule overrides and settings


def data_dir() -> Path:
    """`$SPEC_ADVISOR_DATA_DIR` or the platform's user data folder."""
    override = os.environ.get(DATA_DIR_ENV)
    return Path(override) if override else Path(platformdirs.user_data_dir(APP))


def config_dir() -> Path:
    """`$SPEC_ADVISOR_CONFIG_DIR` or the platform's user config folder."""
    override = os.environ.get(CONFIG_DIR_ENV)
    return Path(override) if override else Path(platformdirs.user_config_dir(APP))


def runs_dir() -> Path:
    """Default parent folder of run folders (one per check)."""
    return data_dir() / "runs"
