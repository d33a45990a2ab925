"""The bundled Acme CRM demo: its little server over real HTTP, and its pages in real headless Chromium."""

from __future__ import annotations

import asyncio
import re
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, async_playwright, expect

from app.browser.chromium import CHROMIUM_FLAGS, find_chromium
from app.demo import DemoSite
from tests.waiting import until

ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts" / "demo"
PAGES = [
    "index.html",
    "dashboard.html",
    "customers.html",
    "new-customer.html",
    "customer-saved.html",
    "verify.html",
    "404.html",
    "style.css",
    "app.js",
]


@dataclass
class Reply:
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""


def _fetch(url: str, method: str = "GET") -> Reply:
    request = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return Reply(response.status, dict(response.headers), response.read())
    except urllib.error.HTTPError as error:
        return Reply(error.code, dict(error.headers), error.read())


async def fetch(url: str, method: str = "GET") -> Reply:
    return await asyncio.to_thread(_fetch, url, method)


async def raw_request(base_url: str, request_line: str) -> bytes:
    """Sends the request line as written; urllib would tidy up the paths these tests need to send."""
    host, port = base_url.removeprefix("http://").rstrip("/").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(f"{request_line}\r\nHost: {host}\r\n\r\n".encode("latin-1"))
    await writer.drain()
    data = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    await writer.wait_closed()
    return data


@pytest.fixture
async def site() -> AsyncIterator[DemoSite]:
    demo = DemoSite()
    await demo.start()
    yield demo
    await demo.stop()


# --- the server ----------------------------------------------------------------------------------------------------


async def test_start_returns_a_local_base_url(site: DemoSite) -> None:
    assert site.base_url.startswith("http://127.0.0.1:")
    assert site.base_url.endswith("/")
    assert site.url("/verify.html") == site.base_url + "verify.html"


async def test_every_page_is_served_with_its_content_type(site: DemoSite) -> None:
    expected = {
        ".html": "text/html; charset=utf-8",
        ".css": "text/css; charset=utf-8",
        ".js": "text/javascript; charset=utf-8",
    }
    for page in PAGES:
        reply = await fetch(site.url(page))
        assert reply.status == 200, page
        assert reply.headers["Content-Type"] == expected[Path(page).suffix], page
        assert int(reply.headers["Content-Length"]) == len(reply.body) > 0


async def test_root_and_query_strings(site: DemoSite) -> None:
    root = await fetch(site.base_url)
    assert root.status == 200 and b"Sign in" in root.body
    with_query = await fetch(site.url("customer-saved.html?id=n-1#top"))
    assert with_query.status == 200 and b"Customer saved" in with_query.body


async def test_head_sends_headers_without_a_body(site: DemoSite) -> None:
    reply = await fetch(site.url("index.html"), method="HEAD")
    assert reply.status == 200
    assert int(reply.headers["Content-Length"]) > 0
    assert reply.body == b""


async def test_missing_pages_get_the_404_page(site: DemoSite) -> None:
    reply = await fetch(site.url("no-such-page.html"))
    assert reply.status == 404
    assert reply.headers["Content-Type"].startswith("text/html")
    assert b"Page not found" in reply.body


async def test_other_methods_are_refused(site: DemoSite) -> None:
    reply = await fetch(site.url("index.html"), method="POST")
    assert reply.status == 405
    assert reply.headers["Allow"] == "GET, HEAD"


@pytest.mark.parametrize(
    "path",
    [
        "/../pyproject.toml",
        "/../../../../etc/passwd",
        "/%2e%2e/pyproject.toml",
        "/%2E%2E%2Fapp%2Fassets.py",
        "/customers/../../app/assets.py",
        "//etc/passwd",
    ],
)
async def test_no_file_outside_the_site_is_reachable(site: DemoSite, path: str) -> None:
    response = await raw_request(site.base_url, f"GET {path} HTTP/1.1")
    status_line = response.split(b"\r\n", 1)[0]
    assert status_line in (b"HTTP/1.1 404 Not Found", b"HTTP/1.1 400 Bad Request"), (path, status_line)
    assert b"root:" not in response and b"resource_path" not in response and b"[project]" not in response


async def test_garbage_requests_get_400(site: DemoSite) -> None:
    for line in ["NONSENSE", "GET", "GET /index.html\0 HTTP/1.1", "GET nopath HTTP/1.1"]:
        response = await raw_request(site.base_url, line)
        assert response.startswith(b"HTTP/1.1 400 "), line


async def test_a_silent_client_does_not_block_others(site: DemoSite) -> None:
    host, port = site.base_url.removeprefix("http://").rstrip("/").split(":")
    _reader, idle = await asyncio.open_connection(host, int(port))
    try:
        assert (await fetch(site.url("index.html"))).status == 200
    finally:
        idle.close()


async def test_stop_closes_the_port_and_ends_open_connections() -> None:
    demo = DemoSite()
    base_url = await demo.start()
    host, port = base_url.removeprefix("http://").rstrip("/").split(":")
    reader, idle = await asyncio.open_connection(host, int(port))
    await until(lambda: demo._handlers, message="the server accepted it")
    await asyncio.wait_for(demo.stop(), 5)
    assert await asyncio.wait_for(reader.read(), 5) == b""
    idle.close()
    with pytest.raises(OSError):
        await asyncio.open_connection(host, int(port))
    with pytest.raises(RuntimeError):
        demo.base_url  # noqa: B018 — the property raises once stopped


async def test_start_twice_is_an_error(site: DemoSite) -> None:
    with pytest.raises(RuntimeError):
        await site.start()


# --- the pages in Chromium -----------------------------------------------------------------------------------------


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    # The browser the app itself would launch, with the app's flags.
    async with async_playwright() as playwright:
        executable = await find_chromium()
        browser = await playwright.chromium.launch(executable_path=executable, args=list(CHROMIUM_FLAGS), headless=True)
        yield browser
        await browser.close()


@pytest.fixture
async def page(browser: Browser) -> AsyncIterator[Page]:
    context = await browser.new_context(viewport={"width": 1100, "height": 800})
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    yield page
    await context.close()
    assert errors == [], errors


async def snapshot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


async def sign_in(page: Page, site: DemoSite) -> None:
    await page.goto(site.url("index.html"))
    await page.get_by_label("Email", exact=True).fill("demo@acme.test")
    await page.get_by_label("Password").fill("demo1234")
    await page.get_by_role("button", name="Sign in").click()
    await expect(page).to_have_url(site.url("dashboard.html"))


async def test_sign_in_needs_both_fields_then_opens_the_dashboard(site: DemoSite, page: Page) -> None:
    await page.goto(site.base_url)
    await expect(page).to_have_title("Sign in — Acme CRM")
    await expect(page.get_by_text("demo@acme.test")).to_be_visible()
    await snapshot(page, "01_login")
    await page.get_by_role("button", name="Sign in").click()
    await expect(page.get_by_role("alert")).to_have_text("Enter your email and password.")
    await snapshot(page, "01_login_error")
    await sign_in(page, site)
    await expect(page.get_by_role("heading", name="Dashboard")).to_be_visible()
    await expect(page.get_by_text("Dana Demo")).to_be_visible()
    await snapshot(page, "02_dashboard")
    await page.get_by_role("link", name="Customers", exact=True).click()
    await expect(page.get_by_role("heading", name="Customers")).to_be_visible()
    await expect(page.get_by_role("cell", name="Maya Lindqvist")).to_be_visible()
    await snapshot(page, "03_customers")


async def test_signed_out_visitors_are_sent_to_sign_in_and_back(site: DemoSite, page: Page) -> None:
    await page.goto(site.url("new-customer.html"))
    await expect(page).to_have_url(site.url("index.html?next=new-customer.html"))
    await page.get_by_label("Email", exact=True).fill("sam@example.com")
    await page.get_by_label("Password").fill("x")
    await page.get_by_role("button", name="Sign in").click()
    await expect(page).to_have_url(site.url("new-customer.html"))
    await expect(page.get_by_text("Sam", exact=True)).to_be_visible()


async def test_the_login_page_is_not_an_open_redirect(site: DemoSite, page: Page) -> None:
    await page.goto(site.url("index.html?next=//evil.example/"))
    await page.get_by_label("Email", exact=True).fill("a@b.c")
    await page.get_by_label("Password").fill("x")
    await page.get_by_role("button", name="Sign in").click()
    await expect(page).to_have_url(site.url("dashboard.html"))


async def test_new_customer_form_validates_then_saves(site: DemoSite, page: Page) -> None:
    await sign_in(page, site)
    await page.get_by_role("link", name="New customer").click()
    await expect(page).to_have_url(site.url("new-customer.html"))
    await snapshot(page, "04_new_customer")

    save = page.get_by_role("button", name="Save customer")
    await save.click()
    await expect(page.get_by_role("alert")).to_contain_text("5 fields need your attention")
    for message in [
        "First name is required.",
        "Last name is required.",
        "Email is required.",
        "Choose a plan.",
        "Start date is required.",
    ]:
        await expect(page.get_by_text(message)).to_be_visible()
    await expect(page.get_by_label("First name")).to_be_focused()
    await expect(page.get_by_label("First name")).to_have_attribute("aria-invalid", "true")
    await snapshot(page, "05_new_customer_errors")

    await page.get_by_label("First name").fill("Ada")
    await page.get_by_label("Last name").fill("Lovelace")
    await page.get_by_role("textbox", name="Email", exact=True).fill("ada@analytical")
    await page.get_by_label("Phone").fill("+44 20 7946 0018")
    await page.get_by_label("Company").fill("Analytical Engines Ltd")
    await expect(page.get_by_text("Enter a valid email address")).to_be_visible()
    await page.get_by_role("textbox", name="Email", exact=True).fill("ada@analytical.example")

    plan = page.get_by_role("combobox", name="Plan")
    await expect(plan).to_have_attribute("aria-haspopup", "listbox")
    await expect(page.get_by_role("listbox")).to_be_hidden()
    await plan.click()
    await expect(plan).to_have_attribute("aria-expanded", "true")
    options = page.get_by_role("option")
    await expect(options).to_have_count(4)
    assert [text.split()[0] for text in await options.all_inner_texts()] == ["Free", "Starter", "Pro", "Enterprise"]
    await snapshot(page, "06_plan_open")
    await page.get_by_role("option", name="Pro").click()
    await expect(page.get_by_role("listbox")).to_be_hidden()
    await expect(plan).to_have_text("Pro")

    await page.get_by_label("Start date").fill("2025-07-01")
    await page.get_by_label("Send welcome email").check()
    await page.get_by_role("textbox", name="Notes").fill("Prefers email.\nInterested in the analytics add-on.")
    await expect(page.get_by_role("alert")).to_be_hidden()
    await snapshot(page, "07_new_customer_filled")
    await save.click()

    await expect(page.get_by_role("heading", name="Customer saved")).to_be_visible()
    assert "customer-saved.html?id=" in page.url
    summary = page.locator("#saved-summary")
    for label, value in [
        ("First name", "Ada"),
        ("Last name", "Lovelace"),
        ("Email", "ada@analytical.example"),
        ("Phone", "+44 20 7946 0018"),
        ("Company", "Analytical Engines Ltd"),
        ("Plan", "Pro"),
        ("Start date", "Jul 1, 2025"),
        ("Welcome email", "Will be sent"),
        ("Notes", "Prefers email.\nInterested in the analytics add-on."),
    ]:
        term = summary.locator("dt", has_text=label).first
        await expect(term).to_be_visible()
        assert await term.evaluate("dt => dt.nextElementSibling.textContent") == value, label
    await snapshot(page, "08_customer_saved")

    await page.get_by_role("link", name="View customers").click()
    await expect(page.get_by_role("row").filter(has_text="Ada Lovelace")).to_contain_text("Pro")


async def test_the_plan_combobox_works_from_the_keyboard(site: DemoSite, page: Page) -> None:
    await sign_in(page, site)
    await page.goto(site.url("new-customer.html"))
    plan = page.get_by_role("combobox", name="Plan")
    await plan.focus()
    await page.keyboard.press("ArrowDown")
    await expect(page.get_by_role("listbox")).to_be_visible()
    await page.keyboard.press("End")
    await page.keyboard.press("Enter")
    await expect(plan).to_have_text("Enterprise")
    await expect(plan).to_be_focused()
    await page.keyboard.press("Enter")
    await page.keyboard.press("Escape")
    await expect(page.get_by_role("listbox")).to_be_hidden()
    await expect(plan).to_have_text("Enterprise")


async def test_the_security_check_is_a_captcha_a_person_can_solve(site: DemoSite, page: Page) -> None:
    # Every Math.random() call returns 0, so the captcha's characters are all the alphabet's first letter.
    await page.add_init_script("Math.random = () => 0;")
    await sign_in(page, site)
    await page.get_by_role("link", name="Export customers").click()
    await expect(page).to_have_url(site.url("verify.html"))
    await expect(page.get_by_role("heading", name="Security check")).to_be_visible()
    await expect(page.get_by_role("img", name="Captcha", exact=False)).to_be_visible()
    assert "AAAAAA" not in await page.content()  # the answer is drawn, never written into the page
    await snapshot(page, "09_security_check")

    await page.get_by_label("Type the characters").fill("aaaaaa")
    await page.get_by_role("button", name="Verify and continue").click()
    await expect(page.get_by_role("alert")).to_have_text("Tick “I'm not a robot” to continue.")
    await page.get_by_label("I'm not a robot").check()
    await page.get_by_label("Type the characters").fill("WRONG1")
    await page.get_by_role("button", name="Verify and continue").click()
    await expect(page.get_by_role("alert")).to_contain_text("don't match")
    await expect(page.get_by_label("Type the characters")).to_have_value("")
    await snapshot(page, "09_security_check_error")

    await page.get_by_label("Type the characters").fill("aaa aaa")
    await page.get_by_role("button", name="Verify and continue").click()
    await expect(page.get_by_role("heading", name="Export ready")).to_be_visible()
    await expect(page.locator("#export-preview")).to_contain_text("Maya,Lindqvist,maya@northwind.io")
    await expect(page.get_by_role("link", name="Download CSV")).to_have_attribute("href", re.compile("^blob:"))
    await snapshot(page, "10_export_ready")


async def test_the_404_page(site: DemoSite, browser: Browser) -> None:
    # Not the `page` fixture: Chromium rightly logs the 404 itself as a console error.
    page = await browser.new_page(viewport={"width": 1100, "height": 800})
    response = await page.goto(site.url("nowhere.html"))
    assert response is not None and response.status == 404
    await expect(page.get_by_role("heading", name="Page not found")).to_be_visible()
    await snapshot(page, "11_not_found")
