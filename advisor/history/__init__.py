"""The history database: SQLite schema, the run store and comparisons between runs."""
