"""Generated malformed input through the real CLI (in-process): golden sets, configs, reports, artifacts,
paths and arguments. Whatever the input, Cairn exits 0 (or 1, a gate verdict) on valid input and 2 on bad
input, the error names the file, nothing prints a traceback, and a refused input changes no file.

About 650 examples in all; the whole module takes well under a minute (each call is ~10-50 ms).
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bad_input_kit import Ran, Workspace, cli, snapshot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

# The fast lane (`pytest -m "not slow"`) leaves these out: about 650 CLI runs, the longest module of the
# unit tests; tests/integration/test_bad_input.py pins one example of each kind there.
pytestmark = pytest.mark.slow

_HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture]


def examples(n: int) -> settings:
    return settings(max_examples=n, suppress_health_check=_HEALTH)


REFUSALS = ("the reports ", "the baseline report", "the candidate report", "the golden set was edited")


@pytest.fixture(scope="module")
def shared() -> Iterator[tuple[Workspace, Path]]:
    """One workspace with a finished run artifact, shared by every example (each writes its own folder)."""
    root = Path(tempfile.mkdtemp(prefix="cairn-props-"))
    ws = Workspace(root / "ws")
    artifact = ws.root / "run.jsonl"
    ran = cli(ws.eval_args("--run-only", "--artifact", str(artifact)), ws.root)
    assert ran.code == 0, ran.err
    before = _results(ws.root)
    yield ws, artifact
    assert _results(ws.root) == before, "an example changed the shared workspace"
    shutil.rmtree(root, ignore_errors=True)


def _results(folder: Path) -> dict[str, str]:
    """`snapshot` without the corpus manifest: it records the stat fields of documents as they age past
    its two-second window, so a later run over the same corpus adds the ones just generated. It says
    which files need no reading, nothing a run reports."""
    return {k: v for k, v in snapshot(folder).items() if not k.startswith(".cairn/cache/manifest/")}


_counter = itertools.count()


def _example_dir(ws: Workspace) -> Path:
    folder = ws.root.parent / f"ex-{next(_counter)}"
    folder.mkdir()
    return folder


def _check(
    ran: Ran, folder: Path, before: dict[str, str], names: tuple[str, ...], ok: tuple[int, ...]
) -> None:
    """The contract: an allowed exit code; on 2, no traceback, the file named, nothing written."""
    assert "Traceback" not in ran.err, ran.err
    assert ran.code in (*ok, 2), f"exit {ran.code}\n{ran.err}"
    if ran.code == 2:
        text = ran.error_line or (ran.out + ran.err)
        assert any(n in text for n in names) or text.startswith(tuple(f"error: {r}" for r in REFUSALS)), (
            f"{text!r} names none of {names}"
        )
        assert snapshot(folder) == before, "a refused input changed a file"


# JSON values, including what JSON itself does not allow (NaN, Infinity), as text -----------------------

_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
)


def _containers(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    # A named function: Hypothesis 6.170 reads a lambda's source to check it uses its argument, and
    # misreads this one (a HypothesisDeprecationWarning, an error under filterwarnings = error).
    return st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)


json_values = st.recursive(_scalars, _containers, max_leaves=6)
# Raw JSON fragments that no Python value dumps to: huge integers, deep nesting, invalid tokens.
raw_fragments = st.one_of(
    st.integers(20, 6000).map(lambda n: "9" * n),
    st.integers(10, 5000).map(lambda n: "[" * n + "]" * n),
    st.integers(10, 3000).map(lambda n: '{"a":' * n + "1" + "}" * n),
    st.sampled_from(["NaN", "-Infinity", "1e999", "tru", "'x'", '"\\ud800"', "01", "[1,]", "{,}", ""]),
)
PLACEHOLDER = "\u2603CAIRN_RAW\u2603"


def _dumps(value: Any, raw: str | None) -> str:
    text = json.dumps(value, allow_nan=True)
    return text.replace(json.dumps(PLACEHOLDER), raw) if raw is not None else text


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, child in value.items():
            found += _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value[:2]):
            found += _paths(child, (*prefix, index))
    return found


@st.composite
def mutated_json(draw: st.DrawFn, base: dict[str, Any]) -> str:
    """`base` with one thing broken: a value replaced, a key removed or added, rows repeated, or raw text."""
    data = json.loads(json.dumps(base))
    kind = draw(st.sampled_from(["replace", "replace", "delete", "add", "raw", "repeat", "text"]))
    if kind == "text":
        return draw(st.text(max_size=200))
    paths = _paths(data)
    path = draw(st.sampled_from(paths))
    parent: Any = data
    for part in path[:-1]:
        parent = parent[part]
    last = path[-1]
    raw = None
    if kind == "replace":
        parent[last] = draw(json_values)
    elif kind == "delete" and isinstance(parent, dict):
        del parent[last]
    elif kind == "add" and isinstance(parent, dict):
        parent[draw(st.text(min_size=1, max_size=8))] = draw(json_values)
    elif kind == "raw":
        parent[last] = PLACEHOLDER
        raw = draw(raw_fragments)
    elif kind == "repeat":
        for value in data.values():
            if isinstance(value, list) and value:
                value.extend(value[:1] * draw(st.integers(1, 3)))
                break
    return _dumps(data, raw)


# Golden sets ---------------------------------------------------------------------------------------------


def _golden_case(ws: Workspace) -> dict[str, Any]:
    return json.loads(ws.golden.read_text(encoding="utf-8").splitlines()[0])


@st.composite
def golden_texts(draw: st.DrawFn, case: dict[str, Any]) -> tuple[bytes, bytes | None]:
    """(golden.jsonl bytes, golden.version bytes or None): valid lines around one broken line."""
    line = draw(
        st.one_of(
            mutated_json(case),
            st.binary(max_size=60).map(lambda b: b.decode("latin-1")),
            raw_fragments,
        )
    )
    lines = [json.dumps({**case, "id": f"ok-{i}"}) for i in range(2)]
    lines.insert(draw(st.integers(0, 2)), line)
    data = "\n".join(lines).encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        data = draw(st.binary(max_size=40)) + data
    version = draw(st.none() | st.binary(max_size=30) | st.just(b"v" * 5000) | st.just(b"1\n2\n"))
    return data, version


@examples(150)
@given(data=st.data())
def test_golden_set__any_malformed_line__exit_2_naming_the_file_or_0(shared, data: st.DataObject) -> None:
    ws, _ = shared
    golden, version = data.draw(golden_texts(_golden_case(ws)))
    folder = _example_dir(ws)
    (folder / "golden.jsonl").write_bytes(golden)
    if version is not None:
        (folder / "golden.version").write_bytes(version)
    before = snapshot(folder)
    ran = cli(
        ["golden", "check", "--golden", str(folder / "golden.jsonl"), "--corpus", str(ws.corpus)], folder
    )
    _check(ran, folder, before, (str(folder),), ok=(0,))


# Configs -------------------------------------------------------------------------------------------------

SECTIONS = {
    "": ["name", "description", "target", "bogus"],
    "corpus": ["path"],
    "chunking": ["size", "overlap"],
    "retrieval": ["mode", "top_k", "depth"],
    "provider": ["name", "model", "base_url", "api_key_env", "temperature", "max_tokens", "timeout_s"],
    "judge": ["name", "model", "provider", "base_url", "f1_threshold"],
    "run": ["max_concurrency", "cache_dir"],
    "calibration": ["alpha", "delta", "seed", "fraction", "path"],
    "gate": ["critical_tags", "max_p_value", "override_label", "max_drop", "floors"],
    "gate.floors": ["answer_rate", "recall_at_5", "nonsense"],
    "gate.max_drop": ["recall_at_5", "token_f1", "nope"],
    "budget": ["max_cost_usd"],
    'prices."m"': ["input", "output", "cached_input"],
    "nonsense": ["x"],
}


def _toml_float(x: float) -> str:
    if x != x:
        return "nan"
    if x in (float("inf"), float("-inf")):
        return "inf" if x > 0 else "-inf"
    return repr(x)


toml_values = st.one_of(
    st.integers(-(10**20), 10**20).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(_toml_float),
    st.booleans().map(lambda b: "true" if b else "false"),
    st.text(max_size=30).map(json.dumps),
    st.sampled_from(
        [
            '""',
            '" "',
            '"not a url"',
            '"https://"',
            '"http://:80"',
            '"http://localhost:99999/v1"',
            '"http://localhost:8000/v1"',
            '"python:x:y"',
            '"python:"',
            '"5"',
            '"nan"',
            "[]",
            "[1, 2]",
            '["a", 3]',
            "{}",
            "{ a = 1 }",
            "1979-05-27T07:32:00Z",
            '"stub"',
            '"openai"',
            '"llm"',
            '"../../../etc"',
            '"/etc/hostname"',
        ]
    ),
)


@st.composite
def config_texts(draw: st.DrawFn, ws: Workspace) -> str:
    tail = f'\n[corpus]\npath = "{ws.corpus}"\n\n[golden]\npath = "{ws.golden_dir}"\n'
    if draw(st.integers(0, 9)) == 0:
        return draw(st.text(max_size=120)) + tail
    section = draw(st.sampled_from(sorted(SECTIONS)))
    key = draw(st.sampled_from(SECTIONS[section]) | st.text(min_size=1, max_size=6).map(json.dumps))
    value = draw(toml_values)
    if section == "":
        return f'name = "tiny"\n{key} = {value}\n{tail}'
    return f'name = "tiny"\n{tail}\n[{section}]\n{key} = {value}\n'


@examples(130)
@given(data=st.data())
def test_config__any_malformed_key_or_value__exit_2_naming_the_file_or_0(shared, data: st.DataObject) -> None:
    ws, artifact = shared
    folder = _example_dir(ws)
    config = folder / "cairn.toml"
    config.write_text(data.draw(config_texts(ws)), encoding="utf-8", errors="surrogatepass")
    before = snapshot(folder)
    argv = ["score", "--config", str(config), "--split", "all", str(artifact), "--reports", str(folder / "r")]
    ran = cli(argv, folder)
    # A valid config that measures something else is refused by the artifact's config hash (naming it).
    _check(ran, folder, before, (str(config), str(artifact), str(folder)), ok=(0,))


# Reports -------------------------------------------------------------------------------------------------


@examples(130)
@given(data=st.data())
def test_report__any_malformed_field__gate_exit_2_naming_the_file_or_a_verdict(
    shared, data: st.DataObject
) -> None:
    ws, _ = shared
    folder = _example_dir(ws)
    candidate = folder / "candidate.json"
    candidate.write_text(data.draw(mutated_json(ws.report())), encoding="utf-8", errors="surrogatepass")
    before = snapshot(folder)
    argv = ["gate", str(ws.baseline), str(candidate), "--json", str(folder / "decision.json")]
    if data.draw(st.booleans()):
        argv = ["gate", str(candidate), str(ws.baseline)]  # the broken one as the baseline
    ran = cli(argv, folder)
    _check(ran, folder, before, (str(candidate),), ok=(0, 1))


# Run artifacts -------------------------------------------------------------------------------------------


@st.composite
def artifact_texts(draw: st.DrawFn, artifact: Path) -> str:
    lines = artifact.read_text(encoding="utf-8").splitlines()
    kind = draw(st.sampled_from(["mutate", "mutate", "mutate", "drop", "repeat", "truncate", "insert"]))
    index = draw(st.integers(0, len(lines) - 1))
    if kind == "mutate":
        lines[index] = draw(mutated_json(json.loads(lines[index])))
    elif kind == "drop":
        del lines[index]
    elif kind == "repeat":
        lines.insert(index, lines[index])
    elif kind == "insert":
        lines.insert(index, draw(st.text(max_size=40) | raw_fragments))
    text = "\n".join(lines) + "\n"
    if kind == "truncate":
        text = text[: draw(st.integers(0, len(text) - 1))]
    return text


@examples(130)
@given(data=st.data())
def test_artifact__any_malformed_line__score_exit_2_naming_the_file_or_0(shared, data: st.DataObject) -> None:
    ws, artifact = shared
    folder = _example_dir(ws)
    broken = folder / "run.jsonl"
    broken.write_text(data.draw(artifact_texts(artifact)), encoding="utf-8", errors="surrogatepass")
    before = snapshot(folder)
    argv = [
        "score",
        "--config",
        str(ws.config),
        "--split",
        "all",
        str(broken),
        "--reports",
        str(folder / "r"),
    ]
    ran = cli(argv, folder)
    _check(ran, folder, before, (str(broken),), ok=(0,))


# Paths ---------------------------------------------------------------------------------------------------

PATH_KINDS = ["missing", "folder", "loop", "too-long", "under-a-file", "fifo", "nul", "empty-file"]


def _make_path(folder: Path, kind: str) -> str:
    if kind == "missing":
        return str(folder / "nope" / "x.json")
    if kind == "folder":
        (folder / "d").mkdir()
        return str(folder / "d")
    if kind == "loop":
        (folder / "loop").symlink_to(folder / "loop")
        return str(folder / "loop")
    if kind == "too-long":
        return str(folder / ("n" * 300)) + "/" + "m" * 5000
    if kind == "under-a-file":
        (folder / "f").write_text("x", encoding="utf-8")
        return str(folder / "f" / "x.json")
    if kind == "fifo":  # never a real device: a bug here would replace /dev/null for the whole machine
        os.mkfifo(folder / "fifo")
        return str(folder / "fifo")
    if kind == "nul":
        return str(folder / "a\0b")
    (folder / "empty").write_bytes(b"")
    return str(folder / "empty")


@examples(70)
@given(kind=st.sampled_from(PATH_KINDS), slot=st.integers(0, 9))
def test_paths__bad_input_or_output_path__exit_2_naming_it(shared, kind: str, slot: int) -> None:
    ws, artifact = shared
    folder = _example_dir(ws)
    bad = _make_path(folder, kind)
    config = str(ws.config)
    commands = [
        ["gate", bad, str(ws.candidate)],
        ["gate", str(ws.baseline), str(ws.candidate), "--markdown", bad],
        ["score", "--config", config, "--split", "all", bad],
        ["score", "--config", config, "--split", "all", str(artifact), "--reports", bad],
        ["merge", bad, "--out", str(folder / "m.jsonl")],
        ["merge", str(artifact), "--out", bad],
        ["bench", "--reports", bad],
        ["golden", "check", "--golden", bad, "--corpus", str(ws.corpus)],
        ["eval", "--config", config, "--no-progress", "--run-only", "--artifact", bad],
        ["eval", "--config", bad, "--no-progress", "--run-only"],
    ]
    argv = commands[slot]
    before = snapshot(folder)
    ran = cli(argv, folder)
    shown = bad if kind != "too-long" else bad[:100]
    names = (shown, repr(bad)[1:40], str(folder), os.path.relpath(bad, folder)[:100])
    if slot == 5:  # a whole run is not a shard: merge refuses it, naming it, whatever --out is
        names += (str(artifact),)
    ok: tuple[int, ...] = ()
    valid_output = {1: ("missing", "empty-file"), 3: ("missing", "folder"), 8: ("missing", "empty-file")}
    if kind in valid_output.get(slot, ()):
        ok = (0, 1)  # a file or folder that can be created (or replaced) is a valid output
    _check(ran, folder, before, names, ok=ok or (2,))


# Arguments -----------------------------------------------------------------------------------------------

arg_tokens = st.sampled_from(
    [
        "--shard",
        "--split",
        "--config",
        "--corpus",
        "--golden",
        "--history",
        "--override-label",
        "--override-pr",
        "--json",
        "--out",
        "--reports",
        "",
        " ",
        "0/0",
        "1/1",
        "2/1",
        "-1/3",
        "\u00b2/3",
        "1/99999999",
        "eval",
        "all",
        "calibration",
        "x",
        "--",
        "-",
        "--nonsense",
    ]
) | st.text(max_size=8)


@examples(70)
@given(
    command=st.sampled_from(["eval", "score", "gate", "merge", "bench"]),
    rest=st.lists(arg_tokens, max_size=5),
)
def test_arguments__random_flags_and_values__a_usage_error_never_a_traceback(
    shared, command: str, rest: list[str]
) -> None:
    ws, artifact = shared
    folder = _example_dir(ws)
    fixed = {
        "eval": [
            "--config",
            str(ws.config),
            "--no-progress",
            "--run-only",
            "--artifact",
            str(folder / "a.jsonl"),
        ],
        "score": [
            "--config",
            str(ws.config),
            "--split",
            "all",
            str(artifact),
            "--reports",
            str(folder / "r"),
        ],
        "gate": [str(ws.baseline), str(ws.candidate)],
        "merge": [str(artifact), "--out", str(folder / "m.jsonl")],
        "bench": ["--reports", str(folder / "r")],
    }[command]
    ran = cli([command, *fixed, *rest], folder)
    assert "Traceback" not in ran.err, ran.err
    assert ran.code in (0, 1, 2), f"exit {ran.code}\n{ran.err}"
