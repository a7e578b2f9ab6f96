"""The warm per-user process: it has imported the SDK and the agent once, and forks one child
per `agent run`, which runs exactly the in-process code path with the client's descriptors,
working directory, environment and umask. Standard library only until a child is forked."""
