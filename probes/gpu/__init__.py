"""GPU probes over NVML: a one-shot report and a ~10 Hz sampler."""
