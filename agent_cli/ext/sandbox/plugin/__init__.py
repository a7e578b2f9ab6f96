"""How the sandbox plugs into the agent: the bash tool's shell wrapper (`wrapper`, with what
one command holds in `command`), the run's service (`service`: the status bar, the notice at
the start) and `/sandbox` (`chat`)."""
