"""Paired A/B: value types, the group-sequential rule, guards, the decision and its simulation."""
