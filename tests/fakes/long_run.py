"""A long task for a scripted model that only knows what the request tells it: read a code on each of N pages,
keep a running total in memory (with 5,000 characters of notes each step), and report the sum at the end.

The model's answer is worked out from the request alone (the page's code, the total in the latest memory it is
shown), so a history folded badly gives a wrong sum, not a passing test."""

from __future__ import annotations

import re
from typing import Any

from app.core.abort import AbortSignal
from app.core.page import BrowserState, TabInfo
from tests.fakes.llm_server import FakeResponse, done_reply, tool_reply
from tests.fakes.page import FakePage

NOTES = "Notes: " + "the table lists further rows of the report that are not needed for this task " * 62  # ~5,000


def code_of(page: int) -> int:
    return page * 7919 % 1000


def expected_sum(pages: int) -> int:
    return sum(code_of(page) for page in range(1, pages + 1))


def answer(total: int, pages: int) -> str:
    return f"The sum of the {pages} codes is {total}."


class ReportPages(FakePage):
    """http://fake.test/page/K shows the code of page K."""

    def __init__(self) -> None:
        super().__init__(url="http://fake.test/page/1")
        self.change_on_action = False

    async def get_browser_state(self, signal: AbortSignal) -> BrowserState:
        signal.throw_if_aborted()
        page = int(self.url.rsplit("/", 1)[1])
        self.title = f"Report page {page}"
        self.content = (
            f"Current page: [Report page {page}]({self.url})\n[Start of page]\n"
            f"Code of page {page}: {code_of(page)}\n[1]<a>Next page />\n[End of page]"
        )
        return BrowserState(
            url=self.url,
            title=self.title,
            content=self.content,
            tabs=[TabInfo(tab_id=0, url=self.url, title=self.title, active=True)],
        )


def long_run_model(pages: int, notes: str = NOTES) -> Any:
    """The fake server's answer to each request of the long task."""

    def reply(body: dict[str, Any]) -> FakeResponse:
        prompt = next(m["content"] for m in body["messages"] if m["role"] == "user")
        history, _, page_part = prompt.partition("<browser_state>")
        found = re.search(r"Code of page (\d+): (\d+)", page_part)
        assert found, "the page's code is not in the request"
        page, code = int(found[1]), int(found[2])
        totals = re.findall(r"Running total: (\d+)\.", history)
        total = (int(totals[-1]) if totals else 0) + code
        memory = f"Code of page {page} is {code}. Running total: {total}. {notes}"
        if page == pages:
            return done_reply(answer(total, pages))
        return tool_reply(
            {"go_to_url": {"url": f"http://fake.test/page/{page + 1}"}},
            memory=memory,
            evaluation="Read the code.",
            next_goal=f"Open page {page + 1}.",
        )

    return reply
