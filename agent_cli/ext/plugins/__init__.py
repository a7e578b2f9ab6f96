"""Claude Code plugins and marketplaces (issue 51). Placeholder for imports: the STORE helper
owns this file and defines the extension here."""
