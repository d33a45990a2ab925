"""A file into a page: straight into the element's file input, or through the file chooser its click opens."""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from playwright.async_api import ElementHandle
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from app.browser.actions import FILE_INPUT_JS
from app.browser.failures import as_tool_errors, race
from app.browser.session import BrowserSession
from app.core.abort import AbortSignal
from app.core.errors import ToolError

T = TypeVar("T")


async def put_file(
    session: BrowserSession, element: ElementHandle, file: Path, what: str, signal: AbortSignal, timeout_ms: float
) -> None:
    """``file`` (already judged by the upload policy) into the page through ``element``; ToolError saying ``what``
    failed otherwise. A click that opens the chooser keeps Chromium from taking the keyboard."""
    file_input = (await race(session, signal, what, element.evaluate_handle(FILE_INPUT_JS))).as_element()
    if file_input is not None:
        await race(session, signal, what, file_input.set_input_files(file, timeout=timeout_ms))
    else:
        page = session.active_page
        async with as_tool_errors(session, what):
            clicked = False
            try:
                async with (
                    page.expect_file_chooser(timeout=timeout_ms) as chooser_info,
                    session.window_focus.kept(),
                ):
                    await signal.race(element.click(timeout=timeout_ms))
                    clicked = True
                chooser = await signal.race(chooser_info.value)
            except PlaywrightTimeoutError as exc:
                if clicked:  # the click landed; the wait for a chooser is what ran out
                    raise ToolError(
                        f"{what}: clicking it did not open a file chooser; use the index of the "
                        "file input or of the button that opens the file dialog."
                    ) from exc
                raise
            await signal.race(chooser.set_files(file, timeout=timeout_ms))
