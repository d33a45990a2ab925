"""Where model-driven navigation may go: http(s) only (and about:blank), and, when set, only the allowed hosts.

Host patterns: ``example.com`` is that host only; ``*.example.com`` is example.com itself and every host under it (a
person who writes "*.example.com" means the site, and the bare apex is where most sites start); ``:port`` limits
either to one port (the scheme's default port when a URL names none). Hosts are compared the way Chromium resolves
them: case-folded, IDN in punycode, one trailing dot dropped, IPv6 literals in their short form, userinfo ignored.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

_WEB_SCHEMES = {"http": 80, "https": 443}
_BLANK = "about:blank"
# Only the page's own content can sit in a frame under these: an about:srcdoc or a data:/blob: document it made.
_OWN_CONTENT_SCHEMES = ("about", "data", "blob")
_SCHEME = re.compile(r"^([a-z][a-z0-9+.-]*):", re.IGNORECASE)
_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")
_IPV4 = re.compile(r"^[0-9]+(\.[0-9]+){3}$")
# WHATWG URL parsing drops these anywhere in a URL and trims C0 controls and spaces at either end.
_DROPPED = re.compile(r"[\t\n\r]")
_TRIMMED = "".join(map(chr, range(0x21)))
# The URL parser reads a host whose last label is a number (decimal or 0x hex) as an IPv4 address.
_NUMBER = re.compile(r"^(0x[0-9a-f]*|[0-9]+)$")
_HINT = "Write names like example.com or *.example.com (optionally with :port), without http:// or a path."


@dataclass(frozen=True)
class HostPattern:
    host: str  # canonical: lower-case, punycode, no trailing dot; an IP address in its standard form
    subdomains: bool  # "*.": the host itself and every host under it
    port: int | None  # None: any port

    def matches(self, host: str, port: int) -> bool:
        if self.port is not None and self.port != port:
            return False
        return host == self.host or (self.subdomains and host.endswith("." + self.host))

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return ("*." if self.subdomains else "") + host + (f":{self.port}" if self.port is not None else "")


def parse_pattern(text: str) -> HostPattern:
    """One host pattern; ValueError, in words for the person who typed it, when it is not one."""
    raw = text.strip().lower()
    bad = ValueError(f'"{text.strip()}" is not a site name. {_HINT}')
    subdomains = raw.startswith("*.")
    rest = raw[2:] if subdomains else raw
    if rest.startswith("["):
        match = re.fullmatch(r"\[([0-9a-f:.]+)\](?::([0-9]{1,5}))?", rest)
        if match is None or ":" not in match.group(1):
            raise bad
        host_text, port_text = match.group(1), match.group(2)
    else:
        host_text, colon, port_text = rest.partition(":")
        if colon and not re.fullmatch(r"[0-9]{1,5}", port_text):
            raise bad
    host = _canonical_host(host_text)
    if host is None:
        raise bad
    port = int(port_text) if port_text else None
    if port is not None and not 1 <= port <= 65535:
        raise ValueError(f'"{text.strip()}": {port} is not a port number (1 to 65535).')
    if subdomains and (_is_ip(host) or "." not in host):
        raise ValueError(f'"{text.strip()}" is too broad: "*." needs a site name such as *.example.com.')
    return HostPattern(host, subdomains, port)


def parse_domains(text: str) -> list[str]:
    """Host patterns from what a person typed (commas, spaces or lines between them); ValueError names a bad one."""
    return [str(parse_pattern(part)) for part in re.split(r"[,\s]+", text) if part.strip()]


@dataclass(frozen=True)
class NavigationPolicy:
    # Host patterns: "example.com" (that host only), "*.example.com" (it and its subdomains), optionally ":port".
    # Empty: any http(s) site. A bad pattern raises ValueError here, so a policy that exists is a valid one.
    allowed_domains: tuple[str, ...] = ()
    _patterns: tuple[HostPattern, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_patterns", tuple(parse_pattern(p) for p in self.allowed_domains))

    @property
    def restricted(self) -> bool:
        """Whether only some sites are allowed (and the browser must route navigations to enforce it)."""
        return bool(self._patterns)

    def check(self, url: str) -> str | None:
        """None when ``url`` may be opened in a tab; otherwise the reason, in words the model can act on."""
        text = _DROPPED.sub("", url).strip(_TRIMMED)
        scheme_match = _SCHEME.match(text)
        scheme = scheme_match.group(1).lower() if scheme_match else ""
        if scheme == "about" and text.lower() == _BLANK:
            return None
        if scheme not in _WEB_SCHEMES:
            what = f"{scheme}: addresses are" if scheme else "an address without http:// or https:// is"
            return f"only http(s) web pages can be opened; {what} not allowed."
        return self._check_host(text, scheme)

    def check_frame(self, url: str) -> str | None:
        """Like ``check``, for a frame inside a page: it may also hold the page's own about:/data:/blob: content."""
        scheme_match = _SCHEME.match(url.strip())
        if scheme_match and scheme_match.group(1).lower() in _OWN_CONTENT_SCHEMES:
            return None
        return self.check(url)

    def _check_host(self, text: str, scheme: str) -> str | None:
        try:
            found = _web_host(text, scheme)
        except ValueError:
            return "the address is not a valid URL (its host or port cannot be read)."
        if found is None:
            return "the address has no valid host name."
        host, port, given_port = found
        if not self._patterns or any(p.matches(host, port) for p in self._patterns):
            return None
        shown = (f"[{host}]" if ":" in host else host) + (f":{given_port}" if given_port else "")
        allowed = ", ".join(str(p) for p in self._patterns)
        return f"{shown} is not among the allowed sites ({allowed}); only those sites can be opened."


# A site a task names: a web address, or a bare host name with a dot ("crm.example.com", "127.0.0.1:8080"); never
# the domain of an e-mail address.
_NAMED_SITE = re.compile(r"(?<![@\w.-])((?:https?://)?(?:[\w-]+\.)+[\w-]+(?::\d{1,5})?)(?![\w@-])", re.IGNORECASE)


def sites_named_in(text: str) -> tuple[str, ...]:
    """The sites ``text`` (the user's task) names, as host patterns (with the port when one is written)."""
    found: list[str] = []
    for match in _NAMED_SITE.finditer(text):
        written = match[1]
        site = site_of(written if "://" in written else f"http://{written}")
        if site is None:  # "v1.2" is a version, not a site
            continue
        pattern = site if re.search(r":\d+$", written) else site.rpartition(":")[0]
        if pattern not in found:
            found.append(pattern)
    return tuple(found)


def site_of(url: str) -> str | None:
    """The pattern naming exactly the site of a web address ("host:port"), or None when it is not one."""
    scheme_match = _SCHEME.match(url.strip())
    scheme = scheme_match.group(1).lower() if scheme_match else ""
    if scheme not in _WEB_SCHEMES:
        return None
    try:
        found = _web_host(url.strip(), scheme)
    except ValueError:
        return None
    if found is None:
        return None
    host, port, _given = found
    return str(HostPattern(host, False, port))


def _web_host(text: str, scheme: str) -> tuple[str, int, int | None] | None:
    """Canonical host, effective port and the port as written of an http(s) address; None without a valid host;
    ValueError when the URL cannot be read."""
    # A backslash is a slash in an http(s) URL: "http://evil.com\\@example.com" goes to evil.com.
    parts = urlsplit(text.replace("\\", "/"))
    port = parts.port or _WEB_SCHEMES[scheme]
    host = _canonical_host(unquote(parts.hostname or ""))
    if host is None or ("[" in parts.netloc and ":" not in host):
        return None
    return host, port, parts.port


def _canonical_host(host: str) -> str | None:
    """The host as Chromium would resolve it, or None when it is not a usable host name."""
    host = host.strip().lower()
    if host.endswith("."):
        host = host[:-1]  # "example.com." is example.com
    if not host:
        return None
    if ":" in host:
        try:
            return str(ipaddress.IPv6Address(host.strip("[]")))
        except ValueError:
            return None
    if _IPV4.match(host):
        try:
            return str(ipaddress.IPv4Address(host))
        except ValueError:
            return None
    try:
        # IDNA also maps full-width dots and letters, the way the URL parser does.
        ascii_host = host.encode("idna").decode("ascii").lower() if not host.isascii() else host
    except UnicodeError:
        return None
    labels = ascii_host.split(".")
    if not all(_LABEL.match(label) for label in labels) or _NUMBER.match(labels[-1]):
        # Not a name: the URL parser would read an IPv4 address in another spelling (0x7f.1, 2130706433).
        return None
    return ascii_host


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True
