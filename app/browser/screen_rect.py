"""A place on the screen, in pixels: where the panel and Chromium's window go, and the room a screen leaves them.
Imports nothing, so the panel places its windows before Playwright is loaded."""

ScreenRect = tuple[int, int, int, int]  # x, y, width, height
