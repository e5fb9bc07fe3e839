"""The bottom layer every stage may import: the policy numbers and the shared names (did-you-mean hints)."""
