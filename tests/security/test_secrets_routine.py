"""A routine's secrets stay on the routine's own sites, as a plain run's do: `run TEMPLATE --rows FILE` in a
subprocess, real headless Chromium, and the fake model obeying the page. The start page sends the agent to a
look-alike sign-in page on the other origin; the model types the secret there. It may go only to the start page's
site, the allowed sites and the sites the template's own words name, never to a site a cell names; the other
origin's log shows it never received the value."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.routine_helpers import run
from tests.cli.test_cli import cli, cli_env, home  # noqa: F401  (home: fixture)
from tests.fakes.llm_server import FakeLLMServer
from tests.security.conftest import HostileSite
from tests.security.test_safety_settings import VALUE, phished
from tests.security.test_secrets import click, done, obeying_model, posted, type_into

# The three ways a routine's secret reached the other site: its template, its rows (``{value}``: the secret,
# ``{other}``: the other site) and its --secret-columns ("": the secret comes from the environment instead).
STEERED = {
    "a cell names the other site": (
        "Sign in as {user} with {pw} on {where}",
        "user,pw,where\nana,{value},{other}",
        "pw",
    ),
    "no site is named anywhere": ("Sign in as {user} with {pw}", "user,pw\nana,{value}", "pw"),
    "an environment secret in the template": ("Sign in as {user} with <secret>pw</secret>", "user\nana", ""),
}


def routine_over(tmp_path: Path, template: str, rows: str, start: str, *extra: str) -> list[str]:
    path = tmp_path / "accounts.csv"
    path.write_text(rows + "\n", encoding="utf-8")
    return cli(template, "--rows", str(path), "--url", start, "--json", *extra)


def typed_output(home: Path) -> str:
    """What typing the secret told the model, from the row's run in History."""
    [saved] = [path for path in (home / "data" / "runs").glob("*.json") if path.name != "index.json"]
    events = json.loads(saved.read_text(encoding="utf-8"))["tasks"][0]["events"]
    return str(next(e["action"]["output"] for e in events if e.get("action", {}).get("name") == "input_text"))


@pytest.mark.parametrize("steered", list(STEERED))
def test_a_routines_secret_is_not_typed_on_a_site_a_page_steers_to(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer, hostile: HostileSite, steered: str
) -> None:
    template, rows, secret_column = STEERED[steered]
    start, other = hostile.page.removeprefix("http://"), hostile.attacker.removeprefix("http://")
    phished(llm_server)
    args = routine_over(
        tmp_path,
        template,
        rows.format(value=VALUE, other=other),
        f"{hostile.page}/secrets-phish.html",
        *(["--secret-columns", secret_column] if secret_column else []),
    )
    finished = run(args, cli_env(home, llm_server, **({} if secret_column else {"PAGE_AGENT_SECRET_PW": VALUE})))

    assert finished.returncode in (0, 1), finished.stderr
    assert not hostile.received(VALUE)
    assert posted(hostile, hostile.attacker, "/signin") == [b"email=&password="]
    # Only the start page's site: not the site a cell names.
    typed = typed_output(home)
    assert f'The secret "pw" may only be typed on {start}, and this field belongs to {other}' in typed, typed


def test_a_secret_cell_is_typed_on_the_start_pages_site_and_on_a_site_the_template_names(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer, hostile: HostileSite
) -> None:
    obeying_model(llm_server, type_into("type=password", "<secret>pw</secret>"), click("Sign in"), done("Signed in."))
    args = routine_over(
        tmp_path, "Sign in as {user} with {pw}", f"user,pw\nana,{VALUE}", f"{hostile.page}/secrets-signin.html",
        "--secret-columns", "pw",
    )  # fmt: skip
    on_start_page = run(args, cli_env(home, llm_server))
    assert on_start_page.returncode == 0, on_start_page.stderr
    assert posted(hostile, hostile.page, "/signin") == [f"email=&password={VALUE}".encode()]

    # The template's own words name the other site: the person sent the secret there.
    phished(llm_server)
    other = hostile.attacker.removeprefix("http://")
    args = routine_over(
        tmp_path, f"Sign in as {{user}} with {{pw}}, on {other} if the page asks", f"user,pw\nbob,{VALUE}",
        f"{hostile.page}/secrets-phish.html", "--secret-columns", "pw", "--results", str(tmp_path / "named.csv"),
    )  # fmt: skip
    named = run(args, cli_env(home, llm_server))
    assert named.returncode == 0, named.stderr
    assert posted(hostile, hostile.attacker, "/signin") == [f"email=&password={VALUE}".encode()]
    assert json.loads(named.stdout)["counts"] == {"done": 1}
