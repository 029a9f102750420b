"""The experiment configuration: loading, strictness, defaults and the config hash."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn_action.cli import main
from cairn_action.config import (
    DEFAULT_CONFIG_NAME,
    SAMPLE_CORPUS_DIR,
    Config,
    config_hash,
    load_config,
    parse_config,
)
from cairn_action.errors import ConfigError, ExitCode

# The default config's hash, pinned: it must not depend on the machine, the checkout or the process
# (no salted hash(), no paths). A change here means every committed baseline changes identity, so it
# should only ever move together with an intended change of what the default config measures.
DEFAULT_CONFIG_HASH = "570c13c7f63931e6"


def _write(tmp_path: Path, text: str, name: str = "cairn.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_load_config__unknown_key__names_the_key_the_file_and_its_line(tmp_path: Path) -> None:
    path = _write(tmp_path, 'name = "exp"\n\n[retrieval]\ntop_k = 5\ntopk = 3\n')
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert caught.value.message == f"{path}:5: unknown key 'retrieval.topk'"
    assert "top_k" in caught.value.hint  # the key it probably meant


def test_load_config__unknown_table__names_it_with_its_line(tmp_path: Path) -> None:
    path = _write(tmp_path, 'name = "exp"\n[retreival]\ntop_k = 5\n')
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert caught.value.message == f"{path}:2: unknown key 'retreival'"
    assert "retrieval" in caught.value.hint


def test_load_config__several_problems__lists_each_on_its_own_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "[retrieval]\ntopk = 3\n\n[chunking]\nsize = 10\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    lines = caught.value.message.splitlines()
    assert lines[0] == f"2 problems in {path}:"
    assert f"{path}:2: unknown key 'retrieval.topk'" in lines
    assert any(line.startswith(f"{path}:5: 'chunking.size'") and "100" in line for line in lines)


def test_load_config__invalid_toml__gives_file_and_line(tmp_path: Path) -> None:
    path = _write(tmp_path, 'name = "exp"\n[retrieval\n')
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert caught.value.message.startswith(f"{path}:2: invalid TOML: ")


def test_load_config__explicit_file_missing__is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(tmp_path / "nope.toml")


def test_load_config__no_file_in_folder__gives_the_embedded_default(tmp_path: Path) -> None:
    loaded = load_config(None, cwd=tmp_path)
    assert loaded.embedded and loaded.source is None
    assert loaded.config.name == DEFAULT_CONFIG_NAME
    assert loaded.corpus_dir == tmp_path.resolve() / SAMPLE_CORPUS_DIR
    assert loaded.golden_path.name == "golden.jsonl"


def test_load_config__cairn_toml_in_folder__is_used(tmp_path: Path) -> None:
    _write(tmp_path, 'name = "mine"\n[corpus]\npath = "docs"\n')
    loaded = load_config(None, cwd=tmp_path)
    assert not loaded.embedded
    assert loaded.config.name == "mine"
    assert loaded.corpus_dir == tmp_path.resolve() / "docs"


def test_loaded_config__overrides__resolve_against_the_working_folder(tmp_path: Path) -> None:
    config_dir = tmp_path / "configs"
    config_dir.mkdir()
    path = _write(config_dir, 'name = "mine"\n[corpus]\npath = "docs"\n', "mine.toml")
    loaded = load_config(path).with_overrides(
        corpus=Path("other/docs"), golden=Path("g/golden.jsonl"), cwd=tmp_path
    )
    assert loaded.corpus_dir == tmp_path / "other" / "docs"
    assert loaded.golden_path == tmp_path / "g" / "golden.jsonl"
    assert config_hash(loaded.config) == config_hash(load_config(path).config)


def test_cli__unknown_config_key__exits_2_naming_key_and_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, '[provider]\nname = "stub"\ntemprature = 0.2\n')
    code = main(["eval", "--run-only", "--no-progress", "--config", str(path)])
    err = capsys.readouterr().err
    assert code == ExitCode.USAGE
    assert f"error: {path}:3: unknown key 'provider.temprature'" in err
    assert "hint:" in err and "temperature" in err
    assert "Traceback" not in err


def test_cli__gate_names_an_unknown_metric__exits_2_before_running(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, "[gate]\nmax_drop = {recall_at5 = 0.05}\n")
    code = main(["eval", "--run-only", "--no-progress", "--config", str(path)])
    err = capsys.readouterr().err
    assert code == ExitCode.USAGE
    assert f"error: {path}:2: [gate] max_drop names unknown metric(s): recall_at5" in err
    assert "recall_at_5" in err and "Traceback" not in err


def test_config_hash__default__is_pinned() -> None:
    assert config_hash(Config()) == DEFAULT_CONFIG_HASH


def test_config_hash__paths_and_run_mechanics__excluded(tmp_path: Path) -> None:
    base = parse_config({}, tmp_path / "a.toml")
    moved = parse_config(
        {
            "description": "same experiment, another machine",
            "corpus": {"path": "/elsewhere/docs"},
            "golden": {"path": "C:/golden/golden.jsonl"},
            "run": {"max_concurrency": 32, "cache_dir": "/tmp/cache"},
            "calibration": {"path": "x.calibration.json"},
            "provider": {
                "api_key_env": "MY_KEY",
                "timeout_s": 5.0,
                "max_retries": 0,
                "requests_per_minute": 30,
            },
        },
        tmp_path / "b.toml",
    )
    assert config_hash(moved) == config_hash(base) == DEFAULT_CONFIG_HASH


@pytest.mark.parametrize(
    "change",
    [
        {"retrieval": {"top_k": 3}},
        {"chunking": {"size": 400}},
        {"provider": {"model": "other-model"}},
        {"provider": {"temperature": 0.7}},
        {"judge": {"f1_threshold": 0.8}},
        {"calibration": {"alpha": 0.1}},
    ],
    ids=lambda c: next(iter(c)),
)
def test_config_hash__what_is_measured__changes_it(tmp_path: Path, change: dict) -> None:
    assert config_hash(parse_config(change, tmp_path / "c.toml")) != DEFAULT_CONFIG_HASH


def test_config_hash__key_order_in_file__does_not_matter(tmp_path: Path) -> None:
    a = _write(tmp_path, "[retrieval]\ntop_k = 3\ndepth = 20\n[chunking]\nsize = 500\n", "a.toml")
    b = _write(tmp_path, "[chunking]\nsize = 500\n[retrieval]\ndepth = 20\ntop_k = 3\n", "b.toml")
    assert config_hash(load_config(a).config) == config_hash(load_config(b).config)


def test_config__overlap_not_below_size__is_rejected(tmp_path: Path) -> None:
    path = _write(tmp_path, "[chunking]\nsize = 200\noverlap = 200\n")
    with pytest.raises(ConfigError, match="overlap"):
        load_config(path)
