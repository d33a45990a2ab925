"""Where the panel's log goes: warnings on stderr, and a small rotating file a user can attach to a bug report.

Nothing here logs secrets by itself; modules log exception types and plain messages, never keys or headers.
"""

from __future__ import annotations

import logging
from logging.handlers import RotatingFileHandler
from pathlib import Path

LOG_FILE = "page-agent.log"
_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def configure_logging(log_dir: Path) -> Path | None:
    """Set up the root logger; returns the log file, or None when the folder cannot be written."""
    root = logging.getLogger()
    root.setLevel(logging.INFO)
    console = logging.StreamHandler()
    console.setLevel(logging.WARNING)
    console.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root.addHandler(console)
    try:
        log_dir.mkdir(parents=True, exist_ok=True)
        file = RotatingFileHandler(log_dir / LOG_FILE, maxBytes=1_000_000, backupCount=2, encoding="utf-8")
    except OSError as exc:
        root.warning("no log file in %s: %s", log_dir, exc)
        return None
    file.setFormatter(logging.Formatter(_FORMAT))
    root.addHandler(file)
    # Third-party chatter (HTTP request lines) is not useful to a user and can be long.
    for noisy in ("httpx", "httpcore", "openai", "asyncio"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    return log_dir / LOG_FILE
