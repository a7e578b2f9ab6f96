"""A real MCP server for the tests (built with the `mcp` package), run as a subprocess."""
