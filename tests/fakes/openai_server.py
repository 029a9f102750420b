"""A fake OpenAI chat-completions server: `POST /v1/chat/completions`, the real request and reply shapes.

- `Authorization: Bearer <key>` is checked when the fake has a key (401 otherwise, OpenAI's body).
- Usage: `prompt_tokens` counts the system and user messages; when the system message was seen
  before, its tokens are reported as `prompt_tokens_details.cached_tokens` (an automatic prefix cache).
- `logprobs: true` adds `choices[0].logprobs.content`, one entry per 4-character token, each with
  `token_logprob`; `rejects` names request parameters the server refuses with a 400 naming the `param`.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any, Self

from loopback import LoopbackServer, Recorded, Reply, Step
from model_brain import reply_for, tokens

PATH = "/v1/chat/completions"


class FakeOpenAIServer(LoopbackServer):
    def __init__(
        self,
        *,
        api_key: str | None = None,
        latency_s: float = 0.0,
        token_logprob: float = -0.1,
        rejects: tuple[str, ...] = (),
    ) -> None:
        super().__init__(latency_s=latency_s)
        self.api_key = api_key
        self.token_logprob = token_logprob
        self.rejects = rejects
        self.usages: list[dict[str, Any]] = []
        """The usage block of every completion returned, in order."""
        self._seen_prefixes: set[str] = set()
        self._prefix_lock = threading.Lock()

    def __enter__(self) -> Self:
        super().__enter__()
        return self

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    def error_body(self, status: int) -> str:
        kinds = {429: "rate_limit_exceeded", 500: "server_error", 503: "service_unavailable"}
        return json.dumps(
            {"error": {"message": f"fake {status}", "type": kinds.get(status, "error"), "param": None}}
        )

    def respond(self, request: Recorded, step: Step | None) -> Reply:
        if request.path != PATH:
            return Reply(
                404, json.dumps({"error": {"message": f"no route {request.path}", "type": "invalid_request"}})
            )
        if self.api_key is not None and request.headers.get("authorization") != f"Bearer {self.api_key}":
            body = {"error": {"message": "Incorrect API key provided.", "type": "invalid_request_error"}}
            return Reply(401, json.dumps(body))
        body = request.json
        for param in self.rejects:
            if param in body:
                message = f"Unsupported parameter: '{param}' is not supported with this model."
                if param == "max_tokens":
                    message += " Use 'max_completion_tokens' instead."  # OpenAI's own wording
                error = {"message": message, "type": "invalid_request_error", "param": param}
                return Reply(400, json.dumps({"error": error}))
        messages = body["messages"]
        system = next(m["content"] for m in messages if m["role"] == "system")
        user = next(m["content"] for m in messages if m["role"] == "user")
        content = step.content if step is not None and step.content is not None else reply_for(system, user)
        with self._prefix_lock:
            cached = tokens(system) if system in self._seen_prefixes else 0
            self._seen_prefixes.add(system)
        usage = {
            "prompt_tokens": tokens(system) + tokens(user),
            "completion_tokens": tokens(content),
            "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0},
        }
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        if step is not None and step.usage is not None:
            usage = step.usage
        choice: dict[str, Any] = {
            "index": 0,
            "message": {"role": "assistant", "content": content, "refusal": None},
            "logprobs": None,
            "finish_reason": "stop",
        }
        if body.get("logprobs"):
            pieces = [content[i : i + 4] for i in range(0, len(content), 4)]
            choice["logprobs"] = {
                "content": [
                    {"token": p, "logprob": self.token_logprob, "bytes": None, "top_logprobs": []}
                    for p in pieces
                ]
            }
        with self._lock:
            self.usages.append(usage)
        reply = {
            "id": f"chatcmpl-fake{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body["model"],
            "choices": [choice],
            "usage": usage,
        }
        return Reply(200, json.dumps(reply))


def serve(argv: list[str] | None = None) -> None:
    """Run the fake in its own process (the concurrency benchmark): prints its base URL, serves until
    stdin closes. `GET /_fake/requests` returns the number of requests seen."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(description="a fake OpenAI chat-completions server on 127.0.0.1")
    parser.add_argument("--latency", type=float, default=0.0)
    args = parser.parse_args(argv)
    with FakeOpenAIServer(latency_s=args.latency) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    serve()
