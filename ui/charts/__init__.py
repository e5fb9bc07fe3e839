"""Live charts, one per measurement (plus GPU telemetry), fed by session events and redrawn on a timer."""
