"""The CRM test site's own Security check (tests/fakes/crm_site.py) on a loaded machine, where each of its answers
comes late: the page asks one question at a time and goes on once, to the Saved page. Its polls overlapped, each
"solved" navigated, and the last /verify/done (done already) ended on "not solved": the routine hand-off tests saw
that page after the person's continue ("This is not the CRM's form"), or never saw the Saved page at all."""

from __future__ import annotations

import asyncio
import threading
import time

from app.browser.session import BrowserSession
from tests.fakes.crm_site import crm_site

_SLOW = 0.3  # seconds each answer of the check takes: longer than the page's pause between two questions


async def test_the_security_check_asks_one_question_at_a_time_and_goes_on_once(session: BrowserSession) -> None:
    with crm_site() as site:
        site.captcha_emails.add("bob@x.test")
        lock = threading.Lock()
        asked = threading.Event()  # three questions have come
        count, now, most = 0, 0, 0
        answer = site.get

        def slow(path: str) -> tuple[int, bytes, str]:
            nonlocal count, now, most
            if not path.startswith("/verify/"):
                return answer(path)
            with lock:
                count, now = count + 1, now + 1
                most = max(most, now)
                if count >= 3:
                    asked.set()
            try:
                time.sleep(_SLOW)  # the server's own slowness, in its thread
                return answer(path)
            finally:
                with lock:
                    now -= 1

        site.get = slow  # type: ignore[method-assign]
        page = session.active_page
        await page.goto(site.new_url)
        await page.fill("input[name=name]", "Bob")
        await page.fill("input[name=email]", "bob@x.test")
        await page.click("button")
        assert await asyncio.to_thread(asked.wait, 30)
        site.solve()
        assert await asyncio.to_thread(site.passed.wait, 30)
        await page.wait_for_url("**/saved?id=1")
        assert most == 1 and site.emails() == ["bob@x.test"]
