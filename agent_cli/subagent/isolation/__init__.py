"""Isolated subagents: a worktree each, their diffs brought back together (issue 34)."""
