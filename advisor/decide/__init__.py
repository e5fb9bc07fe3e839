"""From facts to a verdict: the rule loader, the Kleene evaluator, invariants and reconciliation."""
