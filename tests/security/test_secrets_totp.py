"""Signing in with a one-time code the model never sees: a stand-in site (tests/fakes/totp_site.py) that asks for a
password, then for the code of the moment of an account's setup key, on the test's clock (or, for a routine run as
`python -m app run TEMPLATE --rows FILE`, the system's). Real headless Chromium, the real HTTP fake model obeying the
page; the agent writes <secret>pw</secret> and <secret>code</secret>."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from app.browser.controller import PlaywrightPageController
from app.core.safety.one_time_codes import OneTimeCode, TotpKey, parse_totp
from app.core.safety.secrets import Secret
from app.core.types import AgentStatus, HandOffActivity
from tests.cli.routine_helpers import run
from tests.cli.test_cli import cli, cli_env, home  # noqa: F401  (home: fixture)
from tests.fakes.clock import FakeClock
from tests.fakes.llm_server import FakeLLMServer
from tests.fakes.totp_site import TotpSite, totp_site
from tests.security.test_secrets import (  # noqa: F401  (rig_for, log_dir, value: fixtures)
    Rig,
    assert_nowhere,
    click,
    done,
    log_dir,
    obeying_model,
    open_page,
    results,
    rig_for,
    type_into,
    value,
)

KEY = base64.b32encode(b"acme-billing-2fa-key").decode()
START = 30 * 56_666_700  # the start of a window


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START + 10)


@pytest.fixture
def site(clock: FakeClock, value: str) -> Iterator[TotpSite]:
    with totp_site(TotpSite({"ana": (value, parse_totp(KEY))}, now=clock.now)) as served:
        yield served


def secrets(site: TotpSite, clock: FakeClock, value: str) -> tuple[Secret, Secret]:
    host = site.origin.removeprefix("http://")
    code = OneTimeCode("code", parse_totp(KEY), clock)
    return Secret("pw", SecretStr(value), (host,)), Secret("code", SecretStr(KEY), (host,), source=code)


SIGN_IN = (
    type_into("name=user", "ana"),
    type_into("type=password", "<secret>pw</secret>"),
    click("Sign in"),
    type_into("name=code", "<secret>code</secret>"),
    click("Verify"),
)


def assert_never_told(rig: Rig, *values: str) -> None:
    for told in (*values, KEY, KEY.lower()):
        assert_nowhere(told, rig.outputs())


async def test_the_agent_signs_in_with_the_code_of_that_window_and_nothing_shows_it_or_the_key(
    rig_for: Callable[..., Rig],
    controller: PlaywrightPageController,
    site: TotpSite,
    clock: FakeClock,
    value: str,
) -> None:
    rig = rig_for(*secrets(site, clock, value))
    await open_page(controller, site.origin)
    obeying_model(rig.llm_server, *SIGN_IN, done("Signed in."))

    result = await rig.run("Sign in to Acme billing as ana with <secret>pw</secret> and <secret>code</secret>")

    assert result.success, result.data
    code = TotpKey(parse_totp(KEY).key, KEY).code(START + 10)
    [attempt] = site.log
    assert (attempt.code, attempt.window, attempt.accepted) == (code, START // 30, True)
    assert clock.waits == []
    # The page shows the code back: the model reads the placeholder.
    after = rig.llm_server.user_message(len(rig.llm_server.requests) - 1)
    assert "Code <secret>code</secret> accepted" in after
    assert_never_told(rig, code, value)


async def test_a_code_typed_2_s_before_its_window_ends_is_the_next_windows(
    rig_for: Callable[..., Rig],
    controller: PlaywrightPageController,
    site: TotpSite,
    clock: FakeClock,
    value: str,
) -> None:
    rig = rig_for(*secrets(site, clock, value))
    await open_page(controller, site.origin)
    steps = list(SIGN_IN)

    def near_the_edge(page: str) -> dict[str, object]:
        clock.at = START + 28  # the model's call took until 2 s before the window's end
        return steps[3](page)

    obeying_model(rig.llm_server, *steps[:3], near_the_edge, steps[4], done("Signed in."))

    result = await rig.run("Sign in to Acme billing as ana with <secret>pw</secret> and <secret>code</secret>")

    assert result.success, result.data
    assert clock.waits == [START + 30]  # it waited for the next window to begin
    [attempt] = site.log
    key = parse_totp(KEY)
    assert attempt.accepted and attempt.window == START // 30 + 1
    assert attempt.code == key.code(START + 30) != key.code(START + 28)
    assert_never_told(rig, attempt.code, key.code(START + 28), value)


async def test_a_refused_code_is_tried_once_in_the_next_window_then_the_person_signs_in(
    rig_for: Callable[..., Rig],
    controller: PlaywrightPageController,
    site: TotpSite,
    clock: FakeClock,
    value: str,
) -> None:
    rig = rig_for(*secrets(site, clock, value))
    handed: list[str] = []

    def person(activity: object) -> None:
        if isinstance(activity, HandOffActivity):
            handed.append(activity.reason)
            rig.agent.resume("I signed in myself.")

    rig.agent.on("activity", person)
    site.refuse = 2
    await open_page(controller, f"{site.origin}/code?user=ana")  # past the password
    again = SIGN_IN[3:]
    obeying_model(rig.llm_server, *again, *again, again[0], done("Signed in by the person."))

    result = await rig.run("Sign in to Acme billing as ana with <secret>pw</secret> and <secret>code</secret>")

    assert result.status == AgentStatus.COMPLETED
    # Typed twice: the second in the window after the refused one; the third never typed: the person's turn.
    assert [(a.window, a.accepted) for a in site.log] == [(START // 30, False), (START // 30 + 1, False)]
    assert clock.waits == [START + 30]
    assert handed == [
        "The site refused the one-time code “code” twice. Sign in yourself in this window, then continue."
    ]
    third = results(rig.agent)[4]
    assert third.startswith("❌") and "refused" in third and "handed to the person" in third
    assert_never_told(rig, *(a.code for a in site.log), value)


def test_a_routines_rows_sign_in_as_different_users_each_with_the_code_of_its_own_key(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    keys = {user: base64.b32encode(f"{user}-acme-billing-key".encode()).decode() for user in ("ana", "bob")}
    passwords = {"ana": "ana-Pa55-word", "bob": "bob-Pa55-word"}
    rows = tmp_path / "accounts.csv"
    rows.write_text("user,pw,code\n" + "".join(f"{u},{passwords[u]},{keys[u]}\n" for u in keys), encoding="utf-8")
    account = {user: (passwords[user], parse_totp(keys[user])) for user in keys}
    started = time.time()
    with totp_site(TotpSite(account)) as site:
        obeying_model(
            llm_server,
            *(step for user in keys for step in (type_into("name=user", user), *SIGN_IN[1:], done("Signed in."))),
        )
        template = "Sign in to Acme billing as {user} with {pw} and the one-time code {code}"
        args = cli(template, "--rows", str(rows), "--url", site.origin, "--secret-columns", "pw", "--totp-columns",
                   "code", "--no-replay", "--json")  # fmt: skip
        finished = run(args, cli_env(home, llm_server))
    assert finished.returncode == 0, finished.stderr
    assert json.loads(finished.stdout)["counts"] == {"done": 2}
    # Each row typed the code of its own key, of a window while the routine ran.
    assert [(attempt.user, attempt.accepted) for attempt in site.log] == [("ana", True), ("bob", True)]
    for attempt in site.log:
        key = account[attempt.user][1]
        assert attempt.window is not None and key.window(started) <= attempt.window <= key.window(time.time())
    told = json.dumps(llm_server.requests) + finished.stdout + finished.stderr
    results = (tmp_path / "accounts-results.csv").read_text(encoding="utf-8")
    saved = "".join(path.read_text(encoding="utf-8") for path in (home / "data" / "runs").glob("*.json"))
    for secret in (*(attempt.code for attempt in site.log), *keys.values(), *passwords.values()):
        assert secret not in told and secret not in results and secret not in saved, secret
