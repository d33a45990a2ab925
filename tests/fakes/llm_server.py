"""A real HTTP server that speaks enough of the OpenAI chat completions API, scripted per test.

It runs in its own thread so that a response held for 30 s never blocks the test's event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class FakeResponse:
    status: int = 200
    body: dict[str, Any] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def agent_output(action: dict[str, Any], evaluation: str = "", memory: str = "", next_goal: str = "") -> dict[str, Any]:
    return {"evaluation_previous_goal": evaluation, "memory": memory, "next_goal": next_goal, "action": action}


def completion(
    *,
    tool_name: str | None = "AgentOutput",
    arguments: Any = None,
    content: str | None = None,
    prompt_tokens: int = 100,
    completion_tokens: int = 20,
    cached_tokens: int = 0,
    finish_reason: str | None = None,
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_name is not None:
        args = arguments if isinstance(arguments, str) else json.dumps(arguments)
        message["tool_calls"] = [
            {"id": "call_1", "type": "function", "function": {"name": tool_name, "arguments": args}}
        ]
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": "fake-model",
        "choices": [
            {"index": 0, "message": message, "finish_reason": finish_reason or ("tool_calls" if tool_name else "stop")}
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "prompt_tokens_details": {"cached_tokens": cached_tokens},
        },
    }


def tool_reply(action: dict[str, Any], delay: float = 0.0, **reflection: str) -> FakeResponse:
    """The usual answer: an AgentOutput tool call carrying a reflection and one action."""
    return FakeResponse(body=completion(arguments=agent_output(action, **reflection)), delay=delay)


def done_reply(text: str = "Done.", success: bool = True, delay: float = 0.0) -> FakeResponse:
    return tool_reply({"done": {"text": text, "success": success}}, delay=delay)


def error_reply(
    status: int, message: str = "error", headers: dict[str, str] | None = None, code: str | None = None
) -> FakeResponse:
    return FakeResponse(
        status=status, body={"error": {"message": message, "type": "fake", "code": code}}, headers=headers or {}
    )


class FakeLLMServer:
    """Scripted answers, in order; every request body is kept in ``requests`` for assertions."""

    def __init__(self) -> None:
        self.script: list[FakeResponse] = []
        self.requests: list[dict[str, Any]] = []
        self.request_bytes: list[int] = []  # each request body's size on the wire
        self.request_times: list[float] = []
        self.fallback: Callable[[dict[str, Any]], FakeResponse] | None = None
        self._lock = threading.Condition()  # held to change the lists; notified at each request
        self._release = threading.Event()
        # (loop, future, count): woken from the server's thread when the count-th request has arrived.
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None], int]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                body = json.loads(raw or b"{}")
                response = server._next(body, dict(self.headers), len(raw))
                if response.delay:
                    server._release.wait(response.delay)
                payload = json.dumps(response.body).encode()
                try:
                    self.send_response(response.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    for key, value in response.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a Stop): that is the point of some tests

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def start(self) -> FakeLLMServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._release.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def add(self, *responses: FakeResponse) -> None:
        with self._lock:
            self.script.extend(responses)

    def _next(self, body: dict[str, Any], headers: dict[str, str], size: int) -> FakeResponse:
        with self._lock:
            self.requests.append({**body, "_headers": {k.lower(): v for k, v in headers.items()}})
            self.request_bytes.append(size)
            self.request_times.append(time.monotonic())
            self._wake(len(self.requests))
            self._lock.notify_all()
            if self.script:
                return self.script.pop(0)
        if self.fallback is not None:
            return self.fallback(body)
        return error_reply(500, "the fake server's script is exhausted")

    async def received(self, count: int = 1, timeout: float = 10.0) -> None:
        """Return once ``count`` requests in all have arrived (woken by the arrival, not by polling)."""
        loop = asyncio.get_running_loop()
        arrived: asyncio.Future[None] = loop.create_future()
        with self._lock:
            if len(self.requests) >= count:
                return
            self._waiters.append((loop, arrived, count))
        try:
            await asyncio.wait_for(arrived, timeout)
        except TimeoutError:
            raise AssertionError(f"the fake model server got {len(self.requests)} requests, not {count}") from None
        finally:
            with self._lock:
                self._waiters = [w for w in self._waiters if w[1] is not arrived]

    def wait_received(self, count: int = 1, timeout: float = 30.0, alive: subprocess.Popen[Any] | None = None) -> None:
        """``received`` for a test without a loop: return once ``count`` requests in all have arrived; AssertionError
        after ``timeout``, or as soon as ``alive`` (the run that should send them) has exited."""

        def watch() -> None:
            assert alive is not None
            alive.wait()
            with self._lock:
                self._lock.notify_all()

        if alive is not None:
            threading.Thread(target=watch, daemon=True).start()

        def arrived_or_ended() -> bool:
            return len(self.requests) >= count or (alive is not None and alive.poll() is not None)

        with self._lock:
            if not self._lock.wait_for(arrived_or_ended, timeout):
                raise AssertionError(f"the fake model server got {len(self.requests)} requests, not {count}")
            if len(self.requests) < count:
                raise AssertionError(f"the run ended before the fake model server got {count} requests")

    def _wake(self, arrived: int) -> None:
        for waiter in [w for w in self._waiters if w[2] <= arrived]:
            self._waiters.remove(waiter)
            loop, future, _count = waiter
            with contextlib.suppress(RuntimeError):  # the test's loop has closed meanwhile
                loop.call_soon_threadsafe(_settle, future)

    def user_message(self, request_index: int = -1) -> str:
        """The text of the user message of a recorded request."""
        messages = self.requests[request_index]["messages"]
        return str(next(m["content"] for m in messages if m["role"] == "user"))
