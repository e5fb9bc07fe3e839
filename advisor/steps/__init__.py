"""The measurement steps: preflight, baseline, acceptance, verify cost, tuner, concurrency and the A/B, one
file each."""
