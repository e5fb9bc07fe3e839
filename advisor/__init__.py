"""spec-advisor core: sessions, steps, statistics, facts, decisions and reports (no Qt here)."""

__version__ = "0.1.0"
