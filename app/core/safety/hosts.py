"""Host patterns, shared by the allowed sites and by secrets limited to sites.

``example.com`` matches that host only; ``*.example.com`` its subdomains (not example.com itself); either may end in
``:port``, and without one any port matches. A URL without a port has its scheme's default port (80, 443).
"""

from __future__ import annotations

from urllib.parse import urlsplit

_DEFAULT_PORTS = {"http": 80, "https": 443}


def url_host_port(url: str) -> tuple[str, int | None]:
    """The host (lower case, no trailing dot) and the effective port of ``url``; ("", None) when it has no host."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:  # a malformed port ("host:abc") or address
        return "", None
    host = (parts.hostname or "").rstrip(".").lower()
    if not host:
        return "", None
    return host, port if port is not None else _DEFAULT_PORTS.get(parts.scheme.lower())


def host_matches(host: str, port: int | None, pattern: str) -> bool:
    """Whether ``host`` (with its effective ``port``) is one that ``pattern`` names."""
    pattern = pattern.strip().lower()
    name, _, wanted_port = pattern.partition(":")
    if wanted_port and (port is None or not wanted_port.isdigit() or int(wanted_port) != port):
        return False
    host = host.rstrip(".").lower()
    if name.startswith("*."):
        return host.endswith(name[1:])
    return bool(host) and host == name


def url_matches(url: str, patterns: tuple[str, ...] | list[str]) -> bool:
    """Whether ``url``'s host is named by any of ``patterns``."""
    host, port = url_host_port(url)
    return bool(host) and any(host_matches(host, port, pattern) for pattern in patterns)
