"""Run: schedule an experiment's games and write their records. The runner, playing a game here,
in worker processes or on Ray, resuming a run, and the checks before anything is spent."""
