"""Writes the scoring fixture: a 14-case golden set and a run artifact over it with every kind of record.

Run `python tests/data/scoring/make_fixture.py` after changing it; the files are committed. The run's
header carries the config hash of `Config(name="fixture")`, so the fixture scores with that config.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from cairn_action.config import Config, config_hash
from cairn_action.run.artifact import write_artifact
from cairn_action.run.models import (
    CaseRecord,
    Citation,
    Claim,
    Environment,
    JudgeVerdict,
    ProviderCall,
    RetrievedChunk,
    RunHeader,
    Usage,
)

HERE = Path(__file__).resolve().parent
CONFIG = Config(name="fixture")
CORPUS_HASH = hashlib.sha256(b"fixture corpus").hexdigest()

# id, answerable, expected, tags, difficulty
CASES = [
    ("ret-001", True, "14 days", ["numeric", "policy"], "easy"),
    ("ret-002", True, "Net 30", ["policy"], "easy"),
    ("ret-003", True, "5 March 2024", ["date"], "medium"),
    ("ret-004", True, "Orla Finch", ["name"], "medium"),
    ("ret-005", True, "2.5%", ["numeric"], "hard"),
    ("ret-006", True, "Tuesday and Friday", ["multi_doc"], "hard"),
    ("ret-007", True, "48 hours", ["numeric", "safety"], "medium"),
    ("ret-008", True, "Bristol", ["name"], "easy"),
    ("ret-009", True, "12 cases", ["numeric"], "medium"),
    ("ret-010", True, "£250", ["numeric", "policy"], "hard"),
    ("una-001", False, None, ["unanswerable"], "medium"),
    ("una-002", False, None, ["unanswerable"], "hard"),
    ("una-003", False, None, ["unanswerable", "false_premise"], "hard"),
    ("una-004", False, None, ["unanswerable", "false_premise"], "medium"),
]

# id -> status, answer, judge correct, grade, confidence, evidence rank, claims verified, latency, cost,
#       tokens (in, out, cached), answer prompt prefix
RUNS: dict[str, tuple] = {
    "ret-001": ("answered", "14 days", True, None, 0.95, 1, [True, True], 110.0, 0.0012, (900, 20, 0), "p1"),
    "ret-002": ("answered", "net 30 days", True, None, 0.90, 2, [True], 95.0, 0.0011, (880, 25, 800), "p1"),
    "ret-003": (
        "answered",
        "March 2024",
        False,
        None,
        0.62,
        3,
        [True, False],
        130.0,
        0.0013,
        (910, 22, 800),
        "p1",
    ),
    "ret-004": ("abstained", None, None, None, 0.20, 12, [], 80.0, 0.0009, (850, 5, 800), "p1"),
    "ret-005": ("answered", "2.5 %", True, None, 0.75, 1, [True], 120.0, 0.0012, (905, 18, 800), "p1"),
    "ret-006": ("answered", "Tuesday", False, None, 0.55, None, [False], 140.0, 0.0014, (920, 30, 800), "p2"),
    "ret-007": ("error", None, None, None, None, 4, [], 3000.0, 0.0, (0, 0, 0), None),
    "ret-008": ("answered", "Bristol", True, None, 0.88, 1, [True], 100.0, 0.0010, (870, 12, 800), "p2"),
    "ret-009": ("stale", None, None, None, None, None, [], 0.0, 0.0, (0, 0, 0), None),
    "ret-010": (
        "answered",
        "£250",
        True,
        None,
        0.81,
        5,
        [True, True, True],
        105.0,
        0.0011,
        (890, 15, 800),
        "p2",
    ),
    "una-001": ("abstained", None, None, None, 0.10, None, [], 70.0, 0.0008, (840, 4, 800), "p2"),
    "una-002": (
        "answered",
        "Orla Finch",
        True,
        None,
        0.58,
        None,
        [False],
        115.0,
        0.0012,
        (860, 10, 800),
        "p2",
    ),
    "una-003": ("abstained", None, None, None, 0.15, None, [], 75.0, 0.0008, (845, 4, 800), "p2"),
    "una-004": (
        "answered",
        "Yes, on Sundays",
        False,
        None,
        0.40,
        None,
        [],
        90.0,
        0.0010,
        (850, 9, 800),
        "p2",
    ),
}


def golden_lines() -> list[str]:
    lines = []
    for case_id, answerable, expected, tags, difficulty in CASES:
        case: dict = {"id": case_id, "question": f"Fixture question {case_id}?", "answerable": answerable}
        if answerable:
            case["expected_answer"] = expected
            case["support"] = [{"doc": "policy.md", "quote": f"The answer is {expected}."}]
        case["tags"] = tags
        case["difficulty"] = difficulty
        lines.append(json.dumps(case, ensure_ascii=False))
    return lines


def record(line: int, case_id: str, answerable: bool) -> CaseRecord:
    status, answer, correct, grade, conf, rank, claims, latency, cost, tokens, prefix = RUNS[case_id]
    answered = status == "answered"
    retrieved = [
        RetrievedChunk(chunk_id=f"policy.md#{i}", doc="policy.md", rank=i, score=round(10 - i * 0.5, 2))
        for i in range(1, 11)
    ]
    calls = (
        []
        if prefix is None
        else [
            ProviderCall(
                role="answer",
                provider="stub",
                model="stub-extractive-v1",
                cached=False,
                prompt_prefix_hash=prefix,
                usage=Usage(input_tokens=tokens[0], output_tokens=tokens[1], cached_input_tokens=tokens[2]),
                cost_usd=cost,
                latency_ms=latency,
            )
        ]
    )
    return CaseRecord(
        case_id=case_id,
        golden_line=line,
        answerable=answerable,
        status=status,
        answer_text=answer,
        citations=[Citation(chunk_id="policy.md#1"), Citation(chunk_id="other.md#9")] if answered else [],
        confidence=conf,
        confidence_source="stub-support-score",
        model_abstained=status == "abstained",
        retrieved=retrieved if status != "stale" else [],
        support_chunk_ids=["policy.md#1"] if answerable else [],
        support_located=answerable and status != "stale",
        retrieved_support_rank=rank if rank is not None and rank <= 10 else None,
        first_overlap_rank=rank if rank is not None and rank <= 10 else None,
        judge=JudgeVerdict(
            name="lexical", rule_version="lexical-v1", correct=correct if answered else None, score=grade
        )
        if status in ("answered", "abstained")
        else None,
        claims=[
            Claim(text=f"claim {i}", cited_chunk_ids=["policy.md#1"], verified=v)
            for i, v in enumerate(claims)
        ],
        calls=calls,
        usage=Usage(input_tokens=tokens[0], output_tokens=tokens[1], cached_input_tokens=tokens[2]),
        cost_usd=cost,
        latency_ms=latency,
        prompt_prefix_hash=prefix,
        error="provider unreachable after 4 retries"
        if status == "error"
        else ("stale: a support quote is no longer verbatim in its document" if status == "stale" else None),
    )


def main() -> None:
    lines = golden_lines()
    text = "\n".join(lines) + "\n"
    (HERE / "golden.jsonl").write_text(text, encoding="utf-8")
    (HERE / "golden.version").write_text("fixture-1\n", encoding="utf-8")
    header = RunHeader(
        cairn_version="0.1.0",
        config_name=CONFIG.name,
        config_hash=config_hash(CONFIG),
        corpus_hash=CORPUS_HASH,
        golden_version="fixture-1",
        golden_hash=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        split="all",
        n_cases=len(CASES),
        provider="stub",
        model="stub-extractive-v1",
        judge="lexical",
        retrieval_mode="bm25",
        top_k=5,
        depth=10,
        started_at="2026-01-01T00:00:00Z",
        environment=Environment(os="linux", arch="x86_64", python="3.12.3", cpu_count=2),
    )
    records = [record(i, c[0], c[1]) for i, c in enumerate(CASES, start=1)]
    write_artifact(HERE / "run.jsonl", header, records)


if __name__ == "__main__":
    main()
