"""Core: what every layer may use. The transcript and its seats, errors, seeded random streams,
the plugin registry, prompt templates, redaction of secrets and the format-2 seat names.

Nothing here imports another folder of the package."""
