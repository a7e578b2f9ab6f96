"""What later sessions can find: the sqlite index of notes (and, later, episodes)."""
