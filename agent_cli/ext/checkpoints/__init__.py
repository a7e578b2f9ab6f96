"""Checkpoints: a snapshot of the workspace at the start of every turn, kept in a git directory
of the agent's own (never the user's), and the rewinds that put code and conversation back."""
