"""The performance model: roofline, verify cost, and the speedup prediction."""
