"""The outer bounds a run may be given. Their own module, free of pydantic, because the command line checks them
while it is parsed, before the heavier modules of a run are imported."""

# The longest time budget a run may be given (a day): beyond it a number is a typo, not a plan.
MAX_DURATION_LIMIT = 86_400.0
MAX_STEPS_LIMIT = 500
# A routine's limits before it asks (app/routine/cost.py): model calls, and money in the model's price's currency.
MAX_ROUTINE_CALLS = 1_000_000
MAX_ROUTINE_COST = 100_000
# A model's price per million tokens, as the person may give it.
MAX_TOKEN_PRICE = 10_000
