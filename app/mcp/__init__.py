"""``page-agent-desktop mcp``: the agent as a Model Context Protocol server, at the level of tasks and routines.

The client hands over a task and reads its outcome; it never reaches the page, the secrets, the allowed sites or
the person's Allow/Cancel. Imported only by that command (the SDK takes a while to import).
"""
