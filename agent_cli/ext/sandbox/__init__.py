"""Confinement of shell commands (SPEC §5, §12): `wrap(argv, policy)` is the one entry point."""
