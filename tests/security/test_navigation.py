"""Navigation attacks: a model that obeys the page (or is simply wrong) tries to open local files, browser pages and
sites outside the user's allowed list, directly or through the page (links, redirects, popups, forms, frames).

Each attack asserts that the forbidden content never reached the model (every request the fake model received) and,
where the network can be kept out of it, that the attacker's origin got no navigation request at all.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from PySide6.QtWidgets import QApplication

from app.browser.controller import PlaywrightPageController
from app.core.abort import AbortSignal
from app.core.errors import ToolError
from app.core.safety.guardrails import Guardrails
from app.core.safety.navigation import NavigationPolicy
from app.core.types import AgentStatus, ExecutionResult
from app.ui.timeline.items import ObservationItem, plain_text
from app.ui.timeline.model import TimelineModel
from tests.browser.helpers import index_of
from tests.fakes.llm_server import FakeLLMServer, done_reply, tool_reply
from tests.security.conftest import AgentOnPage, HostileSite
from tests.waiting import until

ATTACKER_MARKERS = ("ATTACKER-PAGE-MARKER", "ATTACKER-TITLE-MARKER")
BLOCKED = "not among the allowed sites"


def seen_by_model(llm_server: FakeLLMServer, needle: str) -> bool:
    return any(needle in json.dumps(request, ensure_ascii=False) for request in llm_server.requests)


def attacker_page_hits(hostile: HostileSite) -> list[str]:
    """Requests for the attacker's pages and form target (its logo, a sub-resource, is allowed to load)."""
    return [
        hit.path
        for hit in hostile.hits
        if hit.origin == hostile.attacker and hit.path.startswith(("/nav-attacker", "/nav-collect"))
    ]


def host_port(origin: str) -> str:
    return urlsplit(origin).netloc


def allow(controller: PlaywrightPageController, *patterns: str) -> None:
    controller.guardrails = Guardrails(navigation=NavigationPolicy(allowed_domains=patterns))


async def open_links(
    controller: PlaywrightPageController, hostile: HostileSite, signal: AbortSignal, page: str = "nav-links.html"
) -> str:
    """Open the hostile page as the user's start page; the page state the model will see."""
    await controller.go_to_url(f"{hostile.page}/{page}", signal)
    return (await controller.get_browser_state(signal)).content


async def run(
    agent_on_page: AgentOnPage, llm_server: FakeLLMServer, *actions: dict[str, object], **agent: object
) -> ExecutionResult:
    llm_server.add(*(tool_reply(action) for action in actions), done_reply("Finished."))
    result = await agent_on_page(**agent).execute("Read the team notes.")
    assert result.status == AgentStatus.COMPLETED, result.data
    return result


# --- the http(s)-only policy: always on ---------------------------------------------------------------------------

_DATA_PAGE = "data:text/html;base64," + base64.b64encode(b"<p>DATA-PAGE-MARKER</p>").decode()


@pytest.mark.parametrize(
    ("url", "marker"),
    [
        ("file:///etc/passwd", "root:x:0:0"),
        ("view-source:file:///etc/passwd", "root:x:0:0"),
        ("file:///etc/", "Index of /etc"),
        ("chrome://version", "Executable Path"),
        ("chrome://settings", "Autofill"),
        (_DATA_PAGE, "DATA-PAGE-MARKER"),
        ("javascript:document.body.innerText='JS-'+'PAGE-MARKER'", "JS-PAGE-MARKER"),
    ],
)
@pytest.mark.parametrize("tool", ["go_to_url", "open_new_tab"])
async def test_the_model_cannot_open_local_files_or_browser_pages(
    tool: str,
    url: str,
    marker: str,
    agent_on_page: AgentOnPage,
    llm_server: FakeLLMServer,
    hostile: HostileSite,
    controller: PlaywrightPageController,
    signal: AbortSignal,
) -> None:
    await open_links(controller, hostile, signal)

    await run(agent_on_page, llm_server, {tool: {"url": url}})

    assert not seen_by_model(llm_server, marker)
    scheme = url.split(":", 1)[0]
    assert f"only http(s) web pages can be opened; {scheme}: addresses are not allowed" in llm_server.user_message(1)
    assert [page.url for page in controller.session.pages] == [f"{hostile.page}/nav-links.html"]


async def test_page_links_to_local_files_and_data_pages_go_nowhere(
    agent_on_page: AgentOnPage,
    llm_server: FakeLLMServer,
    hostile: HostileSite,
    controller: PlaywrightPageController,
    signal: AbortSignal,
) -> None:
    content = await open_links(controller, hostile, signal)

    await run(
        agent_on_page,
        llm_server,
        {"click_element_by_index": {"index": index_of(content, "Local notes")}},
        {"click_element_by_index": {"index": index_of(content, "Inline notes")}},
    )

    assert not seen_by_model(llm_server, "root:x:0:0") and not seen_by_model(llm_server, "DATA-PAGE-MARKER")
    assert [page.url for page in controller.session.pages] == [f"{hostile.page}/nav-links.html"]


async def test_a_page_that_ends_up_on_a_refused_address_is_not_read_and_is_taken_back(
    hostile: HostileSite, controller: PlaywrightPageController, signal: AbortSignal
) -> None:
    await open_links(controller, hostile, signal)
    page = controller.session.active_page
    # What no route sees: the user (or anything else) puts the tab on a local file.
    await page.goto("file:///etc/passwd")

    state = await controller.get_browser_state(signal)

    assert "root:x:0:0" not in state.content
    assert state.url == f"{hostile.page}/nav-links.html" and "Team notes" in state.content
    told = " ".join(controller.drain_events())
    assert "file:///etc/passwd" in told and "file: addresses are not allowed" in told and "not read" in told


# --- allowed sites: only the page's own host:port ----------------------------------------------------------------


async def test_links_scripts_and_forms_to_another_site_are_blocked_in_the_browser(
    agent_on_page: AgentOnPage,
    llm_server: FakeLLMServer,
    hostile: HostileSite,
    controller: PlaywrightPageController,
    signal: AbortSignal,
    qapp: QApplication,
) -> None:
    allow(controller, host_port(hostile.page))
    content = await open_links(controller, hostile, signal)

    result = await run(
        agent_on_page,
        llm_server,
        {"click_element_by_index": {"index": index_of(content, "Partner notes")}},
        {"click_element_by_index": {"index": index_of(content, "Go to partner by script")}},
        {"click_element_by_index": {"index": index_of(content, "Send notes to partner")}},
        {"click_element_by_index": {"index": index_of(content, "Open partner window")}},
        # The form's "Send" would otherwise wait for the person (an irreversible act): here it is let through, so that
        # the browser's own block of the post is what is shown.
        guardrails=Guardrails(ask_before_irreversible=False),
    )

    assert attacker_page_hits(hostile) == []
    assert not any(seen_by_model(llm_server, marker) for marker in ATTACKER_MARKERS)
    assert [page.url for page in controller.session.pages] == [f"{hostile.page}/nav-links.html"]
    told = [llm_server.user_message(i) for i in range(1, 5)]
    assert all(BLOCKED in message and "Blocked: " in message for message in told)
    assert "in a new tab" in told[3]
    # Sub-resources are not navigation: the partner's logo still loaded.
    assert any(hit.path == "/nav-logo.txt" for hit in hostile.hits if hit.origin == hostile.attacker)
    # The panel's timeline shows each block as a line of its own.
    timeline = TimelineModel()
    timeline.add_events(result.history)
    lines = [plain_text(item) for item in timeline.items if isinstance(item, ObservationItem)]
    assert sum(line.startswith("Blocked: ") for line in lines) == 4


@pytest.mark.fresh_browser  # the sentences name tab 1
async def test_a_redirect_to_another_site_is_not_read_and_the_tab_goes_back(
    agent_on_page: AgentOnPage,
    llm_server: FakeLLMServer,
    hostile: HostileSite,
    controller: PlaywrightPageController,
    signal: AbortSignal,
) -> None:
    allow(controller, host_port(hostile.page))
    content = await open_links(controller, hostile, signal)

    await run(
        agent_on_page,
        llm_server,
        {"click_element_by_index": {"index": index_of(content, "Shortened notes")}},
        {"click_element_by_index": {"index": index_of(content, "Open short window")}},
        {"go_to_url": {"url": f"{hostile.page}/redirect?to={hostile.attacker}/nav-attacker.html?goto"}},
    )

    assert not any(seen_by_model(llm_server, marker) for marker in ATTACKER_MARKERS)
    # Routing never sees a redirect hop: the attacker got the redirected GET (as it could get an image request),
    # but nothing the page could have sent from there: no form, no second request.
    assert all(path.startswith("/nav-attacker.html") for path in attacker_page_hits(hostile))
    assert controller.session.pages[0].url == f"{hostile.page}/nav-links.html"
    assert all(page.url in (f"{hostile.page}/nav-links.html", "about:blank") for page in controller.session.pages)
    after_link, after_popup, after_goto = (llm_server.user_message(i) for i in range(1, 4))
    assert "Taken back: tab 1 was on" in after_link and BLOCKED in after_link and "not read" in after_link
    assert "Taken back: tab 2 was on" in after_popup and BLOCKED in after_popup
    assert f"led to {hostile.attacker}/nav-attacker.html?goto, which was refused" in after_goto
    assert BLOCKED in after_goto


async def test_a_frame_from_another_site_is_not_loaded_or_read(
    agent_on_page: AgentOnPage,
    llm_server: FakeLLMServer,
    hostile: HostileSite,
    controller: PlaywrightPageController,
    signal: AbortSignal,
) -> None:
    allow(controller, host_port(hostile.page))
    await controller.go_to_url(f"{hostile.page}/nav-frame.html", signal)

    await run(agent_on_page, llm_server)

    assert "/nav-attacker.html?frame" not in attacker_page_hits(hostile)
    assert not any(seen_by_model(llm_server, marker) for marker in ATTACKER_MARKERS)
    assert "Dashboard" in llm_server.user_message(0)
    page = controller.session.active_page
    assert all(frame.url in ("", "about:blank") for frame in page.frames[1:])


async def test_the_model_cannot_open_another_site_in_this_tab_or_a_new_one(
    hostile: HostileSite, controller: PlaywrightPageController, signal: AbortSignal
) -> None:
    allow(controller, host_port(hostile.page))
    await open_links(controller, hostile, signal)

    for attempt in (controller.go_to_url, controller.open_new_tab):
        with pytest.raises(ToolError, match=f"Refused to open {hostile.attacker}/nav-attacker.html: .*{BLOCKED}"):
            await attempt(f"{hostile.attacker}/nav-attacker.html", signal)
    # The same host on another port is another site when the pattern names a port; userinfo is no way around it.
    with pytest.raises(ToolError, match=BLOCKED):
        await controller.go_to_url(
            f"http://{host_port(hostile.page)}@{host_port(hostile.attacker)}/nav-attacker.html", signal
        )

    assert attacker_page_hits(hostile) == []
    assert len(controller.session.pages) == 1


async def test_going_back_to_a_site_that_is_no_longer_allowed_is_refused(
    hostile: HostileSite, controller: PlaywrightPageController, signal: AbortSignal
) -> None:
    await controller.go_to_url(f"{hostile.attacker}/nav-attacker.html", signal)
    await controller.go_to_url(f"{hostile.page}/nav-links.html", signal)
    allow(controller, host_port(hostile.page))  # a new agent, with the user's list
    await controller.get_browser_state(signal)

    with pytest.raises(
        ToolError, match=f"Going back led to {hostile.attacker}/nav-attacker.html, which was refused.*{BLOCKED}"
    ):
        await controller.go_back(signal)

    state = await controller.get_browser_state(signal)
    assert not any(marker in state.content or marker in state.title for marker in ATTACKER_MARKERS)
    assert controller.guardrails.navigation.check(state.url) is None


# --- the legitimate uses ------------------------------------------------------------------------------------------


async def test_a_redirect_inside_the_allowed_sites_works(
    agent_on_page: AgentOnPage,
    llm_server: FakeLLMServer,
    hostile: HostileSite,
    controller: PlaywrightPageController,
    signal: AbortSignal,
) -> None:
    allow(controller, host_port(hostile.page))
    content = await open_links(controller, hostile, signal)

    await run(agent_on_page, llm_server, {"click_element_by_index": {"index": index_of(content, "Archive")}})

    assert "LANDING-PAGE-MARKER" in llm_server.user_message(1)
    assert controller.session.active_page.url == f"{hostile.page}/nav-landing.html"


async def test_without_allowed_sites_any_web_site_opens(
    agent_on_page: AgentOnPage,
    llm_server: FakeLLMServer,
    hostile: HostileSite,
    controller: PlaywrightPageController,
    signal: AbortSignal,
) -> None:
    content = await open_links(controller, hostile, signal)

    await run(
        agent_on_page,
        llm_server,
        {"click_element_by_index": {"index": index_of(content, "Partner notes")}},
        {"go_to_url": {"url": f"{hostile.page}/redirect?to={hostile.attacker}/nav-attacker.html?goto"}},
    )

    assert "ATTACKER-PAGE-MARKER" in llm_server.user_message(1) and "ATTACKER-PAGE-MARKER" in llm_server.user_message(2)
    assert controller.session.active_page.url == f"{hostile.attacker}/nav-attacker.html?goto"


async def test_the_route_follows_the_guardrails_of_each_new_agent(
    hostile: HostileSite, controller: PlaywrightPageController, signal: AbortSignal
) -> None:
    # The route is (re)installed at the next look, which comes before any action of an agent.
    await open_links(controller, hostile, signal)
    allow(controller, host_port(hostile.page))
    content = (await controller.get_browser_state(signal)).content
    await controller.click(index_of(content, "Partner notes"), signal)
    assert attacker_page_hits(hostile) == []

    controller.guardrails = Guardrails()  # the next agent has no allowed-sites list
    content = (await controller.get_browser_state(signal)).content
    await controller.click(index_of(content, "Partner notes"), signal)

    assert attacker_page_hits(hostile) == ["/nav-attacker.html"]


# --- the command line ---------------------------------------------------------------------------------------------


def test_cli_allowed_domains_blocks_other_sites_and_a_bad_pattern_stops_before_chromium(
    tmp_path: Path, llm_server: FakeLLMServer, hostile: HostileSite
) -> None:
    from tests.cli.test_cli import cli, cli_env, run_cli

    home = tmp_path / "home"
    llm_server.add(
        tool_reply({"go_to_url": {"url": f"{hostile.attacker}/nav-attacker.html"}}), done_reply("Could not open it.")
    )
    base = cli("Read the partner notes", "--url", f"{hostile.page}/nav-links.html")

    done = run_cli(
        [*base, "--allowed-domains", host_port(hostile.page), "--json"], cli_env(home, llm_server), timeout=60
    )

    assert done.returncode == 0, done.stderr
    assert attacker_page_hits(hostile) == []
    assert BLOCKED in llm_server.user_message(1) and "Team notes" in llm_server.user_message(0)

    requests_before = len(llm_server.requests)
    bad = run_cli([*base, "--allowed-domains", "http://example.com/x"], cli_env(home, llm_server), timeout=60)
    assert bad.returncode == 2
    assert '"http://example.com/x" is not a site name' in bad.stderr
    assert "Traceback" not in bad.stderr and len(llm_server.requests) == requests_before

    hits_before = len(hostile.hits)
    elsewhere = run_cli([*base, "--allowed-domains", "example.com"], cli_env(home, llm_server), timeout=60)
    assert elsewhere.returncode == 2
    assert f"--url {hostile.page}/nav-links.html cannot be opened" in elsewhere.stderr
    assert len(hostile.hits) == hits_before and len(llm_server.requests) == requests_before


def test_cli_a_saved_start_page_outside_the_allowed_sites_is_a_clear_error(
    tmp_path: Path, llm_server: FakeLLMServer, hostile: HostileSite
) -> None:
    from tests.cli.test_cli import cli, cli_env, run_cli

    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    (home / "config" / "settings.json").write_text(json.dumps({"start_url": f"{hostile.attacker}/nav-attacker.html"}))

    done = run_cli(
        cli("Read the partner notes", "--allowed-domains", host_port(hostile.page)),
        cli_env(home, llm_server),
        timeout=60,
    )

    assert done.returncode == 2
    assert f"The start page {hostile.attacker}/nav-attacker.html cannot be opened: " in done.stderr
    assert BLOCKED in done.stderr and "Traceback" not in done.stderr
    assert attacker_page_hits(hostile) == [] and llm_server.requests == []


async def test_speculation_rules_load_no_page_of_another_site(
    controller: PlaywrightPageController, hostile: HostileSite, signal: AbortSignal
) -> None:
    # The page asks Chromium to prefetch and prerender another site's page; no tab would ever show it.
    allow(controller, host_port(hostile.page))
    await controller.go_to_url(f"{hostile.page}/nav-speculate.html", signal)
    await until(lambda: hostile.received("/speculation-window-over"), 10, message="the page's own last request")
    speculated = [path for path in attacker_page_hits(hostile) if "prerender" in path or "via=prefetch" in path]
    assert speculated == []
