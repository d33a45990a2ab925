"""Safety settings fail closed, on the command line as a script sees it (`python -m app run` in a subprocess, real
headless Chromium, the fake model obeying the page): a secret that names no sites stays on the start page's site and
the sites the task names; a damaged or empty list of allowed sites, or a secret's damaged sites, stops the run
before Chromium starts (exit 2, naming the setting)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_cli import cli, cli_env, home, run_cli  # noqa: F401  (home: fixture)
from tests.fakes.llm_server import FakeLLMServer
from tests.security.conftest import HostileSite
from tests.security.test_secrets import click, done, obeying_model, posted, type_into

VALUE = "pw-Vq8sLr2mXk9TzQ4w"


def phished(llm_server: FakeLLMServer) -> None:
    """A model that follows the start page (secrets-phish.html) to a look-alike sign-in page on the other origin and
    types the secret there."""
    obeying_model(
        llm_server,
        click("Sign in again"),
        type_into("type=password", "<secret>pw</secret>"),
        click("Sign in"),
        done("Signed in."),
    )


def test_a_secret_without_sites_is_not_typed_on_the_site_a_page_steers_to(
    home: Path, llm_server: FakeLLMServer, hostile: HostileSite
) -> None:
    phished(llm_server)
    run = run_cli(
        cli("Sign in with <secret>pw</secret>", "--url", f"{hostile.page}/secrets-phish.html", "--json"),
        cli_env(home, llm_server, PAGE_AGENT_SECRET_PW=VALUE),
    )

    assert not hostile.received(VALUE)
    assert posted(hostile, hostile.attacker, "/signin") == [b"email=&password="]
    typed = json.loads(run.stdout)["history"][1]["action"]["output"]
    assert typed.startswith("❌") and 'The secret "pw" may only be typed on 127.0.0.1:' in typed, typed


def test_a_secret_without_sites_is_typed_on_the_start_pages_site(
    home: Path, llm_server: FakeLLMServer, hostile: HostileSite
) -> None:
    obeying_model(llm_server, type_into("type=password", "<secret>pw</secret>"), click("Sign in"), done("Signed in."))
    run = run_cli(
        cli("Sign in with <secret>pw</secret>", "--url", f"{hostile.page}/secrets-signin.html"),
        cli_env(home, llm_server, PAGE_AGENT_SECRET_PW=VALUE),
    )
    assert run.returncode == 0, run.stderr
    [body] = posted(hostile, hostile.page, "/signin")
    assert f"password={VALUE}".encode() in body


@pytest.mark.parametrize(
    ("saved", "named"),
    [
        ({"allowed_domains": "example.com"}, "Only these sites"),
        ({"allowed_domains": ["example.com", 7]}, "Only these sites"),
        ({"secrets": [{"name": "pw", "domains": "example.com"}]}, "Settings → Secrets"),
        ({"secrets": [{"name": "pw", "domains": ["bad..host"]}]}, 'the sites of "pw"'),
    ],
    ids=["a list that is text", "a list with a number", "a secret's sites that are text", "a bad site"],
)
def test_damaged_safety_settings_stop_the_run_before_chromium_starts(
    home: Path, llm_server: FakeLLMServer, hostile: HostileSite, saved: dict[str, object], named: str
) -> None:
    settings = home / "config" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps(saved), encoding="utf-8")

    for _attempt in range(2):  # and again at the next start: the damaged file is not replaced by defaults
        run = run_cli(
            cli("Look around", "--url", f"{hostile.page}/index.html"),
            cli_env(home, llm_server, PAGE_AGENT_SECRET_PW=VALUE),
        )
        assert run.returncode == 2, run.stderr
        assert named in run.stderr, run.stderr
    assert json.loads(settings.read_text(encoding="utf-8")) == saved
    assert hostile.hits == [] and llm_server.requests == []
    assert not (home / "data" / "browser-profile").exists()


@pytest.mark.parametrize("given", ["", ",", " , "])
def test_an_allowed_sites_list_that_names_nothing_is_refused(home: Path, llm_server: FakeLLMServer, given: str) -> None:
    run = run_cli(cli("Look around", "--allowed-domains", given), cli_env(home, llm_server))
    assert run.returncode == 2
    assert "--allowed-domains" in run.stderr and "names no site" in run.stderr
    assert llm_server.requests == []


def test_the_start_pages_own_redirects_are_held_to_the_allowed_sites(
    home: Path, llm_server: FakeLLMServer, hostile: HostileSite
) -> None:
    # The --url page sends the browser elsewhere by script and by meta refresh as it loads.
    obeying_model(llm_server, done("Read the welcome page."))
    run = run_cli(
        cli(
            "Read the welcome page",
            "--url",
            f"{hostile.page}/nav-start-redirect.html",
            "--allowed-domains",
            hostile.page.removeprefix("http://"),
            "--json",
        ),
        cli_env(home, llm_server),
    )
    assert run.returncode == 0, run.stderr
    assert [hit.path for hit in hostile.hits if hit.origin == hostile.attacker] == []
    assert "Welcome back" in json.dumps(llm_server.requests)
