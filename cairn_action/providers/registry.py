"""Provider name (the config's `[provider] name`) → a factory that builds the answerer.

Factories import their backend lazily, so a provider's dependencies are only needed when it is used.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from cairn_action.config import ProviderConfig
from cairn_action.errors import ConfigError
from cairn_action.providers.base import Answerer
from cairn_action.providers.services import ProviderServices

AnswererFactory = Callable[[ProviderConfig, Mapping[str, str], ProviderServices], Answerer]
"""(the provider section, the environment to read the API key from, the run's shared provider
services: budget, prices, rate limiters) → an answerer."""


def _stub(config: ProviderConfig, env: Mapping[str, str], services: ProviderServices) -> Answerer:
    from cairn_action.providers.stub import StubAnswerer

    return StubAnswerer(config.model)


def _chat_model(config: ProviderConfig, env: Mapping[str, str], services: ProviderServices) -> Answerer:
    """`openai` (any OpenAI-compatible server, by base_url) and `anthropic`: see build_providers.py."""
    from cairn_action.providers.build_providers import build_llm_answerer

    return build_llm_answerer(config, env, services)


ANSWERERS: dict[str, AnswererFactory] = {
    "stub": _stub,
    "openai": _chat_model,
    "anthropic": _chat_model,
}


def known_providers() -> list[str]:
    return sorted(ANSWERERS)


def create_answerer(
    config: ProviderConfig,
    env: Mapping[str, str] | None = None,
    *,
    source: Path | None = None,
    services: ProviderServices | None = None,
) -> Answerer:
    """The answerer named by `config.name`; an unknown name is a ConfigError listing the known ones."""
    factory = ANSWERERS.get(config.name)
    if factory is None:
        where = f"{source}: " if source is not None else ""
        known = ", ".join(known_providers())
        raise ConfigError(
            f"{where}provider.name: unknown provider '{config.name}' (known: {known})",
            f"set [provider] name to one of: {known}",
        )
    return factory(config, env or {}, services or ProviderServices())
