"""Secrets made at the moment of typing: one-time codes from a setup key, and password managers' entries."""
