"""Errors a user can fix. The CLI prints their message as one line and exits with code 2."""

from __future__ import annotations


class UsageError(Exception):
    """Bad input that the user can fix: the message says what to change, in one line."""
