"""Git worktrees for parallel sessions: create(base, name) -> record, diff, check, remove."""
