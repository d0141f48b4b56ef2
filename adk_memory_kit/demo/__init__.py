"""``adk-memory-kit demo``: the kit end to end, offline, on the embedded default."""
