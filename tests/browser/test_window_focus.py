"""The agent's actions never take the keyboard: on a real X desktop (Xvfb + openbox), a person types into another
program while the agent clicks, types, chooses in a drop-down, opens and switches tabs and has a page open a window
in a headed Chromium. The active window never changes from that program, every key it was sent reached it (none
reached the page), and Chromium never rises over it; nor does Chromium take the keyboard as it starts. The person's
own click, their taskbar, and the hand-off, still bring Chromium forward."""

from __future__ import annotations

from pathlib import Path

from app.browser.controller import PlaywrightPageController
from app.browser.session import BrowserSession, LaunchOptions
from app.browser.window_focus import WindowFocus, raised_over
from app.browser.x11 import FocusHints
from app.core.abort import AbortSignal
from tests.browser.helpers import index_of
from tests.waiting import until
from tests.x_desktop import KEYBOARD, Person, XDesktop, active_windows, other_application

pytestmark = KEYBOARD

EDITOR = "someone-elses-editor"


def _chromium(desktop: XDesktop) -> set[int]:
    return set(desktop.windows("--class", "chromium"))


def _only(windows: set[int]) -> int:
    """The one window of ``windows`` (0 while there is none, or more than one: a window the window manager is still
    framing may be missing from, or back in, the visible ones for a moment)."""
    return next(iter(windows)) if len(windows) == 1 else 0


def _above(desktop: XDesktop, window: int, others: set[int]) -> bool:
    stacking = desktop.root_windows("_NET_CLIENT_LIST_STACKING")
    return all(stacking.index(window) > stacking.index(other) for other in others if other in stacking)


async def test_the_agent_never_takes_the_keyboard_from_the_person(
    x_screen: XDesktop, headed: PlaywrightPageController, site: str
) -> None:
    controller, signal, desktop = headed, AbortSignal(), x_screen
    assert controller.session.window_focus.active
    await controller.go_to_url(f"{site}/focus.html", signal)
    # The editor overlaps Chromium's window and is where the person works.
    with other_application(desktop, EDITOR, "520x420+700+120") as (editor, keys):
        await until(lambda: desktop.active_window() == editor, message="the editor active")
        chromium = _chromium(desktop)
        assert chromium
        with Person(desktop) as person, active_windows(desktop) as seen:
            state = await controller.get_browser_state(signal)
            await controller.click(index_of(state.content, "Save"), signal)
            await controller.input_text(index_of(state.content, "Name"), "Ada", signal)
            state = await controller.get_browser_state(signal)
            await controller.input_text(index_of(state.content, "contenteditable"), "Hello", signal)
            state = await controller.get_browser_state(signal)
            await controller.select_option(index_of(state.content, "combobox"), "Growth", signal)
            state = await controller.get_browser_state(signal)
            await controller.click(index_of(state.content, "Open report"), signal)  # a tab of the page's
            await controller.open_new_tab(f"{site}/form.html", signal)
            await controller.switch_to_tab(1, signal)
            state = await controller.get_browser_state(signal)
            await controller.click(index_of(state.content, "Save"), signal)
            await controller.click(index_of(state.content, "Open a window"), signal)  # a window of the page's
            await until(lambda: len(_chromium(desktop)) > len(chromium), message="the page's window")
            await until(lambda: person.typed >= 5, message="the person typing")
        assert person.active and set(person.active) == {editor}, "Chromium took the keyboard"
        assert set(seen.changes) == {editor}, "Chromium took the keyboard"
        assert _above(desktop, editor, chromium), "Chromium rose over the person's window"
        page = controller.session.page_for(1)
        assert page is not None
        assert await page.evaluate("document.getElementById('save').textContent") == "Saved 2"
        assert await page.evaluate("document.getElementById('name').value") == "Ada"
        assert await page.evaluate("document.getElementById('notes').textContent") == "Hello"
        assert await page.evaluate("document.getElementById('combo').textContent") == "Growth"
        # Every letter the person typed went to the editor; the page has none of them.
        typed = person.typed  # a press and a release each, as the editor receives them
        await until(lambda: keys.count("(keysym 0x71, q)") >= 2 * typed, message="every key in the editor")
        for tab in controller.session.pages:
            assert "q" not in await tab.evaluate("document.body.innerText + (document.activeElement?.value ?? '')")


async def test_the_persons_click_and_the_hand_off_still_bring_chromium_forward(
    x_screen: XDesktop, headed: PlaywrightPageController, site: str
) -> None:
    controller, signal, desktop = headed, AbortSignal(), x_screen
    await controller.go_to_url(f"{site}/focus.html", signal)
    with other_application(desktop, EDITOR, "520x420+700+120") as (editor, _keys):
        chromium = _chromium(desktop)
        state = await controller.get_browser_state(signal)
        await controller.click(index_of(state.content, "Save"), signal)
        assert desktop.active_window() == editor
        # The person clicks into Chromium's page, beside the editor: Chromium takes the keyboard, as any window would.
        desktop.run("xdotool", "mousemove", "500", "600", "click", "1")
        await until(lambda: desktop.active_window() in chromium, message="Chromium active after the person's click")
        desktop.run("xdotool", "windowactivate", "--sync", str(editor))
        # The hand-off brings Chromium forward on purpose (app/browser/stop_bar.py).
        await controller.session.bring_to_front()
        await until(lambda: desktop.active_window() in chromium, message="Chromium active after the hand-off")


async def test_a_window_shown_to_the_person_keeps_the_keyboard_while_the_agent_works_in_another(
    x_screen: XDesktop, headed: PlaywrightPageController, site: str
) -> None:
    controller, signal, desktop = headed, AbortSignal(), x_screen
    other = PlaywrightPageController(await controller.session.new_window())  # as a routine's next row has
    await other.go_to_url(f"{site}/focus.html", signal)
    with other_application(desktop, EDITOR, "520x420+700+120") as (editor, _keys):
        chromium = await until(lambda: _chromium(desktop) if len(_chromium(desktop)) == 2 else None)
        await controller.session.bring_to_front()  # the person asked to see the first window (a hand-off)
        shown = desktop.active_window()
        assert shown in chromium and shown != editor
        with active_windows(desktop) as seen:
            state = await other.get_browser_state(signal)
            await other.click(index_of(state.content, "Save"), signal)
            await other.click(index_of(state.content, "Open a window"), signal)  # a window of the page's
            await until(lambda: len(_chromium(desktop)) == 3, message="the page's window")
            await until(lambda: _above(desktop, shown, _chromium(desktop) - {shown}), message="the shown window on top")
            form = other.session.page_for(1)
            assert form is not None and await form.evaluate("document.getElementById('save').textContent") == "Saved 1"
        assert set(seen.changes) == {shown}, "the agent's window took the keyboard"


def test_chromium_goes_back_under_the_window_it_was_raised_over() -> None:
    # Bottom first: Chromium (2) was under the editor (3); the window manager raised it over 3 and 4.
    assert raised_over([1, 2, 3, 4], [1, 3, 4, 2], 2) == 3
    assert raised_over([1, 2, 3, 4], [1, 3, 2, 4], 2) == 3
    assert raised_over([1, 2, 3], [1, 2, 3], 2) == 0  # not raised
    assert raised_over([1, 3, 2], [1, 3, 2], 2) == 0  # on top already
    assert raised_over([1, 2, 3], [1, 3], 2) == 0  # gone


async def test_chromium_opening_its_window_never_takes_the_keyboard(x_screen: XDesktop, tmp_path: Path) -> None:
    # The person is in the panel (here another program) when Chromium starts beside it, and goes on typing there.
    with other_application(x_screen, EDITOR, "400x700+0+0") as (editor, _keys), active_windows(x_screen) as seen:
        options = LaunchOptions(profile_dir=tmp_path / "profile", headless=False, window=(420, 0, 946, 740))
        session = await BrowserSession.launch(options)
        try:
            chromium = await until(lambda: _chromium(x_screen), message="Chromium's window")
            # A window of its own opened as a routine opens them: in the background too.
            await session.new_window()
            newest = await until(lambda: _only(_chromium(x_screen) - chromium), message="its second window")
            assert x_screen.active_window() == editor
            # The person's taskbar brings one forward all the same, however new.
            x_screen.run("xdotool", "windowactivate", "--sync", str(newest))
            await until(lambda: x_screen.active_window() == newest, message="the window the person asked for")
        finally:
            await session.close()
    until_asked = seen.changes[: seen.changes.index(newest)]  # then it closed, and the editor had it back
    assert set(until_asked) <= {editor, 0} and until_asked[0] == editor, "Chromium took the keyboard"


class _WatchedX:
    """What the watch's connection answers about windows, for ``WindowFocus.window_created``: each window's X client
    and process (0 until it says it), and the refusals written."""

    def __init__(self, pids: dict[int, int]) -> None:
        self.pids = pids
        self.refused: list[int] = []

    def client_of(self, window: int) -> int:
        return window & ~0x1FFFFF

    def pid(self, window: int) -> int:
        return self.pids.get(window, 0)

    def refuse_focus(self, window: int) -> FocusHints:
        self.refused.append(window)
        return FocusHints(flags=0, accepts_input=True, protocols=(), has_hints=False)

    def sync(self) -> None:
        pass


def test_a_page_window_is_refused_before_it_says_its_process_though_chromium_started_on_an_empty_desktop() -> None:
    # Chromium's first window appeared while no window had the keyboard (nothing to refuse it for), so it was never
    # refused; a window a page opens later on the same X connection must still be known as Chromium's at once, before
    # it says its process (it may be mapped first: the CI saw it take the keyboard).
    chromium_pid, first, editor, page_window = 4242, 0x800002, 0x1400001, 0x800014
    focus = WindowFocus(None, lambda pid: pid == chromium_pid)
    x = _WatchedX({first: chromium_pid})
    focus.window_created(x, first)  # type: ignore[arg-type]
    assert x.refused == []  # an empty desktop: Chromium's first window takes the keyboard, as any would
    focus._keyboard, focus._managed = editor, [first, editor]  # the person opened a program and types in it
    focus.window_created(x, page_window)  # type: ignore[arg-type]
    assert x.refused == [page_window]
