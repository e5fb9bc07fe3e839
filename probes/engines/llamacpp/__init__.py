"""llama.cpp: the `llama-server` HTTP adapter and the binary's flag dialect."""
