"""The embedded demo: its model, synthesised test models, the engine self-check and first-run help."""
