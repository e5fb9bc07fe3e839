"""Arms and servers: how the speculation-off and -on measurements reach an engine (below the steps)."""
