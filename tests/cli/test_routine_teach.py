"""``run TEMPLATE --rows FILE --teach`` (Show me once) as a person runs it: on a terminal of its own (a pty), and on a
real X desktop (Xvfb + openbox) where the person does row 1 in Chromium's window by keyboard alone, with real key
presses (xdotool): the customer list, "New customer", the name, the email, a plan from a list, a date typed into a
date field, the newsletter box ticked with Space, Save with Enter. Then Enter on the terminal, the path in words,
Enter again, and the other rows replay it: each customer saved once with exactly its values, row 1 with no model
call, each other row with one."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.routine_helpers import on_a_terminal, results, rows_file, run
from tests.cli.test_cli import cli, cli_env, home  # noqa: F401 - the fixture
from tests.fakes.crm_model import crm_model
from tests.fakes.crm_site import CrmSite, crm_site
from tests.fakes.llm_server import FakeLLMServer
from tests.waiting import sync_until
from tests.x_desktop import NEEDS_X_DESKTOP, XDesktop, x_desktop

SHORT = "Add the customer {name}"
CUSTOMERS = [
    ("Ada Lovelace", "ada@example.com", "Pro", "2026-01-05", "yes"),
    ("Bea Núñez", "bea@example.com", "Free", "2026-02-11", "no"),
    ("Cy Okafor", "cy@example.com", "Starter", "2026-03-20", "yes"),
]
DOWNS = {"Free": 0, "Starter": 1, "Pro": 2}
PATH = [
    "1. Click the “New customer” link",
    "2. Type {name} into the Full name field",
    "3. Type {email} into the Email field",
    "4. Choose {plan} in the Plan list",
    "5. Type {start} into the Start date field",
    "6. Tick the Newsletter checkbox when {newsletter} says yes",
    "7. Click the Save button",
]


def test_teach_without_a_terminal_is_refused_before_any_browser_starts(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    rows = rows_file(tmp_path, "".join(",".join(c) + "\n" for c in CUSTOMERS))
    refused = run(cli(SHORT, "--rows", str(rows), "--url", "http://127.0.0.1:9/", "--teach"), cli_env(home, llm_server))
    assert refused.returncode == 2
    assert refused.stderr.strip().endswith(
        "--teach needs you at this terminal: you do the first row in Chromium's window, then press Enter here."
    )
    alone = run(cli(SHORT, "--teach"), cli_env(home, llm_server), timeout=30)
    assert alone.returncode == 2 and "--teach belongs to routines" in alone.stderr


def keys(desktop: XDesktop, *names: str) -> None:
    desktop.run("xdotool", "key", "--delay", "40", *names, check=True)


def typed(desktop: XDesktop, text: str) -> None:
    desktop.run("xdotool", "type", "--delay", "40", text, check=True)


def by_keyboard(desktop: XDesktop, window: int, site: CrmSite, customer: tuple[str, ...]) -> None:
    """Row 1 done by a person at the keyboard, in the window that has it."""
    name, email, plan, start, newsletter = customer
    title = lambda: desktop.run("xdotool", "getwindowname", str(window))  # noqa: E731
    keys(desktop, "Tab", "Return")  # the list's "New customer" link
    sync_until(lambda: title().startswith("New customer"), 30, "the new-customer form")
    keys(desktop, "Tab")
    typed(desktop, name)
    keys(desktop, "Tab")
    typed(desktop, email)
    keys(desktop, "Tab", *["Down"] * DOWNS[plan], "Tab")
    year, month, day = start.split("-")
    typed(desktop, month + day + year)  # the date field's own order (en-US)
    keys(desktop, "Tab", "Tab")  # past the field's calendar button, to the box
    if newsletter == "yes":
        keys(desktop, "space")
    keys(desktop, "Tab", "Return")  # Save
    sync_until(lambda: site.records, 30, "the customer saved")


@NEEDS_X_DESKTOP
@pytest.mark.keyboard
def test_row_one_done_by_keyboard_alone_is_the_path_the_other_rows_replay(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, "".join(",".join(c) + "\n" for c in CUSTOMERS))
    with crm_site() as site, x_desktop() as desktop:
        env = cli_env(home, llm_server, DISPLAY=desktop.display, NO_AT_BRIDGE="1")
        env.pop("WAYLAND_DISPLAY", None)
        args = cli(SHORT, "--rows", str(rows), "--url", site.url + "/customers", "--teach")
        with on_a_terminal(args, env) as terminal:
            told = terminal.read_until("Each step is told as it is recorded:")
            assert "Do row 1 (Ada Lovelace, ada@example.com, Pro, …) in the browser as you always do" in told
            window = desktop.active_window()  # the row's window has the keyboard, on purpose
            assert window in desktop.windows("--class", "chromium")
            by_keyboard(desktop, window, site, CUSTOMERS[0])
            assert not llm_server.requests
            terminal.type("")  # the row is done
            told = terminal.read_until("[Y/n] ")
            assert all(line in told for line in PATH), told
            terminal.type("")  # use this path
            told = terminal.finish(timeout=240)
            assert terminal.process.returncode == 0, told
        stored = [(r["name"], r["email"], r["plan"], r["start"], r["newsletter"]) for r in site.records]
        assert stored == CUSTOMERS and site.posts == len(CUSTOMERS)
    table = results(rows)
    assert [(r["status"], int(r["model_calls"])) for r in table] == [("done", 0), ("done", 1), ("done", 1)]
    lines = terminal.told.splitlines()
    steps = lines.index("page-agent-desktop:   Click the “New customer” link")
    assert lines[steps + 1] == "page-agent-desktop:   Type “Ada Lovelace” into the Full name field"
    assert "The path was learned from row 1, which you showed. Rows 2–3 use the new path." in terminal.told
