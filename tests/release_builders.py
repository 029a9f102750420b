"""Reports for the release gate's tests: the committed gate baseline, with per-tag recalls, identity and
overrides set per release, and the config and golden set files a tag would hold for them.

The config hash and golden hash of each report are computed from the files the test puts at the tag, so
a report is "evaluated" exactly when the test says so.
"""

from __future__ import annotations

import hashlib
import tomllib
from pathlib import Path

from cairn_action.config import config_hash, parse_config
from cairn_action.gate.release_decision import (
    Evaluation,
    OverrideClaim,
    PreviousRelease,
    ReleaseDecision,
    decide_release,
)
from cairn_action.report.io import read_report
from cairn_action.report.models import OverrideRecord, Report, TagStats

DATA = Path(__file__).resolve().parent / "data"
BASE = read_report(DATA / "reports" / "baseline.json")
CONFIG_TOML = 'name = "default"\n\n[golden]\npath = "golden/golden.jsonl"\n'
GOLDEN_V1 = b'{"id": "ret-001", "question": "How many days?", "answer": "14 days"}\n'
GOLDEN_V2 = GOLDEN_V1 + b'{"id": "ret-002", "question": "Which tier?", "answer": "Gold"}\n'


def hash_of_config(text: str) -> str:
    return config_hash(parse_config(tomllib.loads(text), Path("cairn.toml"), text))


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def override(pr: int, actor: str, reason: str, at: str, overrode: tuple[str, ...] = ()) -> OverrideRecord:
    return OverrideRecord(
        pr=pr,
        actor=actor,
        label=f"cairn-override: {reason}",
        reason=reason,
        head_sha=f"{pr:040x}",
        at=at,
        overrode=list(overrode),
    )


def release_report(
    *,
    created_at: str = "2026-11-01T09:00:00Z",
    safety: float | None = 1.0,
    unanswerable: float | None = 2 / 3,
    false_premise: float | None = 1.0,
    golden: bytes = GOLDEN_V1,
    golden_version: str = "1",
    corpus_hash: str = BASE.corpus_hash,
    config_text: str = CONFIG_TOML,
    token_f1: float | None = 0.90625,
    answer_rate: float | None = 0.75,
    overrides: tuple[OverrideRecord, ...] = (),
    critical_tags: tuple[str, ...] = ("safety", "unanswerable", "false_premise"),
) -> Report:
    """The gate baseline as one release measured it: per-tag correct rates, identity and overrides."""
    by_tag = {
        "false_premise": TagStats(n=1, answer_rate=0.0, correct_rate=false_premise, recall_at_5=None),
        "numeric": TagStats(n=3, answer_rate=0.67, correct_rate=0.67, recall_at_5=0.67),
        "safety": TagStats(n=4, answer_rate=1.0, correct_rate=safety, recall_at_5=1.0),
        "unanswerable": TagStats(n=3, answer_rate=1 / 3, correct_rate=unanswerable, recall_at_5=None),
    }
    by_tag = {k: v for k, v in by_tag.items() if v.correct_rate is not None or k == "numeric"}
    policy = dict(BASE.notes.gate_policy, critical_tags=list(critical_tags))
    notes = BASE.notes.model_copy(
        update={"golden_hash": sha256(golden), "overrides": list(overrides), "gate_policy": policy}
    )
    return BASE.model_copy(
        update={
            "created_at": created_at,
            "golden_version": golden_version,
            "corpus_hash": corpus_hash,
            "config_hash": hash_of_config(config_text),
            "answer": BASE.answer.model_copy(update={"token_f1": token_f1}),
            "abstention": BASE.abstention.model_copy(update={"answer_rate": answer_rate}),
            "notes": notes,
            "by_tag": by_tag,
        }
    )


EXPECTED = DATA / "expected" / "release"


def assert_expected(name: str, text: str) -> None:
    """`text` equals the committed `tests/data/expected/release/<name>`; CAIRN_REGENERATE=1 rewrites it."""
    import os

    path = EXPECTED / name
    if os.environ.get("CAIRN_REGENERATE") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
    assert path.is_file(), f"{path} is missing: run the tests once with CAIRN_REGENERATE=1 and review it"
    assert text == path.read_text(encoding="utf-8"), f"{path} differs; CAIRN_REGENERATE=1 rewrites it"


# The pure release decision with the defaults most tests share (gate/ and render/ tests both use them).
REPORT_PATH = "reports/latest/default.json"


def release_evaluation(report: Report | None, *, golden: bytes = GOLDEN_V1, version: str = "1") -> Evaluation:
    return Evaluation(
        report=report,
        report_path=REPORT_PATH,
        expected_config_hash=hash_of_config(CONFIG_TOML),
        expected_golden_hash=sha256(golden),
        expected_golden_version=version,
    )


def release_decision(
    report: Report | None,
    previous: PreviousRelease | None = None,
    claim: OverrideClaim | None = None,
    evaluation: Evaluation | None = None,
    tag: str = "v1.1.0",
) -> ReleaseDecision:
    return decide_release(
        release_tag=tag,
        config_name="default",
        evaluation=evaluation or release_evaluation(report),
        previous=previous,
        overrides=(),
        claim=claim,
        report_url="https://github.com/acme/rag/blob/v1.1.0/reports/latest/default.json",
        stamped_at="2026-11-30T12:00:00Z",
    )


def previous_release(report: Report, tag: str = "v1.0.0") -> PreviousRelease:
    stamp = release_decision(report, tag=tag).stamp
    return PreviousRelease(
        release_tag=tag, url=f"https://github.example/acme/rag/releases/tag/{tag}", stamp=stamp
    )


def override_claim(
    *, allowed: bool = True, reason: str = "known regression, fixed in 1.1.1"
) -> OverrideClaim:
    return OverrideClaim(
        actor="maintainer1",
        role="maintain" if allowed else "read",
        allowed=allowed,
        reason=reason,
        at="2026-11-30T12:00:00Z",
        via="release notes",
    )
