"""What every run is built from, made one way for a task (app/runtime.py: the panel, the CLI, MCP's tasks, and the
recorders the panel and MCP subscribe to its agents) and for a routine (app/routine/launch.py): the model client,
Chromium's launch options, and the recorder that keeps a run in History."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from app.browser.screen_rect import ScreenRect
from app.core.llm import LLMClient
from app.llm.cassette import Cassette, RecordingClient, ReplayClient
from app.llm.client import OpenAICompatibleClient
from app.settings.model import Settings
from app.settings.paths import AppPaths

if TYPE_CHECKING:
    from app.browser.session import LaunchOptions
    from app.history.recorder import RecordableAgent, RunRecorder
    from app.history.store import RunStore


class RunChoices(Protocol):
    """What a face chose for its runs over the saved settings (``RuntimeOptions`` is one; a routine makes one too)."""

    @property
    def headless(self) -> bool: ...
    @property
    def window(self) -> ScreenRect | None:
        """Where the launched Chromium's window goes (None: where Chromium puts it)."""
        ...

    @property
    def demo(self) -> bool:
        """The bundled demo plays (its own model, which the runtime builds)."""
        ...

    @property
    def replay(self) -> Path | None:
        """A cassette played back in place of the model."""
        ...

    @property
    def replay_pace(self) -> float | None: ...
    @property
    def record(self) -> Path | None:
        """Where every answer of the model is recorded."""
        ...


def model_client(
    settings: Settings,
    api_key: str | None,
    choices: RunChoices,
    on_recording_failed: Callable[[str], None] | None = None,
) -> LLMClient:
    """The configured model (``--record``: recorded as it answers), or the ``--replay`` cassette in its place.
    ``on_recording_failed(reason)``: the recording could not be written (a full disk); the run goes on."""
    if choices.replay is not None:
        return ReplayClient(Cassette.load(choices.replay), pace=choices.replay_pace or 0.0)
    client: LLMClient = OpenAICompatibleClient(settings.llm_settings(api_key))
    if choices.record is not None:
        client = RecordingClient(client, choices.record, on_failure=on_recording_failed)
    return client


def start_preparing(model: LLMClient) -> asyncio.Future[None] | None:
    """Let the model client get ready (import its SDK) while Chromium starts: on a cold start the two take about as
    long as each other, side by side rather than one after the other. Await what it returns to the end (a worker
    thread's import cannot be cancelled)."""
    prepare = getattr(model, "prepare", None)
    return asyncio.ensure_future(prepare()) if prepare is not None else None


async def close_model(model: LLMClient | None) -> None:
    """Close what the model client holds open (its connections), if it holds anything."""
    close = getattr(model, "close", None)
    if close is not None:
        await close()


def launch_options(settings: Settings, paths: AppPaths, choices: RunChoices) -> LaunchOptions:
    """Chromium with the user's profile and downloads folder, the configured executable (else the one found)."""
    from app.browser.session import LaunchOptions  # Playwright: imported when Chromium is first launched

    return LaunchOptions(
        executable=settings.browser_path or None,
        data_dir=paths.data_dir,
        profile_dir=paths.profile_dir,
        downloads_dir=paths.downloads_dir,
        headless=choices.headless,
        window=choices.window,
    )


def run_recorder(
    agent: RecordableAgent,
    store: RunStore,
    settings: Settings,
    api_key: str | None,
    choices: RunChoices,
    on_save_failed: Callable[[str], None] | None = None,
) -> RunRecorder:
    """Keeps ``agent``'s runs in History, the key masked wherever a model or a server echoes it, marked as the demo or
    a replay when no model was called. ``on_save_failed(reason)``: a run could not be saved (a full disk)."""
    from app.history.recorder import RunRecorder  # with the first agent, not on the way to the panel

    return RunRecorder(
        agent,
        store,
        settings,
        demo=choices.demo,
        replay=choices.replay is not None and not choices.demo,
        secrets=[api_key],
        on_save_failed=on_save_failed,
    )
