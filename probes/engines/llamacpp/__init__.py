"""llama.cpp: the `llama-server` HTTP adapter, the binary's flag dialect and its devices."""
