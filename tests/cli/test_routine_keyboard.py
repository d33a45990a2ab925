"""A headed routine on a real X desktop (Xvfb + openbox) while the person types in another program: Chromium starting,
the windows it opens for the rows, every row's clicks, typing and pages, three rows at once, never take the keyboard.
Every key reaches that program, the active window never changes, and every record the CRM stores is exact."""

from __future__ import annotations

from pathlib import Path

from tests.cli.routine_helpers import results, routine, rows_file, run
from tests.cli.test_cli import cli_env, home  # noqa: F401 - the fixture
from tests.fakes.crm_model import crm_model
from tests.fakes.crm_site import crm_site
from tests.fakes.llm_server import FakeLLMServer
from tests.waiting import sync_until
from tests.x_desktop import KEYBOARD, Person, active_windows, other_application, x_desktop

pytestmark = KEYBOARD

EDITOR = "someone-elses-editor"
KEY = "(keysym 0x71, q)"  # the letter the person types, as the editor reports it
CUSTOMERS = [
    (f"Customer {i} Núñez", f"c{i}@x.test", ("Free", "Starter", "Pro")[i % 3], f"2026-01-{i:02d}", ("no", "yes")[i % 2])
    for i in range(1, 7)
]


def test_three_rows_at_once_never_take_the_keyboard_from_the_person(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, "".join(",".join(customer) + "\n" for customer in CUSTOMERS))
    with crm_site() as site, x_desktop() as desktop:
        env = cli_env(home, llm_server, DISPLAY=desktop.display, NO_AT_BRIDGE="1")
        env.pop("WAYLAND_DISPLAY", None)
        with other_application(desktop, EDITOR, "520x420+800+300") as (editor, keys):
            with active_windows(desktop) as seen, Person(desktop) as person:
                done = run(routine(rows, site.new_url, "--parallel", "3", "--headed"), env, timeout=300)
            typed = person.typed  # a press and a release each, as the editor receives them
            sync_until(lambda: keys.count(KEY) >= 2 * typed, 20, "every key in the editor")
        assert done.returncode == 0, done.stderr
        assert set(seen.changes) == {editor}, "a routine window took the keyboard"
        assert set(person.active) == {editor}
        assert keys.count(KEY) == 2 * typed
        stored = sorted((r["name"], r["email"], r["plan"], r["start"], r["newsletter"]) for r in site.records)
        assert stored == sorted(CUSTOMERS)
    assert [r["status"] for r in results(rows)] == ["done"] * 6
