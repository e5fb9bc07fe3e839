"""Engine adapters over one HTTP layer: llama.cpp (with its flag dialect), vLLM, SGLang, LM Studio, Ollama and TGI."""
