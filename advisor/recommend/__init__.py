"""Engine settings for a verdict: flags per engine family and llama.cpp dialect, and alternatives."""
