"""Run history: every run is kept (tasks, events, outcome, settings without secrets), listed, reopened, exported."""
