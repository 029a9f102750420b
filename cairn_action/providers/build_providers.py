"""Config sections → the paid backends: chat models for answering and judging, and the user's target.

The registry and the run's composition root call these; the environment (for API keys) is passed in,
never read here. A setting that cannot work (no key variable for an API that needs one, a target that
cannot be imported) is a ConfigError before any call is made.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from cairn_action.config import Config, JudgeConfig, ProviderConfig
from cairn_action.errors import ConfigError
from cairn_action.providers.anthropic import AnthropicChat, messages_url
from cairn_action.providers.chat import ChatBackend
from cairn_action.providers.llm_answerer import LLMAnswerer
from cairn_action.providers.llm_judge import LLMJudge
from cairn_action.providers.openai_compat import DEFAULT_BASE_URL as OPENAI_BASE_URL
from cairn_action.providers.openai_compat import OpenAIChat
from cairn_action.providers.prices import unknown_price_warning
from cairn_action.providers.query_llm import LLMQueryRewriter, LLMReranker
from cairn_action.providers.services import ProviderServices, require_key
from cairn_action.providers.target import HttpTarget, PassageLocator, PythonTarget, load_python_target

CHAT_PROVIDERS = ("openai", "anthropic")
JUDGE_MAX_TOKENS = 256


@dataclass(frozen=True)
class ChatSettings:
    """Everything needed to reach one chat model; `where` names the config section for messages."""

    where: str
    provider: str
    model: str
    base_url: str | None
    api_key_env: str | None
    temperature: float
    max_tokens: int
    timeout_s: float
    max_retries: int
    requests_per_minute: int | None


def provider_settings(config: ProviderConfig) -> ChatSettings:
    return ChatSettings(
        where="provider",
        provider=config.name,
        model=config.model,
        base_url=config.base_url,
        api_key_env=config.api_key_env,
        temperature=config.temperature,
        max_tokens=config.max_tokens,
        timeout_s=config.timeout_s,
        max_retries=config.max_retries,
        requests_per_minute=config.requests_per_minute,
    )


def judge_settings(judge: JudgeConfig, provider: ProviderConfig) -> ChatSettings:
    """The LLM judge's model: its own `[judge]` API settings, else the answering provider's (`provider`,
    whose timeouts, retries and rate limit it shares either way)."""
    own = judge.provider is not None
    name = judge.provider if own else provider.name
    if name not in CHAT_PROVIDERS:
        source = "[judge] provider" if own else "[provider] name (which the judge uses by default)"
        raise ConfigError(
            f"judge.provider: the LLM judge needs a chat API ({', '.join(CHAT_PROVIDERS)}), and {source} "
            f"is '{name}'",
            'set [judge] provider = "openai" (or "anthropic"), model and api_key_env',
        )
    model = judge.model or (None if own else provider.model)
    if model is None:
        raise ConfigError(
            "judge.model: the LLM judge needs a model", 'set [judge] model, e.g. "gpt-4.1-mini"'
        )
    return ChatSettings(
        where="judge" if own or judge.api_key_env else "provider",
        provider=name,
        model=model,
        base_url=judge.base_url if own else (judge.base_url or provider.base_url),
        api_key_env=judge.api_key_env if own else (judge.api_key_env or provider.api_key_env),
        temperature=0.0,
        max_tokens=JUDGE_MAX_TOKENS,
        timeout_s=provider.timeout_s,
        max_retries=provider.max_retries,
        requests_per_minute=provider.requests_per_minute,
    )


def build_chat_backend(
    settings: ChatSettings, env: Mapping[str, str], services: ProviderServices
) -> ChatBackend:
    """An OpenAI-compatible or Anthropic backend; warns once when the model has no known price."""
    if settings.provider not in CHAT_PROVIDERS:
        raise ConfigError(
            f"{settings.where}.name: '{settings.provider}' is not a chat API",
            f"use one of {', '.join(CHAT_PROVIDERS)}",
        )
    # The vendors' own endpoints need a key; a local server (vLLM, Ollama, ...) usually does not.
    key = require_key(env, settings.api_key_env, settings.where, needed=settings.base_url is None)
    price = services.prices.lookup(settings.provider, settings.model)
    if price is None:
        services.warn(unknown_price_warning(settings.provider, settings.model))
    if settings.provider == "openai":
        url = (settings.base_url or OPENAI_BASE_URL).rstrip("/")
    else:
        url = messages_url(settings.base_url)
    http = services.http_client(
        provider=settings.provider,
        endpoint=f"{settings.provider} {url}",
        timeout_s=settings.timeout_s,
        max_retries=settings.max_retries,
        requests_per_minute=settings.requests_per_minute,
        secrets=(key,) if key else (),
    )
    backend_type = OpenAIChat if settings.provider == "openai" else AnthropicChat
    return backend_type(
        model=settings.model,
        http=http,
        budget=services.budget,
        price=price,
        base_url=settings.base_url,
        api_key=key,
        temperature=settings.temperature,
        max_tokens=settings.max_tokens,
    )


def build_llm_answerer(
    config: ProviderConfig, env: Mapping[str, str], services: ProviderServices
) -> LLMAnswerer:
    backend = build_chat_backend(provider_settings(config), env, services)
    return LLMAnswerer(backend, on_unusable=services.note_unusable)


def build_llm_judge(
    judge: JudgeConfig, provider: ProviderConfig, env: Mapping[str, str], services: ProviderServices
) -> LLMJudge:
    """`[judge]`, falling back to `[provider]` for what it does not set (see `judge_settings`)."""
    return LLMJudge(
        build_chat_backend(judge_settings(judge, provider), env, services), on_unusable=services.note_unusable
    )


def build_target(
    config: Config,
    env: Mapping[str, str],
    services: ProviderServices,
    *,
    base_dir: Path,
    documents: Mapping[str, str],
) -> PythonTarget | HttpTarget:
    """The user's system named by `config.target`; passages are located in `documents` (path → text)."""
    spec = (config.target or "").strip()
    top_k = config.retrieval.depth
    target: PythonTarget | HttpTarget
    if spec.startswith("python:"):
        target = PythonTarget(load_python_target(spec, base_dir), spec, top_k=top_k)
    elif spec.startswith(("http://", "https://")):
        provider = config.provider
        key = require_key(env, provider.api_key_env, "provider", needed=False)
        http = services.http_client(
            provider="target",
            endpoint=f"target {spec}",
            timeout_s=provider.timeout_s,
            max_retries=provider.max_retries,
            requests_per_minute=provider.requests_per_minute,
            secrets=(key,) if key else (),
        )
        target = HttpTarget(spec, http, api_key=key, top_k=top_k)
        if config.target_version_url:
            target.read_version(config.target_version_url)
    else:
        raise ConfigError(
            f"target: '{spec}' is neither python:package.module:function nor an http(s) URL",
            'write target = "python:mypkg.rag:answer" or target = "http://localhost:8000/answer"',
        )
    if config.target_version_url and not isinstance(target, HttpTarget):
        raise ConfigError(
            "target_version_url: is for an http(s) target; a python: target's code is hashed itself",
            "remove target_version_url, or point target at your service's URL",
        )
    target.locator = PassageLocator(documents)
    return target


def _retrieval_backend(
    provider: ProviderConfig, env: Mapping[str, str], services: ProviderServices, key: str
) -> ChatBackend:
    """The answering provider's chat model, for `retrieval.<key> = "llm"` (rewrite, rerank)."""
    if provider.name not in CHAT_PROVIDERS:
        raise ConfigError(
            f"retrieval.{key} = \"llm\" needs a chat provider, and [provider] name is '{provider.name}'",
            f'set [provider] name = "openai" (or "anthropic"), or retrieval.{key} = "none"',
        )
    return build_chat_backend(provider_settings(provider), env, services)


def build_query_rewriter(
    provider: ProviderConfig, env: Mapping[str, str], services: ProviderServices
) -> LLMQueryRewriter:
    """`retrieval.rewrite = "llm"`: the answering provider's model rewrites the question."""
    return LLMQueryRewriter(_retrieval_backend(provider, env, services, "rewrite"))


def build_reranker(
    provider: ProviderConfig, env: Mapping[str, str], services: ProviderServices
) -> LLMReranker:
    """`retrieval.rerank = "llm"`: the answering provider's model reranks the candidates."""
    return LLMReranker(_retrieval_backend(provider, env, services, "rerank"))
