"""A scriptable HTTP server on 127.0.0.1 for the provider fakes: real sockets, real HTTP/1.1.

Each fake (OpenAI chat completions, Anthropic Messages, a RAG service) subclasses `LoopbackServer` and
implements `respond(request)` for its wire format. Tests can queue `Step`s: each request takes the
next one (a status with headers and body, a delay, a model reply to wrap in the wire format), and
falls back to `respond` when the queue is empty. Every request is recorded with its headers and body.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Step:
    """What the server does with one request.

    `content` set: a 200 in the server's wire format carrying this model reply (with `usage` if given).
    `status` other than 200: that status, `headers` and `body` (or the wire format's error body).
    `body` with status 200: exactly those bytes (garbage at the HTTP level).
    `delay_s`: wait first (a slow server; longer than the client's timeout is a timeout).
    """

    status: int = 200
    content: str | None = None
    usage: dict[str, Any] | None = None
    body: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


@dataclass(frozen=True)
class Recorded:
    path: str
    headers: dict[str, str]
    """Lower-cased names."""
    raw: str
    json: Any
    at: float
    method: str = "POST"


@dataclass(frozen=True)
class Reply:
    status: int
    body: str
    headers: dict[str, str] = field(default_factory=dict)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # concurrent connects must not overflow the listen backlog
    owner: LoopbackServer


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real APIs
    # Headers and body go out in two writes; with Nagle's algorithm the body would wait for the
    # client's delayed ACK (40 ms on Linux) and every call would look 40 ms slower than it is.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        """`GET /_fake/requests`: how many requests the fake has seen (for a fake in another process);
        any other GET is recorded and answered by the fake like a POST (a service's `/version`)."""
        owner = self.server.owner  # type: ignore[attr-defined]
        if self.path != "/_fake/requests":
            self._answer("GET")
            return
        data = str(len(owner.requests)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        self._answer("POST")

    def _answer(self, method: str) -> None:
        owner = self.server.owner  # type: ignore[attr-defined]
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length).decode("utf-8", errors="replace")
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = None
        recorded = Recorded(
            path=self.path,
            headers={k.lower(): v for k, v in self.headers.items()},
            raw=raw,
            json=parsed,
            at=time.monotonic(),
            method=method,
        )
        reply = owner.dispatch(recorded)
        data = reply.body.encode("utf-8")
        try:
            self.send_response(reply.status)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.send_header("Content-Type", reply.headers.get("Content-Type", "application/json"))
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test)


class LoopbackServer:
    """Base for the fakes; use as a context manager."""

    def __init__(self, *, latency_s: float = 0.0) -> None:
        self.latency_s = latency_s
        self.requests: list[Recorded] = []
        self._steps: deque[Step] = deque()
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.owner = self
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def script(self, *steps: Step) -> None:
        """Queue steps for the next requests, in order."""
        with self._lock:
            self._steps.extend(steps)

    def dispatch(self, recorded: Recorded) -> Reply:
        """The reply to `recorded`, sent `latency_s` (plus the step's delay) after the request arrived:
        the reply is computed first and the wait is what remains, so the latency is exactly L."""
        with self._lock:
            self.requests.append(recorded)
            step = self._steps.popleft() if self._steps else None
        reply = self._reply(recorded, step)
        remaining = recorded.at + self.latency_s + (step.delay_s if step else 0.0) - time.monotonic()
        if remaining > 0:
            time.sleep(remaining)
        return reply

    def _reply(self, recorded: Recorded, step: Step | None) -> Reply:
        if step is None:
            return self.respond(recorded, None)
        if step.status == 200 and step.body is not None:
            return Reply(200, step.body, dict(step.headers))
        if step.status != 200:
            body = step.body if step.body is not None else self.error_body(step.status)
            return Reply(step.status, body, dict(step.headers))
        return self.respond(recorded, step)

    def respond(self, request: Recorded, step: Step | None) -> Reply:
        """The wire format's answer to `request` (`step.content` / `step.usage` override the model)."""
        raise NotImplementedError

    def error_body(self, status: int) -> str:
        return json.dumps({"error": {"message": f"fake error {status}"}})

    def __enter__(self) -> LoopbackServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
