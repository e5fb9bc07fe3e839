"""Gatherers that observe the GPU, host, model file and engines; they never decide.

Nothing in this package imports `advisor` or `ui` (enforced by tests/test_boundaries.py).
"""
