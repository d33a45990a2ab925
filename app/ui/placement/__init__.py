"""Where the windows go: the panel and Chromium side by side (and kept tiled as the person moves the panel), the
panel's place remembered, the windows opened beside it, and every window kept inside its screen."""
