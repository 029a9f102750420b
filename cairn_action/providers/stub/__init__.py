"""The stub answerer (offline, deterministic, free) and the pieces it is made of."""

from cairn_action.providers.stub.answerer import PROMPT_VERSION, StubAnswerer

__all__ = ["PROMPT_VERSION", "StubAnswerer"]
