"""Gatherers that observe the GPU, host, model file and engines; they never decide.

Nothing in this package imports `advisor` or `ui` (enforced by tests/project/test_boundaries.py).
"""
