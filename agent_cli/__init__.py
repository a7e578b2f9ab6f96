"""agent: a terminal coding agent driven by Claude."""

__version__ = "0.1.0"
