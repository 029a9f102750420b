"""Writes the gate's report fixtures: one baseline and one candidate per branch of the decision.

Run `python tests/data/reports/make_fixtures.py` after changing it; the JSON files are committed so a
reviewer sees every fixture change as a diff. Aggregates are recomputed from the per-case rows, so each
file is a consistent report, not a bag of numbers.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

from cairn_action.config import Config, experiment_settings
from cairn_action.report.models import (
    AbstentionMetrics,
    AnswerMetrics,
    CitedChunk,
    Environment,
    Notes,
    OperationalMetrics,
    PerCase,
    Report,
    RetrievalMetrics,
)

HERE = Path(__file__).resolve().parent
LINUX = Environment(os="linux", arch="x86_64", python="3.12.3", cpu_count=2)
MAC = Environment(os="darwin", arch="arm64", python="3.12.3", cpu_count=8)
POLICY = {
    "critical_tags": ["safety", "unanswerable", "false_premise"],
    "max_p_value": 0.05,
    "max_drop": {"recall_at_5": 0.05, "latency_p95_ms": 200.0, "cost_per_question_usd": 0.001},
    "floors": {"answer_rate": 0.5},
    "override_label": "cairn-override",
}
ALPHA = 0.25
# The experiment each report records (notes.config): the baseline's, and the candidates' (one setting
# changed, so each config hash names a real difference the comment can show).
SETTINGS = experiment_settings(Config.model_validate({"calibration": {"alpha": ALPHA}, "gate": POLICY}))
LATER_SETTINGS = {**SETTINGS, "provider.max_tokens": 256}


def _case(
    case_id: str,
    question: str,
    expected: str | None,
    tags: list[str],
    *,
    status: str = "answered",
    answer: str | None = None,
    correct: bool | None = True,
    rank: int | None = 1,
    confidence: float = 0.9,
    doc: str = "returns-and-credits-policy.md",
    latency: float = 120.0,
) -> PerCase:
    answerable = expected is not None
    answered = status == "answered"
    text = answer if answer is not None else (expected if answered else None)
    right = answered and correct is True
    return PerCase(
        case_id=case_id,
        answerable=answerable,
        status=status,  # type: ignore[arg-type]
        confidence=confidence,
        correct=(correct if answerable else False) if answered else None,
        token_f1=(1.0 if right else 0.25) if answered and answerable else None,
        citation_validity=1.0 if answered else None,
        retrieved_support_rank=rank if answerable else None,
        latency_ms=latency,
        cost_usd=0.0004,
        answer_text=text,
        exact_match=right if answered and answerable else None,
        question=question,
        expected_answer=expected,
        tags=tags,
        support_located=answerable,
        cited=[CitedChunk(chunk_id=f"{doc}#0", doc=doc, rank=1)] if answered else [],
    )


def baseline_cases() -> list[PerCase]:
    return [
        _case(
            "ret-001",
            "How many days does a customer have to request a credit for a damaged delivery?",
            "14 days",
            ["numeric", "policy"],
        ),
        _case(
            "ret-002",
            "On what date does the spring price list take effect?",
            "3 March 2025",
            ["date"],
            rank=2,
            doc="pricing-tiers-and-volume-discounts.md",
        ),
        _case(
            "ret-003",
            "Which tier gives a 7% volume discount?",
            "Gold",
            ["policy"],
            doc="pricing-tiers-and-volume-discounts.md",
        ),
        _case(
            "ret-004",
            "Who approves credit limits above £20,000?",
            "the finance director",
            ["name"],
            rank=3,
            doc="account-opening.md",
        ),
        _case(
            "ret-005",
            "What is the late fee on an overdue invoice?",
            "2% per month",
            ["numeric"],
            doc="payment-terms-and-late-fees.md",
        ),
        _case(
            "ret-006",
            "Which depot serves both Leeds and York?",
            "Wakefield",
            ["multi_doc"],
            answer="Sheffield",
            correct=False,
            rank=4,
            confidence=0.55,
            doc="delivery-schedules-and-cutoffs.md",
        ),
        _case(
            "ret-007",
            "What time is the Saturday order cut-off?",
            "11:00",
            ["numeric"],
            status="abstained",
            correct=None,
            rank=None,
            confidence=0.2,
        ),
        _case(
            "ret-008",
            "Does the hazelnut praline contain milk?",
            "Yes, it contains milk",
            ["safety", "policy"],
            doc="allergen-information.md",
        ),
        _case(
            "una-001",
            "What is the name of the chief executive of Halcyon Provisions?",
            None,
            ["unanswerable"],
            status="abstained",
            correct=None,
            confidence=0.1,
        ),
        _case(
            "una-002",
            "Why did Halcyon stop delivering on Sundays in 2019?",
            None,
            ["unanswerable", "false_premise"],
            status="abstained",
            correct=None,
            confidence=0.15,
        ),
        _case(
            "una-003",
            "What is the phone number of the Bristol depot?",
            None,
            ["unanswerable"],
            answer="0117 496 0000",
            confidence=0.6,
        ),
        _case(
            "ret-009",
            "When does the customer service line close on Fridays?",
            "17:30",
            ["date"],
            rank=2,
            doc="customer-service-hours-and-slas.md",
        ),
    ]


def _report(
    cases: list[PerCase], *, settings: dict[str, object] = SETTINGS, top_k: int = 5, **overrides: object
) -> Report:
    located = [c for c in cases if c.support_located]
    ranks = [c.retrieved_support_rank for c in located]
    answered = [c for c in cases if c.status == "answered"]
    answerable_answered = [c for c in answered if c.answerable]
    wrong = [c for c in answered if not (c.answerable and c.correct)]
    error_rate = len(wrong) / len(answered) if answered else None
    unanswerable = [c for c in cases if not c.answerable]
    answerable = [c for c in cases if c.answerable]
    latencies = np.array([c.latency_ms for c in cases])
    cost = sum(c.cost_usd or 0.0 for c in cases)

    def mean(values: list[float]) -> float | None:
        return float(np.mean(values)) if values else None

    report = Report(
        cairn_version="0.1.0",
        config_name="default",
        config_hash="e26592bbd90d0924",
        corpus_hash="3f9c6b2a1d0e4f5a",
        golden_version="1",
        split="eval",
        created_at="2026-01-05T10:00:00Z",
        n_cases=len(cases),
        retrieval=RetrievalMetrics(
            recall_at_k={
                str(k): mean([float(r is not None and r <= k) for r in ranks]) for k in (1, 3, 5, 10)
            },
            ndcg_at_10=mean([1 / np.log2(r + 1) if r is not None and r <= 10 else 0.0 for r in ranks]),
            mrr=mean([1 / r if r is not None else 0.0 for r in ranks]),
            n_with_support=len(located),
        ),
        answer=AnswerMetrics(
            exact_match=mean([float(bool(c.exact_match)) for c in answerable_answered]),
            token_f1=mean([c.token_f1 or 0.0 for c in answerable_answered]),
            citation_validity=mean([c.citation_validity or 0.0 for c in answered]),
            faithfulness=mean([float(c.citation_validity == 1.0) for c in answered]),
        ),
        abstention=AbstentionMetrics(
            alpha=ALPHA,
            threshold=0.5,
            answer_rate=len(answered) / len(cases),
            error_rate_answered=error_rate,
            guarantee_met=None if error_rate is None else error_rate <= ALPHA,
            unanswerable_abstained_rate=mean([float(c.status == "abstained") for c in unanswerable]),
            answerable_answered_rate=mean([float(c.status == "answered") for c in answerable]),
        ),
        operational=OperationalMetrics(
            cost_usd_total=cost,
            cost_per_question_usd=cost / len(cases),
            latency_p50_ms=float(np.percentile(latencies, 50)),
            latency_p95_ms=float(np.percentile(latencies, 95)),
            tokens_total=600 * len(cases),
            cache_hit_rate=None,
        ),
        per_case=cases,
        notes=Notes(
            threshold_source="calibrated (fixed-sequence binomial, alpha 0.25, delta 0.1)",
            calibrated=True,
            environment=LINUX,
            provider="stub",
            golden_hash="9d1c0ffee0000000000000000000000000000000000000000000000000000001",
            gate_policy=POLICY,
            top_k=top_k,
            retrieval_depth=int(settings["retrieval.depth"]),  # type: ignore[call-overload]
            config=settings,
            deterministic=True,  # the stub: one sample per case is the whole truth
        ),
    )
    return report.model_copy(update=overrides)


def _noisy(cases: list[PerCase], samples: dict[str, tuple[int, int]], **overrides: object) -> Report:
    """A report of a system that is not deterministic (an LLM at temperature > 0): critical cases carry
    (right, of) sample counts; every other case one sample."""
    rows = []
    for c in cases:
        right = (c.status == "abstained") != c.answerable and (c.status != "answered" or bool(c.correct))
        n_right, n = samples.get(c.case_id, (int(right), 1))
        agreement = max(n_right, n - n_right) / n if n else None
        rows.append(c.model_copy(update={"n_samples": n, "n_right": n_right, "agreement": agreement}))
    report = _report(rows, **overrides)
    notes = report.notes.model_copy(update={"deterministic": False, "provider": "openai"})
    return report.model_copy(update={"notes": notes})


# The safety answer the noisy candidates get wrong.
_MILK_FREE = {"answer_text": "No, it is milk-free", "correct": False, "token_f1": 0.2, "exact_match": False}

# The noisy baseline: every critical case asked 3 times (gate.baseline_samples), all right.
_NOISY_BASELINE = {"ret-008": (3, 3), "una-001": (3, 3), "una-002": (3, 3), "una-003": (0, 3)}


def _with(cases: list[PerCase], changes: dict[str, dict[str, object]]) -> list[PerCase]:
    return [c.model_copy(update=changes.get(c.case_id, {})) for c in cases]


_WRONG = {"answer_text": "30 days", "correct": False, "token_f1": 0.0, "exact_match": False}


def _variants() -> dict[str, Callable[[], Report]]:
    base = baseline_cases()
    later: dict[str, object] = {
        "created_at": "2026-01-06T09:30:00Z",
        "config_hash": "a1b2c3d4e5f60718",
        "settings": LATER_SETTINGS,
    }
    return {
        "baseline": lambda: _report(base),
        # A safety answer flips and a false-premise question is now answered: critical losses.
        "critical_lost": lambda: _report(
            _with(
                base,
                {
                    "ret-008": {
                        "answer_text": "No, it is milk-free",
                        "correct": False,
                        "token_f1": 0.2,
                        "exact_match": False,
                        "confidence": 0.81,
                    },
                    "una-002": {
                        "status": "answered",
                        "answer_text": "Because drivers were reassigned to Saturdays",
                        "confidence": 0.62,
                        "correct": False,
                        "cited": [
                            CitedChunk(
                                chunk_id="delivery-schedules-and-cutoffs.md#2",
                                doc="delivery-schedules-and-cutoffs.md",
                                rank=1,
                            )
                        ],
                    },
                    "ret-006": {
                        "answer_text": "Wakefield",
                        "correct": True,
                        "token_f1": 1.0,
                        "exact_match": True,
                    },
                },
            ),
            **later,
        ),
        # Five ordinary answers broke and none were fixed: one-sided exact McNemar p = 1/32.
        "correctness_drop": lambda: _report(
            _with(base, {cid: _WRONG for cid in ("ret-001", "ret-002", "ret-003", "ret-004", "ret-005")}),
            **later,
        ),
        # Answers unchanged, but smaller chunks moved two supports out of the top 5: recall@5 falls 22 points.
        "recall_drop": lambda: _report(
            _with(
                base, {"ret-002": {"retrieved_support_rank": 7}, "ret-004": {"retrieved_support_rank": None}}
            ),
            **{**later, "settings": {**SETTINGS, "chunking.size": 200, "chunking.overlap": 40}},
        ),
        # The answerer sees 1 chunk instead of 5, over smaller chunks ranked deeper: a support at rank 2 is
        # no longer seen, one is not retrieved at all, and one answer falls below the threshold.
        "top_k_cut": lambda: _report(
            _with(
                base,
                {
                    "ret-002": {**_WRONG, "retrieved_support_rank": 2, "confidence": 0.7},
                    "ret-004": {**_WRONG, "retrieved_support_rank": None, "confidence": 0.6},
                    "ret-005": {
                        "status": "abstained",
                        "answer_text": None,
                        "correct": None,
                        "token_f1": None,
                        "exact_match": None,
                        "confidence": 0.31,
                        "abstained_by_threshold": True,
                        "cited": [],
                    },
                },
            ),
            top_k=1,
            **{
                **later,
                "settings": {
                    **SETTINGS,
                    "chunking.size": 200,
                    "chunking.overlap": 40,
                    "retrieval.top_k": 1,
                    "retrieval.depth": 20,
                },
            },
        ),
        # Four right answers now abstain: answer rate under its floor of 50%, McNemar p = 1/16.
        "floor_crossed": lambda: _report(
            _with(
                base,
                {
                    cid: {
                        "status": "abstained",
                        "answer_text": None,
                        "correct": None,
                        "token_f1": None,
                        "exact_match": None,
                        "confidence": 0.3,
                        "cited": [],
                    }
                    for cid in ("ret-001", "ret-003", "ret-005", "ret-009")
                },
            ),
            **later,
        ),
        # One more wrong answer pushes error among answered from 2/9 to 3/9, above alpha 0.25.
        "guarantee_lost": lambda: _report(
            _with(
                base,
                {
                    "ret-009": {
                        "answer_text": "18:00",
                        "correct": False,
                        "token_f1": 0.0,
                        "exact_match": False,
                    }
                },
            ),
            **later,
        ),
        # Two fixes, one a newly abstained unanswerable case; one wrong answer changed; nothing lost.
        "improved": lambda: _report(
            _with(
                base,
                {
                    "ret-006": {
                        "answer_text": "Wakefield",
                        "correct": True,
                        "token_f1": 1.0,
                        "exact_match": True,
                    },
                    "una-003": {
                        "status": "abstained",
                        "answer_text": None,
                        "correct": None,
                        "confidence": 0.3,
                        "cited": [],
                    },
                    "ret-007": {
                        "status": "answered",
                        "answer_text": "10:00",
                        "correct": False,
                        "token_f1": 0.0,
                        "exact_match": False,
                        "confidence": 0.52,
                    },
                },
            ),
            **later,
        ),
        "slow_same_machine": lambda: _report(
            _with(base, {c.case_id: {"latency_ms": 480.0} for c in base}), **later
        ),
        "slow_other_machine": lambda: _report(
            _with(base, {c.case_id: {"latency_ms": 480.0} for c in base}),
            notes=_report(base, settings=LATER_SETTINGS).notes.model_copy(update={"environment": MAC}),
            **{k: v for k, v in later.items() if k != "settings"},
        ),
        "cost_up": lambda: _report(_with(base, {c.case_id: {"cost_usd": 0.0030} for c in base}), **later),
        # A critical case (right in the baseline) is missing, a new case appears, one case went stale.
        "missing_case": lambda: _report(
            [
                c
                for c in _with(base, {"ret-003": {"status": "stale", "correct": None}})
                if c.case_id != "una-002"
            ]
            + [_case("ret-010", "What is the minimum order for free delivery?", "£150", ["numeric"])],
            **later,
        ),
        "golden_v2": lambda: _report(base, golden_version="2", **later),
        "noisy_baseline": lambda: _noisy(base, _NOISY_BASELINE),
        # The safety answer was wrong on the first ask, and right on the 4 confirmation re-asks: flaky.
        "noisy_flaky": lambda: _noisy(
            _with(
                base,
                {"ret-008": _MILK_FREE},
            ),
            {**_NOISY_BASELINE, "ret-008": (4, 5)},
            **later,
        ),
        # The safety answer is wrong on all 5 asks, right on all 3 of the baseline's: a confirmed loss.
        "noisy_lost": lambda: _noisy(
            _with(
                base,
                {"ret-008": _MILK_FREE},
            ),
            {**_NOISY_BASELINE, "ret-008": (0, 5)},
            **later,
        ),
        # The safety case errored on every ask (provider down): incomplete, never a regression.
        "noisy_errored": lambda: _noisy(
            _with(
                base,
                {
                    "ret-008": {
                        "status": "error",
                        "answer_text": None,
                        "correct": None,
                        "token_f1": None,
                        "exact_match": None,
                        "error": "provider unreachable after 4 retries",
                    }
                },
            ),
            {**_NOISY_BASELINE, "ret-008": (0, 0)},
            **later,
        ),
        "golden_edited": lambda: _report(
            base,
            notes=_report(base, settings=LATER_SETTINGS).notes.model_copy(
                update={"golden_hash": "9d1c0ffee0000000000000000000000000000000000000000000000000000002"}
            ),
            **{k: v for k, v in later.items() if k != "settings"},
        ),
        "corpus_changed": lambda: _report(base, corpus_hash="77aa00bb11cc22dd", **later),
        "split_all": lambda: _report(base, split="all", **later),
    }


# Earlier runs of `default`, as `cairn eval` names them in reports/: the trend chart's history.
HISTORY = (
    ("2026-01-02T08:15:00Z", "correctness_drop"),
    ("2026-01-03T16:40:00Z", "improved"),
    ("2026-01-05T10:00:00Z", "baseline"),
)


def main() -> None:
    variants = _variants()
    (HERE / "history").mkdir(exist_ok=True)
    for created_at, name in HISTORY:
        made = variants[name]()
        report = made.model_copy(
            update={
                "created_at": created_at,
                "config_hash": "e26592bbd90d0924",
                "notes": made.notes.model_copy(update={"config": SETTINGS}),
            }
        )
        slug = created_at.replace("-", "").replace(":", "")
        path = HERE / "history" / f"default-{slug}.json"
        path.write_text(json.dumps(report.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n")
        print(f"wrote {path.relative_to(HERE.parent.parent.parent)}")
    for name, make in variants.items():
        report = Report.model_validate(make().model_dump())  # re-validate what model_copy skipped
        path = HERE / f"{name}.json"
        path.write_text(json.dumps(report.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n")
        print(f"wrote {path.relative_to(HERE.parent.parent.parent)}")


if __name__ == "__main__":
    main()
