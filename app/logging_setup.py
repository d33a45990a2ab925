"""Where every face's log goes (the panel, the command line, the MCP server): warnings to the face's own console
(stderr, or the command line's events), and a small rotating file a user can attach to a bug report.

Modules log exception types and plain messages, never keys or headers; and every handler masks, through
SECRETS_FILTER, what an exception or a page might still carry: the values of every live secret vault and the API keys.
"""

from __future__ import annotations

import io
import logging
import os
from logging.handlers import RotatingFileHandler
from pathlib import Path

from app.browser.private_files import FILE_MODE, private_folder
from app.core.safety.secrets import mask_everywhere

LOG_FILE = "page-agent.log"
_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class SecretsFilter(logging.Filter):
    """Masks a record's message, arguments, traceback and stack before any handler formats it.

    On the handlers, not on a logger: a logger's filters do not see the records its children propagate.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed log call must not raise at the caller
            message = f"{record.msg} {record.args!r}"
        record.msg = mask_everywhere(message)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = mask_everywhere(record.exc_text)
        if record.stack_info:
            record.stack_info = mask_everywhere(record.stack_info)
        return True


SECRETS_FILTER = SecretsFilter()


class _PrivateFileHandler(RotatingFileHandler):
    """The log tells what the user did on which sites: for their eyes only, like the browser profile. Every file it
    opens (the first, each one after a rollover, one left by an older version) is the owner's only."""

    def _open(self) -> io.TextIOWrapper:
        fd = os.open(self.baseFilename, os.O_WRONLY | os.O_CREAT | os.O_APPEND, FILE_MODE)
        os.fchmod(fd, FILE_MODE)
        return os.fdopen(fd, "a", encoding=self.encoding, errors=self.errors)


_installed: list[logging.Handler] = []


def configure_logging(log_dir: Path, console: logging.Handler | None = None) -> Path | None:
    """Set up the root logger: warnings to ``console`` (plain lines on stderr by default), everything from INFO up
    in the log file. Returns the log file, or None when the folder cannot be written. Called again, it replaces what
    it set up before."""
    root = logging.getLogger()
    for handler in _installed:
        root.removeHandler(handler)
        handler.close()
    _installed.clear()
    root.setLevel(logging.INFO)
    if console is None:
        console = logging.StreamHandler()
        console.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    console.setLevel(logging.WARNING)
    console.addFilter(SECRETS_FILTER)
    _install(console)
    # Third-party chatter (HTTP request lines, the MCP SDK's and the web server's per-request lines) is not useful
    # to a user and can be long. qasync logs the arguments and results of work handed to threads at DEBUG: a keyring
    # read returns a key.
    for noisy in ("httpx", "httpcore", "openai", "asyncio", "qasync", "mcp", "uvicorn", "sse_starlette"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    try:
        private_folder(log_dir)
        file = _PrivateFileHandler(
            log_dir / LOG_FILE, maxBytes=1_000_000, backupCount=2, encoding="utf-8", errors="backslashreplace"
        )  # a lone surrogate from a page must not lose the line
    except OSError as exc:
        root.warning("no log file in %s: %s", log_dir, exc)
        return None
    file.setFormatter(logging.Formatter(_FORMAT))
    file.addFilter(SECRETS_FILTER)
    _install(file)
    return log_dir / LOG_FILE


def _install(handler: logging.Handler) -> None:
    logging.getLogger().addHandler(handler)
    _installed.append(handler)
