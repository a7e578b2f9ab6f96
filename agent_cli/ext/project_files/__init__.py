"""The project files users already have: slash commands, subagent types, Agent Skills and hooks
written for Claude Code (`.claude/`, `.agents/`, `.agent/`), read as they are."""
