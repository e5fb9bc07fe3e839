"""Running a check: the session, its environment, the prompt plan, the recorder, the ETA and fault handling."""
