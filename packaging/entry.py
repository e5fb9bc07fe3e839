"""Entry script of the frozen app: the same `main` as the `spec-advisor` console script."""

from __future__ import annotations

import multiprocessing
import sys

from advisor.cli.main import main

if __name__ == "__main__":
    multiprocessing.freeze_support()  # harmless on Linux; needed if any library spawns workers on Windows
    sys.exit(main())
