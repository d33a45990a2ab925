"""The command line: ``run`` (one task, or a routine over rows) and its terminal, headless or headed."""
