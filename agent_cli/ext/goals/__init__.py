"""Done means proven: the evidence ledger (commands with exit codes, edits in order) and the
claims checker that marks an answer's "tests pass" as verified only on a run after the last edit."""
