"""Facts, the public contract of `decide`: their specs, and evidence flattened into them."""
