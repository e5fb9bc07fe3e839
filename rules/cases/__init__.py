"""Example fact sets per rule file: each `[[case]]` names the branch it must reach (tests/test_rules_cases.py)."""
