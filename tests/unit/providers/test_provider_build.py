"""From config to backends: keys from the named variable, the judge's defaults, the registry's names."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn_action.config import Config, config_hash, load_config, parse_config
from cairn_action.errors import ConfigError
from cairn_action.providers.build_providers import build_llm_judge, judge_settings
from cairn_action.providers.llm_answerer import LLMAnswerer
from cairn_action.providers.registry import create_answerer, known_providers
from cairn_action.providers.services import ProviderServices


def _config(data: dict, tmp_path: Path) -> Config:
    return parse_config(data, tmp_path / "cairn.toml")


def test_registry__chat_providers__registered_beside_the_stub() -> None:
    assert {"stub", "openai", "anthropic"} <= set(known_providers())


def test_build__vendor_endpoint_without_a_key_variable__config_error_before_any_call(tmp_path: Path) -> None:
    config = _config({"provider": {"name": "openai", "model": "gpt-4o-mini"}}, tmp_path)
    with pytest.raises(ConfigError, match=r"provider\.api_key_env is not set"):
        create_answerer(config.provider, {})


def test_build__key_variable_named_but_empty__config_error_naming_the_variable(tmp_path: Path) -> None:
    provider = {"name": "anthropic", "model": "claude-haiku-4-5", "api_key_env": "MY_KEY"}
    config = _config({"provider": provider}, tmp_path)
    with pytest.raises(ConfigError, match="MY_KEY is not set or empty"):
        create_answerer(config.provider, {"MY_KEY": " "})


def test_build__local_server_without_a_key__allowed_and_unpriced_model_warned(tmp_path: Path) -> None:
    provider = {"name": "openai", "model": "qwen2.5:7b", "base_url": "http://localhost:11434/v1"}
    said: list[str] = []
    services = ProviderServices(warn=said.append)
    answerer = create_answerer(_config({"provider": provider}, tmp_path).provider, {}, services=services)
    services.close()
    assert isinstance(answerer, LLMAnswerer) and answerer.model == "qwen2.5:7b"
    assert said and "no price for openai model 'qwen2.5:7b'" in said[0]


def test_judge_settings__defaults_to_the_answering_provider(tmp_path: Path) -> None:
    provider = {"name": "openai", "model": "gpt-4o-mini", "api_key_env": "K", "requests_per_minute": 60}
    config = _config({"provider": provider, "judge": {"name": "llm"}}, tmp_path)
    settings = judge_settings(config.judge, config.provider)
    assert (settings.provider, settings.model, settings.api_key_env, settings.requests_per_minute) == (
        "openai",
        "gpt-4o-mini",
        "K",
        60,
    )
    assert settings.temperature == 0.0


def test_judge_settings__stub_answerer_without_a_judge_provider__config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="needs a chat API"):
        config = _config({"judge": {"name": "llm"}}, tmp_path)
        judge_settings(config.judge, config.provider)


def test_judge_settings__own_provider_without_a_model__config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"judge\.model"):
        config = _config({"judge": {"name": "llm", "provider": "anthropic"}}, tmp_path)
        judge_settings(config.judge, config.provider)


def test_build_llm_judge__its_own_api__label_names_it(tmp_path: Path) -> None:
    judge = {"name": "llm", "provider": "anthropic", "model": "claude-haiku-4-5", "api_key_env": "J"}
    services = ProviderServices()
    config = _config({"judge": judge}, tmp_path)
    llm = build_llm_judge(config.judge, config.provider, {"J": "secret"}, services)
    services.close()
    assert llm.label.startswith("llm (anthropic claude-haiku-4-5, rubric ")


def test_build_target__neither_python_nor_http__config_error_at_load_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "cairn.toml"
    path.write_text('name = "x"\ntarget = "ftp://rag.example/answer"\n', encoding="utf-8")
    wanted = r"cairn\.toml:2: 'target': must be python:package\.module:function"
    with pytest.raises(ConfigError, match=wanted):
        load_config(path)


def test_config_hash__judge_key_variable_not_hashed_but_judge_model_is(tmp_path: Path) -> None:
    base = {"judge": {"name": "llm", "provider": "openai", "model": "gpt-4.1-mini"}}
    other_key = {"judge": {**base["judge"], "api_key_env": "ANOTHER_VARIABLE"}}
    other_model = {"judge": {**base["judge"], "model": "gpt-4.1"}}
    assert config_hash(_config(base, tmp_path)) == config_hash(_config(other_key, tmp_path))
    assert config_hash(_config(base, tmp_path)) != config_hash(_config(other_model, tmp_path))
    assert config_hash(Config()) == config_hash(_config({"prices": {}}, tmp_path))
