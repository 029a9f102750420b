"""The tiny RAG system behind HTTP, as a user's own service: `POST /answer` with Cairn's target schema.

Passages go out with their whitespace collapsed (as many services return them), so Cairn must locate
them in the corpus without relying on exact line breaks. A bearer token is checked when one is set.
"""

from __future__ import annotations

import json
from typing import Self

from loopback import LoopbackServer, Recorded, Reply, Step
from tiny_rag import answer


class FakeRagService(LoopbackServer):
    def __init__(self, *, token: str | None = None, latency_s: float = 0.0) -> None:
        super().__init__(latency_s=latency_s)
        self.token = token
        self.version = "2026.11.0"
        """What `GET /version` reports (as `{"version": ..., "uptime_s": ...}`): set it to "redeploy"."""

    def __enter__(self) -> Self:
        super().__enter__()
        return self

    @property
    def endpoint(self) -> str:
        return f"{self.url}/answer"

    @property
    def version_url(self) -> str:
        return f"{self.url}/version"

    def respond(self, request: Recorded, step: Step | None) -> Reply:
        if request.path == "/version":  # an uptime beside the version, as health endpoints have
            return Reply(200, json.dumps({"version": self.version, "uptime_s": len(self.requests)}))
        if request.path != "/answer":
            return Reply(404, json.dumps({"error": "not found"}))
        if self.token is not None and request.headers.get("authorization") != f"Bearer {self.token}":
            return Reply(401, json.dumps({"error": "bad token"}))
        reply = answer(request.json["question"])
        for passage in reply["passages"]:
            passage["text"] = " ".join(passage["text"].split())
        if step is not None and step.content is not None:
            return Reply(200, step.content)
        return Reply(200, json.dumps(reply))
