"""Words the user reads, in their language: translations and plain descriptions of what the agent does (no Qt)."""
