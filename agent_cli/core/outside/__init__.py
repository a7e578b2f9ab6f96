"""The one gate for what the agent itself starts outside the sandbox.

Hooks, checks, language and MCP servers, formatters, the status line, the agent's own git calls
and its helpers are started through `spawn` (nowhere else in `agent_cli/` calls `subprocess` or
`os.exec*`: tests/unit/test_architecture.py holds that line), with an environment from `env`
(the user's, less credentials), git neutralised by `git`, and programs and paths looked up by
`paths` without following anything the workspace could have planted. A confined command may
write anything in the workspace; nothing it wrote may run here later unless the user trusted it.
"""
