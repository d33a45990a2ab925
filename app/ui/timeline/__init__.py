"""The run's timeline: a list model of items built from the agent's history, painted as cards."""
