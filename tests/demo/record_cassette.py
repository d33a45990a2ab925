"""Records the demo's cassette, the one the panel replays in demo mode (resources/demo/cassette.json).

The cassette is not hand-written: a scripted model (app/demo/scripted_model.py) drives the real engine through the
demo site in headless Chromium, picking each element it acts on by its fields (tag, name, attributes) in the listing
that comes with each request as data, and ``RecordingClient`` writes down its answers with the elements they acted on.
At the captcha the model hands the browser to the person (hand_off_to_user); the recorder plays that person, solves it
while the run is paused and resumes the same run. When the site or the observation changes, run this again and the
cassette follows:

    .venv/bin/python -m tests.demo.record_cassette --out resources/demo/cassette.json
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from app.core.agent import Agent
from app.core.llm import LLMError
from app.core.types import AgentActivity, AgentStatus, ExecutionResult, HandOffActivity
from app.demo.bundle import DemoBundle
from app.demo.scripted_model import Pick, ScriptedModel, Step
from app.demo.task import DEMO_TASK
from app.llm.cassette import RecordingClient
from app.runtime import Runtime, RuntimeOptions
from app.settings.model import Settings
from app.settings.paths import AppPaths

if TYPE_CHECKING:
    from playwright.async_api import Page

# How long the recording waits for the run to reach the captcha, and then to finish.
_RUN_DEADLINE = 120.0


# How the reflections sum up the customer once it is entered.
_CUSTOMER = (
    "Jane Doe (jane@example.com, Example Ltd), plan Pro from 2026-12-01, welcome email on, note “Met at the expo”"
)

TASK_STEPS: tuple[Step, ...] = (
    Step(
        "❔ Nothing to judge yet: this is the Acme CRM sign-in page, with Email and Password fields.",
        "To do: sign in; add Jane Doe (jane@example.com, Example Ltd, Pro, starts 2026-12-01, welcome email, note "
        "“Met at the expo”); export the customer list as CSV. Nothing done yet.",
        "Type the demo account's email into the Email field.",
        "input_text",
        {"text": "demo@acme.test"},
        target=Pick("input", name="Email"),
        sees="Sign in to your account",
    ),
    Step(
        "✅ The Email field now holds demo@acme.test.",
        "Signing in: email entered, password next.",
        "Type the password.",
        "input_text",
        {"text": "<secret>demo_password</secret>"},
        target=Pick("input", attrs={"type": "password"}),
    ),
    Step(
        "✅ The password is in (the field shows it masked).",
        "Both sign-in fields are filled.",
        "Click Sign in.",
        "click_element_by_index",
        target=Pick("button", name="Sign in"),
    ),
    Step(
        "✅ Signed in as Dana Demo: the dashboard is open and shows 1,280 customers.",
        "Signed in. Left: add Jane Doe, then export as CSV (there is an Export customers button here too).",
        "Open the New customer form.",
        "click_element_by_index",
        target=Pick("a", name="New customer"),
        sees="Dana Demo",
    ),
    Step(
        "✅ The New customer form is open: contact details, a Plan picker, start date, a welcome-email checkbox and "
        "notes.",
        "The form splits the name, so Jane goes in First name and Doe in Last name. Phone is optional and not in the "
        "task: leave it empty.",
        "Enter the first name, Jane.",
        "input_text",
        {"text": "Jane"},
        target=Pick("input", attrs={"name": "first_name"}),
        sees="Contact details",
    ),
    Step(
        "✅ First name shows Jane.",
        "Filled: first name.",
        "Enter the last name, Doe.",
        "input_text",
        {"text": "Doe"},
        target=Pick("input", attrs={"name": "last_name"}),
    ),
    Step(
        "✅ Last name shows Doe.",
        "Filled: first and last name.",
        "Enter the email address.",
        "input_text",
        {"text": "jane@example.com"},
        target=Pick("input", attrs={"name": "email"}),
    ),
    Step(
        "✅ Email shows jane@example.com.",
        "Filled: name and email; phone stays empty on purpose.",
        "Enter the company, Example Ltd.",
        "input_text",
        {"text": "Example Ltd"},
        target=Pick("input", attrs={"name": "company"}),
    ),
    Step(
        "✅ Company shows Example Ltd; the contact details are done.",
        "Left on the form: plan Pro, start date 2026-12-01, welcome email, note. The Plan field is a custom list "
        "button, not a native select.",
        "Pick Pro in the Plan dropdown.",
        "select_dropdown_option",
        {"text": "Pro"},
        target=Pick("button", attrs={"role": "combobox"}),
    ),
    Step(
        "✅ The Plan button now reads Pro.",
        "Filled: contact details and plan Pro.",
        "Set the start date to 2026-12-01.",
        "input_text",
        {"text": "2026-12-01"},
        target=Pick("input", attrs={"name": "start_date"}),
    ),
    Step(
        "✅ Start date shows 2026-12-01.",
        "Left on the form: tick Send welcome email, add the note, save.",
        "Tick Send welcome email.",
        "click_element_by_index",
        target=Pick("input", attrs={"name": "welcome_email"}),
    ),
    Step(
        "✅ The welcome-email checkbox is checked now.",
        "Only the note is missing before saving.",
        "Write “Met at the expo” in Notes.",
        "input_text",
        {"text": "Met at the expo"},
        target=Pick("textarea", attrs={"name": "notes"}),
    ),
    Step(
        "✅ Notes shows “Met at the expo”.",
        f"Every field is filled: {_CUSTOMER}. Ready to save.",
        "Save the customer.",
        "click_element_by_index",
        target=Pick("button", name="Save customer"),
    ),
    Step(
        "✅ Saved: the confirmation says “Jane Doe was added to your customers”, and its summary matches what I "
        "entered (Pro, Dec 1, 2026, welcome email will be sent).",
        f"Customer saved: {_CUSTOMER}. Left: export the customer list as CSV.",
        "Open the customer list, where the export is.",
        "click_element_by_index",
        target=Pick("a", name="View customers"),
        sees="Jane Doe was added to your customers",
    ),
    Step(
        "✅ The customer list shows Jane Doe at the top, marked New.",
        f"Customer saved: {_CUSTOMER}. Left: the CSV export.",
        "Click Export customers.",
        "click_element_by_index",
        target=Pick("a", name="Export customers"),
        sees="Jane Doe New",
    ),
    Step(
        "❔ The export has not started: a Security check page wants the characters from a captcha image and an "
        "“I'm not a robot” tick first.",
        f"Customer saved: {_CUSTOMER}. The CSV export waits behind a captcha, which only the user may solve.",
        "Hand the captcha to the user, then finish the export when they hand the browser back.",
        "hand_off_to_user",
        {
            "reason": (
                "The export is behind a captcha, and only a person may solve it. "
                "Please solve it in the browser window: "
                "type the characters you see, tick “I'm not a robot” and click “Verify and continue”. Then press "
                "“I've done it — continue” and I'll finish the export."
            )
        },
        sees="Security check",
    ),
    Step(
        "✅ The security check is passed: the page says Export ready and previews the CSV, with Jane Doe first.",
        f"Customer saved: {_CUSTOMER}. The user solved the captcha. Left: download the CSV.",
        "Click Download CSV.",
        "click_element_by_index",
        target=Pick("a", name="Download CSV"),
        sees="Export ready",
    ),
    Step(
        "✅ The download finished: acme-customers.csv was saved.",
        f"All done: customer saved ({_CUSTOMER}); customer list exported as acme-customers.csv.",
        "Tell the user everything is done.",
        "done",
        {
            "success": True,
            "text": (
                "All done. I signed in to Acme CRM, added Jane Doe (jane@example.com, Example Ltd, plan Pro starting "
                "1 Dec 2026, welcome email on, note “Met at the expo”), and — after you solved the security check — "
                "exported the customer list. It was downloaded as acme-customers.csv, with Jane Doe in it."
            ),
        },
        sees='Downloaded "acme-customers.csv"',
    ),
)


async def solve_captcha(page: Page) -> None:
    """Does what the person at the keyboard does on the Security check page. With Math.random pinned to 0, new
    characters are all the alphabet's first letter, so the answer is known without reading the image."""
    await page.evaluate("Math.random = () => 0")
    await page.get_by_role("button", name="New captcha characters").click()
    await page.get_by_label("Type the characters").fill("AAAAAA")
    await page.get_by_label("I'm not a robot").check()
    await page.get_by_role("button", name="Verify and continue").click()
    await page.get_by_role("heading", name="Export ready").wait_for()


async def run_with_the_person(agent: Agent, runtime: Runtime) -> ExecutionResult:
    """Runs the demo task as the panel's user would: when the agent hands the browser over at the captcha, solve it
    and press continue; the same run then finishes the export."""
    handed_over = asyncio.Event()

    def on_activity(activity: AgentActivity) -> None:
        if isinstance(activity, HandOffActivity):
            handed_over.set()

    unsubscribe = agent.on("activity", on_activity)
    run = asyncio.ensure_future(agent.execute(DEMO_TASK))
    turn = asyncio.ensure_future(handed_over.wait())
    try:
        await asyncio.wait({run, turn}, timeout=_RUN_DEADLINE, return_when=asyncio.FIRST_COMPLETED)
        if not turn.done():
            await agent.stop()
            result = await run
            raise RuntimeError(f"The demo never handed the captcha over; it ended {result.status}: {result.data}")
        page = runtime.active_page
        if page is None:
            raise RuntimeError("Chromium closed before the captcha could be solved.")
        await solve_captcha(page)
        agent.resume()
        return await asyncio.wait_for(run, _RUN_DEADLINE)
    finally:
        turn.cancel()
        unsubscribe()


async def generate(out: Path) -> int:
    """Runs the demo end to end and saves its cassette to ``out``; returns the number of answers recorded."""
    model = ScriptedModel(TASK_STEPS)
    with tempfile.TemporaryDirectory(prefix="page-agent-demo-") as home:
        root = Path(home)
        # Recorded next to the throwaway profile: a failed run must not leave a half cassette at ``out``.
        recorder = RecordingClient(model, root / "cassette.json")
        runtime = Runtime(
            Settings(),
            AppPaths(root / "config", root / "data", root / "logs"),
            RuntimeOptions(demo=True, headless=True),
            llm_factory=lambda: recorder,
            demo=DemoBundle(),
        )
        try:
            result = await run_with_the_person(await runtime.agent(), runtime)
        finally:
            await runtime.shutdown()
    if result.status is not AgentStatus.COMPLETED or not result.success:
        raise RuntimeError(f"The demo ended {result.status} (success={result.success}): {result.data}")
    if not model.finished:
        raise RuntimeError("The demo finished before its script did.")
    recorder.cassette.save(out)
    return len(recorder.cassette.entries)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Record the demo cassette by running the demo in Chromium.")
    parser.add_argument("--out", type=Path, required=True, help="Where to write the cassette.")
    args = parser.parse_args(argv)
    try:
        count = asyncio.run(generate(args.out))
    except (RuntimeError, LLMError) as exc:
        print(f"Could not generate the demo cassette: {exc}", file=sys.stderr)
        return 1
    print(f"Recorded {count} answers to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
