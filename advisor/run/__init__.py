"""Running a check: the session, its two arms (managed or attached servers), environment, plan, recorder."""
