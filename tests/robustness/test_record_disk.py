"""--record to a place that stops taking writes mid-run (a disk that fills up; here its folder is replaced by a file
after the first answer): the run goes on to its end, says in plain words that the recording is incomplete, exits 2
without a traceback, and Chromium is closed (the home fixture checks that none is left)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from tests.cli.test_cli import PAGE, cli, cli_env, home, press_then_done, run_cli  # noqa: F401  (home: fixture)
from tests.fakes.html_site import html_site
from tests.fakes.llm_server import FakeLLMServer, FakeResponse


def test_a_recording_that_can_no_longer_be_written_ends_the_run_plainly(
    home: Path, llm_server: FakeLLMServer, tmp_path: Path
) -> None:
    folder = tmp_path / "recordings"
    folder.mkdir()
    press = press_then_done()

    def respond(body: dict[str, Any]) -> FakeResponse:
        if len(llm_server.requests) == 2:  # the first answer was recorded; now the place is gone
            shutil.rmtree(folder)
            folder.write_text("a file where the folder was: no cassette can be written any more")
        return press(body)

    llm_server.fallback = respond
    with html_site(lambda _path: PAGE) as origin:
        run = run_cli(
            cli("Press the button", "--url", f"{origin}/", "--record", str(folder / "run.json")),
            cli_env(home, llm_server),
        )

    assert run.returncode == 2, run.stderr
    assert "Traceback" not in run.stderr
    assert f"The recording {folder / 'run.json'} could not be written" in run.stderr
    assert "holds at most the first 1 of the run's answers" in run.stderr
    assert len(llm_server.requests) == 2  # the run went on to its end
