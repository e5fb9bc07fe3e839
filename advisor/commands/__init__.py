"""CLI subcommands, one module each.

Each module defines `NAME: str`, `HELP: str`, `configure(parser) -> None` and `run(args) -> int`.
`advisor.cli` discovers them, so adding a command never edits a shared list.
"""
