"""Model-file probes: the GGUF header reader, Hugging Face configs, bytes read per token."""
