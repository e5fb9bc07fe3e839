"""The desktop app (PySide6 + pyqtgraph), one module per view or widget: it watches a session's events and
draws them, and never decides."""
