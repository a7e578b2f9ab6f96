"""Subagents: the runner of `task` and the structured notes they hand back."""
