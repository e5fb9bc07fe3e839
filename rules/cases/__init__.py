"""Example fact sets per rule file: each `[[case]]` names the branch it must reach
(tests/advisor/decide/test_rules_cases.py)."""
