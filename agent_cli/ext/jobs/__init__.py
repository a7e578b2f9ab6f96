"""Background shells: jobs the model starts (or a long command moved off the turn), each in its
own process group with its output in a file, never outliving the agent unless the user keeps one."""
