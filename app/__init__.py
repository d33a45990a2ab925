"""Page Agent Desktop. Its version is set here, once: the wheel, the frozen app, ``--version`` and About read it."""

__version__ = "0.1.0"
HOMEPAGE = "https://github.com/page-agent-desktop/page-agent-desktop"
LICENSE = "MIT"
