"""A fake Anthropic Messages server: `POST /v1/messages`, the real request and reply shapes.

- `x-api-key` is checked when the fake has a key (401, Anthropic's error body); `anthropic-version` is
  required (400 without it), as the real API does.
- Usage: a system block marked `cache_control` is written to the cache on first sight
  (`cache_creation_input_tokens`) and read from it afterwards (`cache_read_input_tokens`); only the
  rest counts as `input_tokens`. An unmarked system prompt is plain input every time.
- Error statuses carry `{"type": "error", "error": {"type": ..., "message": ...}}`.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Self

from loopback import LoopbackServer, Recorded, Reply, Step
from model_brain import reply_for, tokens

PATH = "/v1/messages"
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


def error_json(status: int, message: str) -> str:
    return json.dumps(
        {"type": "error", "error": {"type": _ERROR_TYPES.get(status, "api_error"), "message": message}}
    )


class FakeAnthropicServer(LoopbackServer):
    def __init__(self, *, api_key: str | None = None, latency_s: float = 0.0) -> None:
        super().__init__(latency_s=latency_s)
        self.api_key = api_key
        self.usages: list[dict[str, Any]] = []
        self._cache: set[str] = set()
        self._cache_lock = threading.Lock()

    def __enter__(self) -> Self:
        super().__enter__()
        return self

    def error_body(self, status: int) -> str:
        return error_json(status, f"fake {status}")

    def respond(self, request: Recorded, step: Step | None) -> Reply:
        if request.path != PATH:
            return Reply(404, error_json(404, f"no route {request.path}"))
        if self.api_key is not None and request.headers.get("x-api-key") != self.api_key:
            return Reply(401, error_json(401, "invalid x-api-key"))
        if "anthropic-version" not in request.headers:
            return Reply(400, error_json(400, "anthropic-version: header is required"))
        body = request.json
        system_blocks = body.get("system") or []
        if isinstance(system_blocks, str):
            system_blocks = [{"type": "text", "text": system_blocks}]
        system = "".join(b["text"] for b in system_blocks)
        marked = any("cache_control" in b for b in system_blocks)
        user = body["messages"][-1]["content"]
        content = step.content if step is not None and step.content is not None else reply_for(system, user)
        write = read = 0
        plain = tokens(user)
        if marked:
            with self._cache_lock:
                if system in self._cache:
                    read = tokens(system)
                else:
                    write = tokens(system)
                    self._cache.add(system)
        else:
            plain += tokens(system)
        usage = {
            "input_tokens": plain,
            "cache_creation_input_tokens": write,
            "cache_read_input_tokens": read,
            "output_tokens": tokens(content),
        }
        if step is not None and step.usage is not None:
            usage = step.usage
        with self._lock:
            self.usages.append(usage)
        reply = {
            "id": f"msg_fake{len(self.requests)}",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": [{"type": "text", "text": content}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": usage,
        }
        return Reply(200, json.dumps(reply))
