"""A scripted stand-in for the Anthropic Messages API (``POST /v1/messages``) on 127.0.0.1.

Tests queue replies (a text answer, an HTTP error, a slow answer), point the SDK's ``base_url`` at
``fake.base_url`` and then inspect ``fake.requests`` (path, lower-cased headers, JSON body) to see
what the client sent. It binds an ephemeral loopback port, serves each request on its own thread,
and on ``close()`` releases any reply still sleeping so a timeout test ends at once. With nothing
queued it answers 500 with a message saying so, which a test will notice as an unexpected retry.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ERROR_TYPES = {400: "invalid_request_error", 429: "rate_limit_error", 500: "api_error",
               503: "api_error", 529: "overloaded_error"}


@dataclass
class Reply:
    status: int = 200
    text: str | None = None          # the assistant's text, for a 200
    delay: float = 0.0               # seconds to wait before answering
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Request:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    #: the client's end of the connection the request came over (host, port)
    peer: tuple[str, int] = ("", 0)


class FakeAnthropic:
    def __init__(self) -> None:
        self.requests: list[Request] = []
        self._replies: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._released = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        # A short poll interval: shutdown() waits for it, once per test.
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02},
                                        name="fake-anthropic", daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def reply(self, text: str, *, delay: float = 0.0) -> FakeAnthropic:
        self._replies.append(Reply(200, text, delay))
        return self

    def fail(self, status: int, *, headers: dict[str, str] | None = None) -> FakeAnthropic:
        self._replies.append(Reply(status, None, 0.0, headers or {}))
        return self

    def __enter__(self) -> FakeAnthropic:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._released.set()
        self._server.shutdown()
        self._server.server_close()

    def _next(self) -> Reply:
        with self._lock:
            return self._replies.popleft() if self._replies else Reply(500, None)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    body = {"_unparsed": raw.decode("utf-8", "replace")}
                with fake._lock:
                    fake.requests.append(Request(self.path, {k.lower(): v for k, v in self.headers.items()}, body,
                                                 tuple(self.client_address)))
                reply = fake._next() if self.path.split("?")[0] == "/v1/messages" else Reply(404, None)
                if reply.delay:
                    fake._released.wait(reply.delay)
                if reply.status == 200:
                    payload = {"id": f"msg_fake_{len(fake.requests)}", "type": "message", "role": "assistant",
                               "model": body.get("model", "unknown"),
                               "content": [{"type": "text", "text": reply.text or ""}],
                               "stop_reason": "end_turn", "stop_sequence": None,
                               "usage": {"input_tokens": 1, "output_tokens": 1}}
                else:
                    payload = {"type": "error", "error": {"type": ERROR_TYPES.get(reply.status, "api_error"),
                                                          "message": f"fake status {reply.status}"}}
                data = json.dumps(payload).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    # The SDK would obey this header; say "false" so only the bridge decides.
                    self.send_header("x-should-retry", "false")
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test): nothing left to answer

            def log_message(self, format: str, *args: Any) -> None:
                pass  # keep pytest output clean

        return Handler
