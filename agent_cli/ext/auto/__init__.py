"""Auto mode (issue 54)."""
