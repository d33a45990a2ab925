"""The outer bounds a run may be given. Their own module, free of pydantic, because the command line checks them
while it is parsed, before the heavier modules of a run are imported."""

# The longest time budget a run may be given (a day): beyond it a number is a typo, not a plan.
MAX_DURATION_LIMIT = 86_400.0
MAX_STEPS_LIMIT = 500
