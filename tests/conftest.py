"""Shared fixtures: the fake model endpoint. Qt runs offscreen in every test."""

from __future__ import annotations

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
