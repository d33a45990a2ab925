"""Shared fixtures: the fake model endpoint. Qt runs offscreen in every test."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from tests.fakes.llm_server import FakeLLMServer  # noqa: E402


@pytest.fixture
def llm_server() -> Iterator[FakeLLMServer]:
    server = FakeLLMServer().start()
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def collect_qt_garbage_on_the_main_thread(request: pytest.FixtureRequest) -> Iterator[None]:
    """Panel and dialog tests: collect cycles here, on the main thread. A cycle collected in a worker thread
    (asyncio.to_thread) would destroy an earlier test's Qt objects (an old qasync loop's timer) there, and Qt crashes
    later on a timer it could not stop ("Timers cannot be stopped from another thread")."""
    qt = {"ui", "ui_dialogs"} & set(request.node.path.parts)
    if qt:
        gc.collect()
    yield
    if qt:
        gc.collect()

