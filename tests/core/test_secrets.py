"""The secret vault on its own (filling, masking, learning a typed password, host patterns), the agent's masking with a
scripted page, the log filter, and where secrets come from (file, environment, keyring)."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest
from pydantic import SecretStr

from app.core.abort import AbortSignal
from app.core.errors import ToolError
from app.core.page import ElementInfo
from app.core.safety.guardrails import Guardrails
from app.core.safety.navigation import site_of
from app.core.safety.risky import ConfirmRequest
from app.core.safety.secrets import Secret, SecretVault, hide_everywhere, mask_everywhere, placeholder
from app.core.types import ExecutingActivity
from app.logging_setup import SECRETS_FILTER
from app.runtime import RuntimeOptions
from app.safety_from_settings import build_guardrails, load_secrets
from app.settings.model import SecretEntry, Settings
from app.settings.paths import app_paths
from app.settings.secrets import GivenSecret, SecretsSourceError, env_secrets, read_secrets_file, set_secret
from tests.core.conftest import AgentFactory
from tests.fakes.llm_server import FakeLLMServer, done_reply, tool_reply
from tests.fakes.memory_keyring import MemoryKeyring, memory_keyring  # noqa: F401  (fixture)
from tests.fakes.page import FakePage

VALUE = "Xq7-long-Secret-Value-91"
OTHER = "Xq7-long-Secret-Value-91-and-more"  # starts with VALUE: the longer one must win


def vault(*secrets: Secret) -> SecretVault:
    return SecretVault(list(secrets) or [Secret("pw", SecretStr(VALUE))])


async def filled(vault: SecretVault, text: str, url: str | None, words: str = "") -> str:
    return await vault.fill(text, url, words, signal=AbortSignal())


# --- filling ---------------------------------------------------------------------------------------------------


async def test_fill_types_the_value_of_each_placeholder() -> None:
    assert (
        await filled(vault(), "user:<secret>pw</secret>/<secret> PW </secret>", "https://a.example/")
        == f"user:{VALUE}/{VALUE}"
    )


async def test_unknown_name_is_refused_naming_the_known_ones_and_no_value() -> None:
    with pytest.raises(ToolError) as caught:
        await filled(vault(), "<secret>bank</secret>", "https://a.example/")
    message = str(caught.value)
    assert '"bank"' in message and "<secret>pw</secret>" in message and VALUE not in message


async def test_a_secret_without_a_value_says_where_to_set_it() -> None:
    with pytest.raises(ToolError, match="Settings → Secrets"):
        await filled(vault(Secret("pw", SecretStr(""))), "<secret>pw</secret>", "https://a.example/")


@pytest.mark.parametrize(
    ("url", "allowed"),
    [
        ("https://bank.example/login", True),
        ("https://www.bank.example/login", True),
        ("https://bank.example.evil.test/login", False),
        ("https://evilbank.example/", False),
        ("http://127.0.0.1:8001/", True),
        ("http://127.0.0.1:8002/", False),
        ("about:blank", False),
        ("", False),
    ],
)
async def test_a_secret_limited_to_sites_is_typed_only_there(url: str, allowed: bool) -> None:
    limited = vault(Secret("pw", SecretStr(VALUE), ("bank.example", "*.bank.example", "127.0.0.1:8001")))
    if allowed:
        assert await filled(limited, "<secret>pw</secret>", url) == VALUE
    else:
        with pytest.raises(ToolError, match="may only be typed on") as caught:
            await filled(limited, "<secret>pw</secret>", url)
        assert VALUE not in str(caught.value)


def test_a_learnt_site_is_exactly_the_host_and_port_it_was_typed_on() -> None:
    assert site_of("https://Example.COM./login") == "example.com:443"
    assert site_of("http://127.0.0.1:8080/x") == "127.0.0.1:8080"
    assert site_of("http://[::1]:9/") == "[::1]:9"
    assert site_of("data:text/html,x") is None
    assert site_of("http://example.com:bad/") is None


# --- masking ---------------------------------------------------------------------------------------------------


def test_mask_replaces_every_form_of_the_value_by_its_placeholder() -> None:
    v = vault(Secret("pw", SecretStr(VALUE)), Secret("longer", SecretStr(OTHER)))
    text = f"a {VALUE} b {OTHER} c {VALUE.upper()} d {json.dumps(OTHER)} e"
    masked = v.mask(text)
    assert VALUE.lower() not in masked.lower()
    assert masked == (
        'a <secret>pw</secret> b <secret>longer</secret> c <secret>pw</secret> d "<secret>longer</secret>" e'
    )


def test_mask_catches_the_json_and_url_forms_of_an_awkward_value() -> None:
    awkward = 'pä"ss wörd/&1'
    v = vault(Secret("pw", SecretStr(awkward)))
    for form in (json.dumps(awkward), json.dumps(awkward, ensure_ascii=False), "q=p%C3%A4%22ss+w%C3%B6rd%2F%261"):
        assert "<secret>pw</secret>" in v.mask(form)


def test_mask_catches_a_value_cut_off_by_an_ellipsis() -> None:
    v = vault()
    assert v.mask(f"value={VALUE[:12]}… more") == "value=<secret>pw</secret> more"
    assert v.mask(f"{VALUE[:7]} …(truncated)") == "<secret>pw</secret>(truncated)"
    assert v.mask("Xq7-…") == "<secret>pw</secret>"
    assert v.mask("Xq7…") == "Xq7…"  # three characters would mask ordinary words


def test_mask_is_idempotent_and_leaves_plain_text_alone() -> None:
    v = vault()
    once = v.mask(f"x {VALUE} y")
    assert v.mask(once) == once
    assert v.mask("nothing secret here") == "nothing secret here"


@pytest.mark.parametrize("typed", ["not", "abc", "delete", "Account", "ACCOUNT", "open sesame", "Do-not-share"])
def test_a_short_value_or_ordinary_words_typed_into_a_code_field_is_not_learnt(typed: str) -> None:
    # A page that says "Your code is: not" must not make "not" a mask over every text.
    v = SecretVault()
    assert v.remember_typed(typed, "https://site.example/") is None
    assert v.secrets == [] and v.mask(f"Do not delete the Account: {typed}.") == f"Do not delete the Account: {typed}."


@pytest.mark.parametrize("typed", ["493817", "hunter2", "s3cret!", "sunShine", "correct horse 9"])
def test_a_code_or_a_password_typed_as_itself_is_learnt(typed: str) -> None:
    v = SecretVault()
    name = v.remember_typed(typed, "https://site.example/")
    assert name == "typed_password" and v.mask(f"it was {typed}.") == f"it was {placeholder(name)}."


def test_a_learnt_value_never_masks_the_persons_or_the_apps_words() -> None:
    v = SecretVault([Secret("pw", SecretStr(VALUE))])
    v.remember_typed("code-4471", "https://site.example/")
    text = f"Sign in with {VALUE} and the code code-4471"
    assert v.mask(text) == "Sign in with <secret>pw</secret> and the code <secret>typed_password</secret>"
    assert v.mask_own_words(text) == "Sign in with <secret>pw</secret> and the code code-4471"


async def test_a_typed_password_is_learnt_once_and_typable_again_on_its_own_site_only() -> None:
    v = SecretVault([Secret("typed_password", SecretStr("someone-else's"))])
    name = v.remember_typed("hunter2-literal", "http://127.0.0.1:8001/login")
    assert name == "typed_password_2"
    assert v.remember_typed("hunter2-literal", "http://127.0.0.1:8001/again") == name
    assert v.mask("pw hunter2-literal") == "pw <secret>typed_password_2</secret>"
    assert await filled(v, placeholder(name), "http://127.0.0.1:8001/other") == "hunter2-literal"
    with pytest.raises(ToolError):
        await filled(v, placeholder(name), "http://127.0.0.1:8002/")


def test_mask_everywhere_covers_every_live_vault_and_hidden_keys() -> None:
    first, second = vault(), SecretVault([Secret("token", SecretStr("tok-123456789"))])
    hide_everywhere("plain-key-without-prefix-42")
    masked = mask_everywhere(f"{VALUE} tok-123456789 plain-key-without-prefix-42")
    assert masked == "<secret>pw</secret> <secret>token</secret> ••••"
    del first, second


def test_the_log_filter_masks_message_arguments_and_traceback(tmp_path: Path) -> None:
    v = vault()
    handler = logging.FileHandler(tmp_path / "log.txt", encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(message)s"))
    handler.addFilter(SECRETS_FILTER)
    logger = logging.getLogger("tests.secrets")
    logger.addHandler(handler)
    try:
        logger.warning("typed %s", VALUE)
        try:
            raise RuntimeError(f"fill failed for {VALUE}")
        except RuntimeError:
            logger.exception("tool failed")
    finally:
        logger.removeHandler(handler)
        handler.close()
    text = (tmp_path / "log.txt").read_text(encoding="utf-8")
    assert VALUE not in text and text.count("<secret>pw</secret>") == 2 and "RuntimeError" in text
    del v


# --- the agent: what the model, the events and the result see --------------------------------------------------

PASSWORD_PAGE = (
    "Current page: [Sign in](http://site.test/login)\nViewport 1280x800; 0.0 pages above, 0.0 pages below\n"
    "[Start of page]\n[1]<input type=password name=pw />\n[2]<button>Sign in />\n[End of page]"
)


async def test_a_password_typed_as_itself_is_masked_in_every_later_prompt_event_and_result(
    llm_server: FakeLLMServer, make_agent: AgentFactory
) -> None:
    literal = "Literal-Pass-7781"
    page = FakePage(PASSWORD_PAGE, url="http://site.test/login")
    page.elements[1] = ElementInfo(tag="input", input_type="password", frame_url="http://site.test/login")
    agent, _ = make_agent(page=page, guardrails=Guardrails())
    activities: list[object] = []
    agent.on("activity", activities.append)
    llm_server.add(
        tool_reply({"input_text": {"index": 1, "text": literal}}, memory=f"the password is {literal}"),
        tool_reply({"click_element_by_index": {"index": 2}}),
        done_reply(f"Signed in with {literal}"),
    )
    page.content = PASSWORD_PAGE  # the page echoes nothing yet; the next look does
    task = f"Sign in with the password {literal}"
    result = await agent.execute(task)
    # The page got the real password, through the secret path (only into the checked field, never as keystrokes).
    assert page.actions[0] == ("secret_text", (1, literal))
    for index in (1, 2):  # the task as the user wrote it, and nothing else holds the password
        assert llm_server.user_message(index).count(f"<user_request>\n{task}\n</user_request>") == 1
        assert literal not in json.dumps(llm_server.requests[index]).replace(json.dumps(task)[1:-1], "")
    executing = next(a for a in activities if isinstance(a, ExecutingActivity))
    assert executing.input["text"] == "<secret>typed_password</secret>"
    assert literal not in "".join(repr(a) for a in activities)
    assert literal not in result.model_dump_json()
    assert literal not in agent.previous_tasks[-1].model_dump_json()
    assert "<secret>typed_password</secret>" in agent.previous_tasks[-1].task


async def test_a_password_learnt_late_is_masked_in_what_was_recorded_before(
    llm_server: FakeLLMServer, make_agent: AgentFactory
) -> None:
    literal = "Early-Memory-Pass-4410"
    page = FakePage(PASSWORD_PAGE, url="http://site.test/login")
    page.elements[1] = ElementInfo(tag="input", input_type="password", frame_url="http://site.test/login")
    agent, _ = make_agent(page=page, guardrails=Guardrails())
    told: list[str] = []
    agent.on("event_added", lambda event: told.append(json.dumps(event.model_dump())))
    llm_server.add(
        tool_reply({"wait": {"seconds": 0}}, memory=f"I will type {literal} next"),  # written before it is learnt
        tool_reply({"input_text": {"index": 1, "text": literal}}),
        done_reply("Signed in."),
    )
    result = await agent.execute("Sign in with the password I gave you")
    assert literal in told[0]  # step 1 as first told: nothing had been learnt yet
    assert literal not in told[1] and "<secret>typed_password</secret>" in told[1]  # the typing step
    assert literal not in json.dumps([e.model_dump() for e in agent.history])  # step 1 too, once learnt
    assert literal not in result.model_dump_json()


async def test_a_page_that_echoes_a_secret_shows_the_placeholder(
    llm_server: FakeLLMServer, make_agent: AgentFactory
) -> None:
    # The title as the real page text carries it: on its "Current page" line (the current tab's line omits it).
    page = FakePage(
        PASSWORD_PAGE.replace("[End of page]", f"Your password is {VALUE}\n[End of page]").replace(
            "[Sign in]", f"[Hello {VALUE}]"
        )
    )
    page.title = f"Hello {VALUE}"
    page.pending_events.append(f"A download finished: {VALUE}.txt")
    agent, _ = make_agent(page=page, guardrails=Guardrails(secrets=vault()))
    llm_server.add(done_reply("ok"))
    await agent.execute("Look")
    body = json.dumps(llm_server.requests[0])
    assert VALUE not in body and body.count("<secret>pw</secret>") >= 3


# --- where secrets come from ------------------------------------------------------------------------------------


def private_file(tmp_path: Path, data: object, mode: int = 0o600) -> Path:
    path = tmp_path / "secrets.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    os.chmod(path, mode)
    return path


def test_a_secrets_file_gives_values_and_sites(tmp_path: Path) -> None:
    path = private_file(
        tmp_path, {"pw": VALUE, "bank": {"value": OTHER, "domains": ["bank.example", "*.bank.example"]}}
    )
    given = read_secrets_file(path)
    assert given["pw"].value.get_secret_value() == VALUE and given["pw"].domains is None
    assert given["bank"].domains == ["bank.example", "*.bank.example"]


@pytest.mark.parametrize(
    ("content", "mode", "words"),
    [
        ({"pw": VALUE}, 0o644, "chmod 600"),
        ({"pw": VALUE}, 0o640, "other users"),
        ("{not json", 0o600, "not valid JSON"),
        ('["a"]', 0o600, "one JSON object"),
        ({"Bad Name": VALUE}, 0o600, "not a usable secret name"),
        ({"pw": "abc"}, 0o600, "shorter than 4"),
        ({"pw": 12345}, 0o600, "must be a text value"),
        ({"pw": {"value": VALUE, "domains": ["http://x.example/"]}}, 0o600, "not a site name"),
    ],
)
def test_a_bad_secrets_file_is_refused_in_plain_words(tmp_path: Path, content: object, mode: int, words: str) -> None:
    path = private_file(tmp_path, content, mode)
    with pytest.raises(SecretsSourceError, match=words) as caught:
        read_secrets_file(path)
    assert VALUE not in str(caught.value)


def test_a_missing_secrets_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SecretsSourceError, match="does not exist"):
        read_secrets_file(tmp_path / "nope.json")


def test_environment_secrets() -> None:
    given = {"PAGE_AGENT_SECRET_CRM_PASSWORD": VALUE, "PAGE_AGENT_SECRET_EMPTY": "", "PAGE_AGENT_TOTP_ACME": OTHER}
    assert env_secrets({**given, "HOME": "/"}) == {
        "crm_password": GivenSecret(value=SecretStr(VALUE)),
        "acme": GivenSecret(value=SecretStr(OTHER), one_time_code=True),
    }
    with pytest.raises(SecretsSourceError, match="PAGE_AGENT_SECRET_PIN"):
        env_secrets({"PAGE_AGENT_SECRET_PIN": "12"})


def test_precedence_file_then_environment_then_keyring_and_settings_sites_hold(
    tmp_path: Path, memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_secret("crm", "from-the-keyring")
    set_secret("mail", "mail-from-keyring")
    monkeypatch.setenv("PAGE_AGENT_SECRET_CRM", "from-the-environment")
    monkeypatch.setenv("PAGE_AGENT_SECRET_SHOP", "shop-from-environment")
    settings = Settings(
        secrets=[
            SecretEntry(name="crm", domains=["crm.example"]),
            SecretEntry(name="mail"),
            SecretEntry(name="gone", domains=["x.example"]),
        ]
    )
    path = private_file(tmp_path, {"shop": {"value": "shop-from-the-file", "domains": ["shop.example"]}})
    loaded = {s.name: s for s in load_secrets(settings, RuntimeOptions(secrets_file=path))}
    assert {n: s.value.get_secret_value() for n, s in loaded.items()} == {
        "crm": "from-the-environment",
        "mail": "mail-from-keyring",
        "shop": "shop-from-the-file",
        "gone": "",
    }
    assert loaded["crm"].domains == ("crm.example",)  # a value from elsewhere keeps the sites set in Settings
    assert loaded["shop"].domains == ("shop.example",)
    assert loaded["mail"].domains == ()


async def test_the_person_is_asked_about_a_risky_moment_without_the_secret(tmp_path: Path) -> None:
    asked: list[ConfirmRequest] = []

    async def confirm(request: ConfirmRequest, _signal: AbortSignal) -> bool:
        asked.append(request)
        return False

    path = private_file(tmp_path, {"pw": VALUE})
    guardrails = build_guardrails(Settings(), app_paths(), RuntimeOptions(secrets_file=path), confirm)
    assert guardrails.confirm is not None
    await guardrails.confirm(ConfirmRequest(kind="dialog", message=f"Send {VALUE} to us?"), AbortSignal())
    assert asked[0].message == "Send <secret>pw</secret> to us?"


async def test_the_question_bar_never_shows_a_secret(llm_server: FakeLLMServer, make_agent: AgentFactory) -> None:
    literal = "Literal-Pass-7781"
    page = FakePage(PASSWORD_PAGE)
    page.elements[1] = ElementInfo(tag="input", input_type="password", frame_url="http://site.test/login")
    questions: list[str] = []

    async def ask_user(question: str, _signal: AbortSignal) -> str:
        questions.append(question)
        return "yes"

    agent, _ = make_agent(page=page, guardrails=Guardrails(), ask_user=ask_user)
    llm_server.add(
        tool_reply({"input_text": {"index": 1, "text": literal}}),
        tool_reply({"ask_user": {"question": f"Is {literal} right?"}}),
        done_reply(),
    )
    await agent.execute("Sign in")
    assert questions == ["Is <secret>typed_password</secret> right?"]


async def test_a_site_limited_value_written_out_is_held_to_its_sites_too() -> None:
    v = SecretVault()
    v.remember_typed("hunter2-literal", "https://bank.example/login")
    with pytest.raises(ToolError, match="may only be typed on"):
        await filled(v, "my password is hunter2-literal", "https://evil.example/")
    assert await filled(v, "hunter2-literal", "https://bank.example/again") == "hunter2-literal"


async def test_a_secret_for_a_field_no_longer_on_the_page_is_not_typed() -> None:
    with pytest.raises(ToolError, match="not in the current page state"):
        await filled(vault(), "<secret>pw</secret>", None)
    assert await filled(vault(), "plain words", None) == "plain words"


def test_pieces_and_spelled_out_forms_of_a_value_are_masked() -> None:
    value = "pw-AbCdEfGh12345678xyz"
    vault = SecretVault([Secret("pw", SecretStr(value))])
    for text in (value[1:], " ".join(value), "-".join(value), value[3:14], f"ends in {value[-8:]}.", value.upper()[2:]):
        assert value[3:11].lower() not in vault.mask(text).lower(), text
        assert "<secret>pw</secret>" in vault.mask(text)
    # Seven characters of it are no piece: ordinary words stay.
    assert vault.mask(f"id {value[5:12]} ok") == f"id {value[5:12]} ok"


def test_a_piece_of_a_secret_inside_other_words_is_left_alone() -> None:
    # Plain text that shares eight characters with a secret inside longer words is other words: masking them would
    # garble it ("-<secret>pw</secret>columns") and tell which characters the secret holds.
    vault = SecretVault([Secret("pw", SecretStr("x7-secret-Qz9EARER_TOk"))])
    for text in ("run it with --secret-columns pw", "set BEARER_TOKEN first", "a not-secret-words line"):
        assert vault.mask(text) == text
    # The same characters standing on their own, or with a digit or a symbol of the secret, are its pieces.
    for text in ("in -secret- mode", "it ends in -secret-Qz9.", "7-secret-columns", "Middle: Qz9EARER_TO!"):
        assert "<secret>pw</secret>" in vault.mask(text), text


def test_a_page_echoing_the_start_of_a_token_shows_none_of_it() -> None:
    token = "sk-live-4f8a9b2c7d1e6f"
    vault = SecretVault([Secret("api", SecretStr(token))])
    for text in (f"Your key starts with {token[:8]}", f"key={token[:12]}XXXXXXXX", f"({token[:10]}) saved"):
        assert token[:8] not in vault.mask(text), text


async def test_a_secret_without_sites_of_its_own_goes_only_to_the_default_sites_and_those_the_task_names() -> None:
    vault = SecretVault([Secret("pw", SecretStr("long-enough-value"))], default_sites=("crm.example.com",))
    assert await filled(vault, "<secret>pw</secret>", "https://crm.example.com/login") == "long-enough-value"
    with pytest.raises(ToolError, match=r"may only be typed on crm\.example\.com"):
        await filled(vault, "<secret>pw</secret>", "https://crm-example.com.evil.test/login")
    task = "Sign in to https://mail.example.org as ada@gmail.com with <secret>pw</secret>"
    assert await filled(vault, "<secret>pw</secret>", "https://mail.example.org/", task) == "long-enough-value"
    with pytest.raises(ToolError):  # an e-mail address names no site
        await filled(vault, "<secret>pw</secret>", "https://gmail.com/", task)
    nowhere = SecretVault([Secret("pw", SecretStr("long-enough-value"))], default_sites=())
    with pytest.raises(ToolError, match="names no sites"):
        await filled(nowhere, "<secret>pw</secret>", "https://crm.example.com/login", "Sign in")
