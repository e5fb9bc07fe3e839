"""Cluster checks on LLMKube: read an InferenceService, plan the arms (a twin or sequential windows),
measure through the usual pipeline, and restore everything."""
