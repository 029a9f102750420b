"""Inputs as the runner passes them, and action.yml held equal to them."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from cairn_action.errors import CairnError
from cairn_action.gh.inputs import INPUT_NAMES, ActionConfig, read_inputs

ACTION_YML = Path(__file__).resolve().parents[3] / "action.yml"


def _action() -> dict:
    return YAML(typ="safe").load(ACTION_YML.read_text(encoding="utf-8"))  # ruamel: check-jsonschema's parser


def test_inputs__hyphenated_names__read_as_the_runner_sets_them() -> None:
    config = read_inputs(
        {
            "INPUT_GITHUB-TOKEN": "t",
            "INPUT_OVERRIDE-LABEL": "qa-override",
            "INPUT_WORKING-DIRECTORY": "svc",
            "INPUT_COMMENT": "off",
            "INPUT_STATUS": "On",
        }
    )
    assert (config.github_token, config.override_label, config.working_directory) == (
        "t",
        "qa-override",
        "svc",
    )
    assert (config.comment, config.status) == (False, True)


def test_inputs__underscore_form__also_read() -> None:
    assert read_inputs({"INPUT_GITHUB_TOKEN": "t"}).github_token == "t"


def test_inputs__several_configs__lines_or_commas() -> None:
    config = read_inputs({"INPUT_CONFIG": "cairn.toml\nconfigs/a.toml, configs/b.toml\n\n# note\ncairn.toml"})
    assert config.config == ("cairn.toml", "configs/a.toml", "configs/b.toml")
    assert not config.config_is_default
    assert read_inputs({}).config_is_default


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"INPUT_MODE": "deploy"}, "input 'mode': unknown mode 'deploy'"),
        ({"INPUT_COMMENT": "maybe"}, "input 'comment': 'maybe' is not a boolean"),
        ({"INPUT_OVERRIDE-LABEL": "bad label!"}, "input 'override-label'"),
    ],
)
def test_inputs__bad_value__one_line_naming_the_input(env: dict[str, str], message: str) -> None:
    with pytest.raises(CairnError) as caught:
        read_inputs(env)
    assert caught.value.message.startswith(message) and caught.value.hint and caught.value.exit_code == 2


def test_inputs__token__not_in_repr() -> None:
    assert "s3cret" not in repr(read_inputs({"INPUT_GITHUB-TOKEN": "s3cret"}))


def test_inputs__action_yml__declares_exactly_the_inputs_read() -> None:
    declared = _action()["inputs"]
    assert tuple(declared) == INPUT_NAMES
    fields = {f.name for f in dataclasses.fields(ActionConfig)}
    assert {n.replace("-", "_") for n in INPUT_NAMES} == fields
    assert all(len(spec["description"]) > 40 for spec in declared.values())
    assert declared["github-token"]["default"] == "${{ github.token }}"


def test_inputs__action_yml__docker_action_passing_inputs_by_name() -> None:
    action = _action()
    assert set(action["runs"]) == {"using", "image"}  # no positional args
    assert action["runs"]["using"] == "docker"
    # A prebuilt image by reference (no Docker build in the user's job), tagged with the major version.
    assert re.fullmatch(r"docker://[a-z0-9.-]+/[a-z0-9_.-]+/cairn:v\d+", action["runs"]["image"])
    assert {"verdict", "report-path", "comment-path", "comment-url", "primary-value"} <= set(
        action["outputs"]
    )
