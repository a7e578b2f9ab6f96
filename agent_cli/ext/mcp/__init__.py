"""MCP servers: configuration, trust, background connections, and their tools, prompts and
resources. Only `connection.py` imports the `mcp` package, and only once a server starts."""
