"""`agent batch`: many one-shot runs, each in its own worktree or clone, on this machine or Ray."""
