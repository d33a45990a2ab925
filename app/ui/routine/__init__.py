"""The panel's Routine mode: one task over every row of a spreadsheet (the engine is app/routine)."""
