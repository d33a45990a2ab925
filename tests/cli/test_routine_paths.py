"""What a routine on the command line tells of the paths it learns: a redesign mid-routine mended from the row that
met it, told in a line on stderr; a row of another kind (a box the first row left unticked) becoming a path of its
own, told as a ``path_changed`` event with --events. A subprocess run of the CLI, real headless Chromium, the fake
model server and the CRM test site (its records are what the assertions count)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.routine_helpers import results, routine, rows_file, run
from tests.cli.test_cli import cli_env, home  # noqa: F401 - the fixture
from tests.fakes.crm_model import crm_model
from tests.fakes.crm_site import crm_site
from tests.fakes.llm_server import FakeLLMServer

PLANS = ("Free", "Starter", "Pro")


def customers(news: list[str]) -> str:
    return "".join(
        f"Customer {i},c{i}@x.test,{PLANS[i % 3]},2026-02-{i:02d},{said}\n" for i, said in enumerate(news, 1)
    )


def test_a_redesign_after_the_third_record_is_told_and_the_rows_after_it_replay_at_one_call(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, customers(["yes", "no", "yes", "no", "yes", "no"]))
    with crm_site() as site:

        def redesign(_data: dict[str, str]) -> None:
            if len(site.records) >= 2:  # this POST saves the third
                site.form_version = 3

        site.on_post = redesign
        done = run(routine(rows, site.new_url), cli_env(home, llm_server), timeout=240)
        assert done.returncode == 0, done.stderr
        assert [r["name"] for r in site.records] == [f"Customer {i}" for i in range(1, 7)] and site.posts == 6
    calls = [int(r["model_calls"]) for r in results(rows)]
    assert calls[1:3] == [1, 1] and calls[3] > 1 and calls[4:] == [1, 1]
    told = done.stderr.splitlines()
    assert (
        "page-agent-desktop: The site changed at row 4: “Full name” is now “Customer name”. Rows 5–6 use the new path."
    ) in told, done.stderr


def test_a_row_of_another_kind_is_a_path_of_its_own_told_as_an_event(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    """The first row leaves the newsletter box unticked; every row after the first of each kind replays at one call,
    though the first "yes" row's plan (Free) is the one the list shows already, so that row chose none."""
    llm_server.fallback = crm_model()
    news = ["no", "no", "yes", "no", "yes", "yes"]
    rows = rows_file(tmp_path, customers(news))
    with crm_site() as site:
        done = run(routine(rows, site.new_url, "--events"), cli_env(home, llm_server), timeout=240)
        assert done.returncode == 0, done.stderr
        assert [(r["name"], r["newsletter"]) for r in site.records] == [
            (f"Customer {i}", said) for i, said in enumerate(news, 1)
        ]
        assert site.posts == len(news)
    calls = [int(r["model_calls"]) for r in results(rows)]
    assert calls[0] > 1 and calls[2] > 1 and [calls[n] for n in (1, 3, 4, 5)] == [1, 1, 1, 1]
    events = [json.loads(line) for line in done.stderr.splitlines()]
    changed = [(e["row"], e["how"], e["rows"]) for e in events if e["event"] == "path_changed"]
    assert changed == [(1, "learned", [2, 4]), (3, "added", [5, 6])]
    added = next(e for e in events if e["event"] == "path_changed" and e["how"] == "added")
    assert added["words"] == (
        "Row 3 was another kind of row ({newsletter} is yes): rows like it follow its steps. Rows 5–6 use the new path."
    )
