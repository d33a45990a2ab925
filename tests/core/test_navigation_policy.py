"""NavigationPolicy: which addresses a tab may open, and host patterns as a person types them."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.core.safety.navigation import NavigationPolicy, parse_domains

# Host names only: a label the URL parser reads as a number (decimal, or 0x hex) makes the host an IPv4 address.
LABEL = st.from_regex(r"[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?", fullmatch=True).filter(
    lambda s: not s.isdigit() and re.fullmatch(r"0x[0-9a-f]*", s) is None
)
HOST = st.lists(LABEL, min_size=1, max_size=4).map(".".join)
PORT = st.integers(min_value=1, max_value=65535)


def allows(patterns: tuple[str, ...], url: str) -> bool:
    return NavigationPolicy(allowed_domains=patterns).check(url) is None


# --- schemes --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "FILE:///etc/passwd",
        "view-source:file:///etc/passwd",
        "view-source:https://example.com",
        "chrome://version",
        "chrome://settings",
        "chrome-extension://abc/page.html",
        "devtools://devtools/bundled/x.html",
        "data:text/html,<p>hi",
        "blob:https://example.com/1234",
        "javascript:alert(1)",
        "  javascript:alert(1)",
        "java\tscript:alert(1)",
        "about:config",
        "about:blank#x",
        "ftp://example.com/",
        "ws://example.com/",
        "mailto:someone@example.com",
        "example.com",
        "//example.com/",
        "",
    ],
)
def test_only_web_pages_and_about_blank_open(url: str) -> None:
    reason = NavigationPolicy().check(url)
    assert reason is not None and "only http(s) web pages can be opened" in reason


def test_the_reason_names_the_refused_scheme() -> None:
    assert NavigationPolicy().check("file:///etc/passwd") == (
        "only http(s) web pages can be opened; file: addresses are not allowed."
    )
    assert "view-source: addresses" in (NavigationPolicy().check("view-source:file:///etc/passwd") or "")


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com",
        "https://example.com/a?b#c",
        "HTTPS://EXAMPLE.COM",
        "about:blank",
        "  https://example.com  ",
        "http://127.0.0.1:8080/",
        "http://[::1]/",
    ],
)
def test_web_pages_open_without_a_list(url: str) -> None:
    assert NavigationPolicy().check(url) is None


def test_a_frame_may_hold_the_pages_own_content_but_not_local_files() -> None:
    policy = NavigationPolicy(allowed_domains=("example.com",))
    for url in ("about:srcdoc", "about:blank", "data:text/html,x", "blob:https://example.com/1"):
        assert policy.check_frame(url) is None
    assert policy.check_frame("file:///etc/passwd") is not None
    assert policy.check_frame("https://evil.net/") is not None


# --- host patterns --------------------------------------------------------------------------------------------


@given(HOST, HOST)
def test_a_bare_host_matches_itself_only(host: str, other: str) -> None:
    assert allows((host,), f"https://{host}/path")
    assert allows((host,), f"https://{host.upper()}./path")  # case and a trailing dot do not make another host
    assert allows((host,), f"https://{host}:8443/")  # no port in the pattern: any port
    assert not allows((host,), f"https://sub.{host}/")
    assert allows((host,), f"https://{other}/") == (other == host)


@given(HOST, st.lists(LABEL, min_size=0, max_size=3))
def test_a_star_pattern_matches_the_site_and_every_subdomain(host: str, labels: list[str]) -> None:
    url_host = ".".join([*labels, host])
    assert allows((f"*.{host}.com",), f"https://{url_host}.com/")
    assert not allows((f"*.{host}.com",), f"https://{url_host}.com.evil.net/")
    assert not allows((f"*.{host}.com",), f"https://x{host}.com/")


@given(HOST, PORT, PORT)
def test_a_port_limits_the_pattern_to_that_port(host: str, port: int, other: int) -> None:
    assert allows((f"{host}:{port}",), f"http://{host}:{port}/")
    assert allows((f"{host}:{port}",), f"http://{host}:{other}/") == (port == other)


def test_a_port_pattern_matches_the_schemes_default_port() -> None:
    assert allows(("example.com:443",), "https://example.com/")
    assert not allows(("example.com:443",), "http://example.com/")
    assert allows(("example.com:80",), "http://example.com:80/")


@given(HOST, HOST)
def test_userinfo_and_backslashes_do_not_change_the_host(allowed: str, other: str) -> None:
    expected = other == allowed
    assert allows((allowed,), f"https://{allowed}@{other}/") == expected
    assert allows((allowed,), f"https://{allowed}:pw@{other}/") == expected
    assert allows((allowed,), f"https://{other}\\@{allowed}/") == expected
    assert allows((allowed,), f"https://{other}\\{allowed}/") == expected
    assert allows((allowed,), f"https://{other}#@{allowed}/") == expected
    assert allows((allowed,), f"https://{other}?@{allowed}/") == expected


def test_hosts_are_compared_the_way_the_browser_resolves_them() -> None:
    assert allows(("bücher.de",), "https://xn--bcher-kva.de/")
    assert allows(("xn--bcher-kva.de",), "https://BÜCHER.de/")
    assert allows(("example.com",), "https://example\u3002com/")  # a full-width dot is a dot
    assert allows(("example.com",), "https://ex%61mple.com/")
    assert allows(("[::1]:8080",), "http://[0:0:0:0:0:0:0:1]:8080/")
    assert not allows(("[::1]:8080",), "http://[::2]:8080/")
    assert allows(("127.0.0.1",), "http://127.0.0.1:5000/")
    # Other spellings of an IPv4 address are refused rather than guessed at.
    assert not allows(("127.0.0.1",), "http://2130706433/")
    assert not allows(("127.0.0.1",), "http://0x7f.0.0.1/")


def test_the_reason_names_the_host_and_the_allowed_sites() -> None:
    reason = NavigationPolicy(allowed_domains=("example.com", "*.example.org")).check("https://evil.net:444/x")
    assert reason == (
        "evil.net:444 is not among the allowed sites (example.com, *.example.org); only those sites can be opened."
    )


def test_an_address_without_a_usable_host_is_refused() -> None:
    for url in ("http://", "http:///path", "http:evil.com", "http://[zz]/", "http://example.com:99999/"):
        assert NavigationPolicy().check(url) is not None, url


# --- what a person types --------------------------------------------------------------------------------------


def test_parse_domains_accepts_commas_spaces_and_lines() -> None:
    assert parse_domains(" Example.com, *.b.example.org\n127.0.0.1:8080  [::1]:9000 bücher.de,,") == [
        "example.com",
        "*.b.example.org",
        "127.0.0.1:8080",
        "[::1]:9000",
        "xn--bcher-kva.de",
    ]
    assert parse_domains("") == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("http://example.com", "is not a site name"),
        ("example.com/path", "is not a site name"),
        ("*", "is not a site name"),
        ("*.com", "too broad"),
        ("*.127.0.0.1", "too broad"),
        ("example..com", "is not a site name"),
        ("-example.com", "is not a site name"),
        ("example.com:0", "not a port number"),
        ("example.com:65536", "not a port number"),
        ("example.com:", "is not a site name"),
        ("[example]", "is not a site name"),
        ("user@example.com", "is not a site name"),
        ("0x7f000001", "is not a site name"),
    ],
)
def test_parse_domains_names_a_bad_pattern(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as caught:
        parse_domains(f"good.example, {text}")
    assert text in str(caught.value)


def test_a_policy_with_a_bad_pattern_cannot_exist() -> None:
    with pytest.raises(ValueError, match="is not a site name"):
        NavigationPolicy(allowed_domains=("https://example.com",))
