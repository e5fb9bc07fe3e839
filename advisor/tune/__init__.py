"""The tuner: predict the fastest speculation settings from a few measurements, then prove them."""
