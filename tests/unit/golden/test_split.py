"""The calibration split: stratified, deterministic on every machine, pinned by a committed vector."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from score_builders import make_case

from cairn_action.golden.split import calibration_size, split_golden, split_ids, split_key, stratum_of

VECTOR = Path(__file__).resolve().parents[2] / "data" / "split_vector.json"


def test_split_key__sha256_of_seed_nul_id__metrics_md_vector() -> None:
    keys = [split_key("cairn-split-v1", f"q00{i}")[:12] for i in range(1, 5)]
    assert keys == ["254385a23c7f", "1e66305551b4", "77917470bc5e", "01658d6a2fcc"]


def test_split__metrics_md_vector() -> None:
    cases = [(f"q{i:03d}", "unanswerable" if i % 4 == 0 else "answerable") for i in range(1, 21)]
    split = split_ids(cases, seed="cairn-split-v1", fraction=0.4)
    assert split.calibration == ("q001", "q002", "q004", "q005", "q007", "q008", "q013", "q015")
    assert (split.strata["answerable"].calibration, split.strata["unanswerable"].calibration) == (6, 2)


@pytest.mark.parametrize(
    "vector", json.loads(VECTOR.read_text(encoding="utf-8"))["vectors"], ids=lambda v: v["name"]
)
def test_split__committed_vector_unchanged(vector: dict) -> None:
    cases = [(case_id, stratum) for case_id, stratum, _ in vector["cases"]]
    split = split_ids(cases, seed=vector["seed"], fraction=vector["fraction"])
    got = {i: ("calibration" if i in split.calibration else "eval") for i, _ in cases}
    assert got == {case_id: slice_ for case_id, _, slice_ in vector["cases"]}


def test_split__same_in_a_fresh_interpreter_with_another_hash_seed() -> None:
    # Python's hash() is salted per process; the split must not be.
    code = (
        "from cairn_action.golden.split import split_ids;"
        "cases = [(f'c{i}', 's' if i % 3 else 't') for i in range(30)];"
        "print(split_ids(cases, seed='7', fraction=0.4).calibration)"
    )
    outs = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={"PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2")
    }
    local = split_ids(
        [(f"c{i}", "s" if i % 3 else "t") for i in range(30)], seed="7", fraction=0.4
    ).calibration
    assert outs == {f"{local}\n"}


def test_split__independent_of_input_order_within_slices() -> None:
    cases = [(f"c{i}", "a" if i % 4 else "u") for i in range(40)]
    forward = split_ids(cases, seed="1", fraction=0.4)
    backward = split_ids(cases[::-1], seed="1", fraction=0.4)
    assert set(forward.calibration) == set(backward.calibration)
    assert forward.calibration == tuple(
        i for i, _ in cases if i in set(forward.calibration)
    )  # file order kept


def test_split__adding_a_case_moves_only_its_own_stratum() -> None:
    cases = [(f"c{i}", "a" if i % 4 else "u") for i in range(40)]
    before = split_ids(cases, seed="1", fraction=0.4)
    after = split_ids([*cases, ("new-a", "a")], seed="1", fraction=0.4)
    unchanged = {i for i, s in cases if s == "u"}
    assert set(before.calibration) & unchanged == set(after.calibration) & unchanged


def test_split__stratified_on_answerable_and_false_premise() -> None:
    golden = [make_case(f"a{i}") for i in range(30)]
    golden += [make_case(f"u{i}", answerable=False) for i in range(5)]
    golden += [make_case(f"f{i}", answerable=False, tags=["unanswerable", "false_premise"]) for i in range(5)]
    split = split_golden(golden, seed=0, fraction=0.4)
    assert {s: c.calibration for s, c in split.strata.items()} == {
        "answerable": 12,
        "unanswerable": 2,
        "unanswerable/false_premise": 2,
    }
    assert stratum_of(golden[-1]) == "unanswerable/false_premise"
    assert split.ids("all") == frozenset(c.id for c in golden)
    assert not split.ids("eval") & split.ids("calibration")


def test_split__singleton_stratum_stays_in_eval() -> None:
    split = split_ids([("a1", "a"), ("a2", "a"), ("x", "lonely")], seed="0", fraction=0.5)
    assert "x" in split.eval and split.strata["lonely"].calibration == 0


def test_calibration_size__ceil_without_float_noise() -> None:
    assert calibration_size(20, 0.4) == 8
    assert calibration_size(120, 0.4) == 48
    assert calibration_size(50, 0.4) == 20
    assert calibration_size(37, 0.4) == 15  # ceil(14.8)


def test_summary__fingerprint_changes_with_the_slice() -> None:
    cases = [(f"c{i}", "a") for i in range(20)]
    a = split_ids(cases, seed="1", fraction=0.4).summary()
    b = split_ids(cases, seed="2", fraction=0.4).summary()
    assert a.calibration_ids_hash != b.calibration_ids_hash and a.n_calibration == b.n_calibration == 8
