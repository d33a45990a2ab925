"""The bundled demo as one piece: its replayed model, the secret its task signs in with, its start page on the local
demo site, and the task the panel shows. The entry points build it and hand it to the runtime (app/runtime.py's
``Demo``), which knows nothing else of the demo."""

from __future__ import annotations

from pathlib import Path

from pydantic import SecretStr

from app.assets import resource_path
from app.core.llm import LLMClient
from app.core.safety.secrets import Secret
from app.demo.site import DEMO_HOST, DemoSite
from app.demo.task import DEMO_TASK
from app.llm.cassette import Cassette, ReplayClient

DEMO_CASSETTE = "demo/cassette.json"
DEMO_START = "index.html?reset"  # signed out, sample data only: every demo run starts the same way
# Seconds of "thinking" before each replayed answer, so a demo audience can follow along.
DEMO_PACE = 1.2
# A captcha handed back unsolved is handed over again by the replay; any other page the recording did not expect
# ends the demo with this (the fields: app/llm/cassette.py MISMATCH).
DEMO_MISMATCH = (
    "The demo can only follow its recording, and this page is not where the recording expects it (its "
    "next step acts on {element}). Press New task to start the demo again."
)
DEMO_AGAIN = "Not done yet: the captcha is still on the page. {reason}"
DEMO_END = (
    "That is the end of the recorded demo. To give the agent tasks of your own, add a model and its API key "
    "in Settings."
)
# The demo account's password. The demo hands it to the agent as a named secret, the way a user should: the task says
# <secret>demo_password</secret>, so the recorded answers replay it without holding it.
DEMO_SECRET = "demo_password"
DEMO_PASSWORD = "demo1234"


class DemoBundle:
    """The demo the runtime plays (the ``Demo`` of app/runtime.py). Its site starts with the first start page and
    stops with ``close()``."""

    task = DEMO_TASK

    def __init__(self) -> None:
        self._site = DemoSite()  # started on first use

    @property
    def secret(self) -> Secret:
        """The demo account's password, typed only on the demo site."""
        return Secret(DEMO_SECRET, SecretStr(DEMO_PASSWORD), (DEMO_HOST,))

    def model(self, cassette: Path | None = None, pace: float | None = None) -> LLMClient:
        """The demo's recording replayed (``cassette``: another one, played the demo's way), ``pace`` seconds before
        each answer (None: the demo's pace)."""
        return ReplayClient(
            Cassette.load(cassette if cassette is not None else resource_path(DEMO_CASSETTE)),
            pace=DEMO_PACE if pace is None else pace,
            mismatch=DEMO_MISMATCH,
            end=DEMO_END,
            again=DEMO_AGAIN,
            catch_up=True,
        )

    async def start_page(self) -> str:
        """The demo's sign-in page, signed out with sample data only; the site starts the first time."""
        return await self._site.opened(DEMO_START)

    async def close(self) -> None:
        await self._site.stop()
