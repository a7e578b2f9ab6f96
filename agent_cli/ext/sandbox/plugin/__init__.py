"""How the sandbox plugs into the agent: the bash tool's shell wrapper (`wrapper`, with what
one command holds in `command`) and `/sandbox` (`chat`); the run's service (the status bar, the
notice at the start) is the extension's own (its __init__)."""
