"""The evidence a check writes: its typed schema and its load/save."""
