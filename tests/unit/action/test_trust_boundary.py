"""The trusted side's rules as pure functions: which variables reach the evaluation, where a secret may go."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn_action.action.trust import (
    allows,
    check_key_names,
    check_routes,
    endpoint,
    passed_variables,
    routes,
)
from cairn_action.config import Config, LoadedConfig
from cairn_action.errors import CairnError

TOKEN = "ghs_" + "t" * 36


def _config(**sections: object) -> Config:
    return Config.model_validate(sections)


def _loaded(config: Config, tmp_path: Path) -> LoadedConfig:
    return LoadedConfig(config=config, source=None, base_dir=tmp_path)


def test_endpoint__spellings_of_one_endpoint__compare_equal() -> None:
    assert endpoint("HTTPS://API.Example.com/v1/") == endpoint("https://api.example.com:443/v1")
    assert endpoint("http://h/v1") != endpoint("https://h/v1")
    assert endpoint("http://127.0.0.1:8000/v1") != endpoint("http://127.0.0.1:8001/v1")
    assert endpoint("https://user:pw@h/v1?x=1#f") == endpoint("https://h/v1")


def test_allows__a_prefix_at_a_path_boundary_and_never_through_dot_segments() -> None:
    assert allows("https://llm.example/v1", "https://llm.example/v1/chat/completions")
    assert not allows("https://llm.example/v1", "https://llm.example/v10")
    assert not allows("https://llm.example/v1", "https://llm.example/v1/../../admin")
    assert not allows("https://llm.example/v1", "https://llm.example.evil/v1")


def test_routes__every_built_in_client_that_sends_the_key() -> None:
    keyed = {"name": "openai", "model": "m", "api_key_env": "K"}
    assert [r.role for r in routes(_config(provider=keyed))] == ["provider"]
    assert routes(_config(provider={"name": "openai", "model": "m"})) == []  # no key, nothing to leak
    http = routes(_config(target="http://127.0.0.1:9/answer", provider=keyed))
    assert [r.role for r in http] == ["target"]  # the target answers; the chat client is not built
    rerank = routes(_config(target="python:x:f", provider=keyed, retrieval={"rerank": "llm"}))
    assert [(r.role, r.endpoint) for r in rerank] == [("provider", "https://api.openai.com:443/v1")]


def test_check_routes__new_endpoint__refused_unless_the_base_sends_it_there_or_it_is_allowed(
    tmp_path: Path,
) -> None:
    base = _config(provider={"name": "openai", "model": "m", "api_key_env": "K"})
    moved = _config(
        provider={"name": "openai", "model": "m", "api_key_env": "K", "base_url": "https://evil/v1"}
    )
    check_routes(_loaded(base, tmp_path), base, [], trusted_where="base")
    with pytest.raises(CairnError) as refused:
        check_routes(_loaded(moved, tmp_path), base, [], trusted_where="cairn.toml at abc")
    assert "would send K to https://evil/v1; cairn.toml at abc sends it to https://api.openai.com/v1" in (
        refused.value.message
    )
    assert "allowed-endpoints" in refused.value.hint
    check_routes(_loaded(moved, tmp_path), base, ["https://evil"], trusted_where="base")
    other_key = _config(provider={"name": "openai", "model": "m", "api_key_env": "OTHER"})
    with pytest.raises(CairnError):  # the base sends K there, not OTHER
        check_routes(_loaded(other_key, tmp_path), base, [], trusted_where="base")
    with pytest.raises(CairnError):  # a config new in the pull request: nothing is known to be safe
        check_routes(_loaded(base, tmp_path), None, [], trusted_where="base")


def test_passed_variables__runner_families_and_the_token__refused() -> None:
    env = {
        "OPENAI_API_KEY": "sk-1",
        "RAG_URL": "http://x",
        "COPY": "Bearer " + TOKEN,
        "ACTIONS_RUNTIME_TOKEN": "r" * 20,
    }
    assert passed_variables(["OPENAI_API_KEY", "RAG_URL", "UNSET"], env, TOKEN) == {
        "OPENAI_API_KEY": "sk-1",
        "RAG_URL": "http://x",
    }
    for name in ("GITHUB_TOKEN", "actions_runtime_token", "INPUT_GITHUB-TOKEN", "RUNNER_TEMP"):
        with pytest.raises(CairnError, match="one of the runner's own variables"):
            passed_variables([name], env, TOKEN)
    with pytest.raises(CairnError, match="COPY holds the GitHub token"):
        passed_variables(["COPY"], env, TOKEN)
    with pytest.raises(CairnError, match="holds the GitHub token"):
        passed_variables(["RUNTIME"], {**env, "RUNTIME": "r" * 20}, TOKEN)


def test_check_key_names__api_key_env_not_granted__refused_with_the_input_to_use(tmp_path: Path) -> None:
    loaded = _loaded(_config(provider={"name": "openai", "model": "m", "api_key_env": "K"}), tmp_path)
    check_key_names(loaded, ["K"])
    with pytest.raises(CairnError) as refused:
        check_key_names(loaded, ["OTHER"])
    assert "provider.api_key_env names K, which is not in the action's `env` input" in refused.value.message
    assert "with: env: K" in refused.value.hint
