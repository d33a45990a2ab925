"""Where a secret's value may go when it is typed: only into the element the agent checked, in the frame it checked,
and only on the sites it belongs to. Hostile pages on 127.0.0.1, real headless Chromium, a model that obeys them."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from pydantic import SecretStr

from app.browser.controller import PlaywrightPageController
from app.core.safety.secrets import Secret
from tests.security.conftest import HostileSite
from tests.security.test_secrets import (  # noqa: F401  (rig_for, log_dir, value: fixtures)
    Rig,
    assert_nowhere,
    click,
    done,
    log_dir,
    obeying_model,
    open_page,
    posted,
    results,
    rig_for,
    type_into,
    value,
)


async def test_a_frame_that_keeps_grabbing_the_focus_never_receives_the_secret(
    rig_for: Callable[..., Rig], controller: PlaywrightPageController, hostile: HostileSite, value: str
) -> None:
    # Another site's chat frame keeps taking the focus: a value typed as keystrokes would land in it.
    rig = rig_for(Secret("pw", SecretStr(value), (hostile.page.removeprefix("http://"),)))
    await open_page(controller, f"{hostile.page}/secrets-focus-thief.html")
    obeying_model(
        rig.llm_server, type_into("type=password", "<secret>pw</secret>"), click("Sign in"), done("Signed in.")
    )

    await rig.run("Sign in with <secret>pw</secret>")

    assert not hostile.received(value, hostile.attacker)
    typed = results(rig.agent)[0]
    assert typed.startswith("Typed ••••") and value not in typed
    [body] = posted(hostile, hostile.page, "/signin")
    assert f"password={value}".encode() in body  # the checked field, and only it, holds the value
    assert_nowhere(value, rig.outputs())


async def test_a_secret_is_refused_when_the_page_moves_the_focus_off_the_checked_field(
    rig_for: Callable[..., Rig], controller: PlaywrightPageController, hostile: HostileSite, value: str
) -> None:
    # The page hands the focus to the other site's frame the moment its password field gets it.
    rig = rig_for(Secret("pw", SecretStr(value), (hostile.page.removeprefix("http://"),)))
    await open_page(controller, f"{hostile.page}/secrets-focus-thief.html#hand-over")
    obeying_model(rig.llm_server, type_into("type=password", "<secret>pw</secret>"), done("Could not sign in."))

    await rig.run("Sign in with <secret>pw</secret>")

    typed = results(rig.agent)[0]
    assert typed.startswith("❌") and "focus" in typed and "nothing was typed" in typed.lower()
    assert not hostile.received(value)
    assert_nowhere(value, rig.outputs())


async def test_a_password_in_a_shown_text_field_reaches_the_model_only_as_a_placeholder(
    rig_for: Callable[..., Rig], controller: PlaywrightPageController, hostile: HostileSite, value: str
) -> None:
    # "Show password" made the fields text; their autocomplete says they hold a password or a code.
    rig = rig_for()
    await open_page(controller, f"{hostile.page}/secrets-shown.html")
    obeying_model(
        rig.llm_server,
        type_into("name=password", value),
        type_into("name=code", "493817"),
        click("Sign in"),
        done("Signed in."),
    )

    task = f"Sign in with the password {value} and the code 493817"
    await rig.run(task)

    first = rig.llm_server.user_message(0).split("<browser_state>", 1)[1]
    assert "autofilled-Vx8q2Lr7" not in first and "autocomplete=" in first
    assert "name=saved value=••••" in first or "value=••••" in first
    typed = results(rig.agent)[:2]
    assert all(result.startswith("Typed ••••") for result in typed), typed
    [body] = posted(hostile, hostile.page, "/signin")
    assert f"password={value}".encode() in body and b"code=493817" in body
    # The person's own words are never rewritten with what was learnt from typing; nothing else holds either value.
    later = rig.llm_server.user_message(2)
    assert later.count(f"<user_request>\n{task}\n</user_request>") == 1
    elsewhere = later.replace(task, "")
    assert value not in elsewhere and "493817" not in elsewhere


@pytest.mark.parametrize("word", ["not", "delete", "Account"])
async def test_an_ordinary_word_typed_as_a_code_never_masks_the_persons_task_or_the_page(
    rig_for: Callable[..., Rig], controller: PlaywrightPageController, hostile: HostileSite, word: str
) -> None:
    rig = rig_for()
    await open_page(controller, f"{hostile.page}/secrets-code-word.html?code={word}")
    obeying_model(rig.llm_server, type_into("name=code", word), click("Verify"), done("Verified."))
    task = "Verify it is me with the code the page gives. Do not delete the Account."

    await rig.run(task)

    assert posted(hostile, hostile.page, "/verify") == [f"code={word}".encode()]
    later = rig.llm_server.user_message(1)
    assert f"<user_request>\n{task}\n</user_request>" in later
    assert "We will not delete the account without your code." in later
    told = [rig.llm_server.user_message(i) for i in range(len(rig.llm_server.requests))]
    assert "typed_password" not in json.dumps(told) + "\n".join(rig.events)


async def test_a_page_echoing_pieces_of_a_secret_shows_the_model_none_of_them(
    rig_for: Callable[..., Rig], controller: PlaywrightPageController, hostile: HostileSite, value: str
) -> None:
    rig = rig_for(Secret("pw", SecretStr(value)))
    await open_page(controller, f"{hostile.page}/secrets-echo-parts.html")
    obeying_model(rig.llm_server, type_into("type=password", "<secret>pw</secret>"), done("Signed in."))

    await rig.run("Sign in with <secret>pw</secret>")

    seen = rig.llm_server.user_message(1)
    assert "It ends in" in seen and "Spelled:" in seen and "Middle:" in seen
    for piece in (value[1:], " ".join(value), value[3:14], value[-8:]):
        assert piece not in seen, piece
        assert_nowhere(piece, rig.outputs())
