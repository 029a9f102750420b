"""The judge runs here, in the trusted process, never beside the system under test.

The evaluation child runs the pull request's code: a judge in that process can be patched (an LLM judge
replaced by one that grades every answer right), and one the config names can be pointed at the pull
request's own server. So the child only records answers, judging them with the lexical judge to choose
what to re-ask, and this process judges every recorded answer with the judge of the trusted config (the
base branch's in PR mode, read at the base commit like the `[gate]` policy), through its own response
cache in the scratch folder, which the child's user cannot write, under that config's budget, prices,
retries and concurrency. A judge call lands on the record like any other, so cost and tokens count it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from cairn_action.action.trust import is_reserved
from cairn_action.config import Config
from cairn_action.errors import CairnError, ConfigError
from cairn_action.golden.models import GoldenCase
from cairn_action.providers.build_providers import build_llm_judge, judge_settings
from cairn_action.providers.services import ProviderServices
from cairn_action.run.cache import ResultCache
from cairn_action.run.graded import JUDGE_DRAWS
from cairn_action.run.judge import LexicalJudge
from cairn_action.run.models import CaseRecord
from cairn_action.run.sealed import judge_again

JUDGE_CACHE = "judge-cache"
"""The trusted judge's response cache, in the scratch folder beside (not inside) the child's `run/`."""


@dataclass(frozen=True, kw_only=True)
class TrustedJudge:
    """The judge settings that decide: the trusted config's `[judge]` (with its `[provider]` defaults)."""

    config: Config
    where: str
    """Where they were read, for messages: `cairn.toml at 1a2b3c4d5e6f`."""

    @property
    def deterministic(self) -> bool:
        return self.config.judge.name == "lexical"

    def changed_by(self, candidate: Config) -> list[str]:
        """The `[judge]` keys the candidate sets otherwise (the comment says they apply after merge)."""
        mine, theirs = self.config.judge.model_dump(), candidate.judge.model_dump()
        return [key for key in mine if key != "api_key_env" and mine[key] != theirs[key]]


def _build(trusted: TrustedJudge, env: Mapping[str, str], services: ProviderServices) -> object:
    judge = trusted.config.judge
    if judge.name == "lexical":
        return LexicalJudge(judge.f1_threshold)
    try:
        settings = judge_settings(judge, trusted.config.provider)
        if settings.api_key_env and is_reserved(settings.api_key_env):
            raise ConfigError(
                f"judge.api_key_env: {settings.api_key_env} is one of the runner's own variables",
                "name a variable of your own that holds the judge's key",
            )
        return build_llm_judge(judge, trusted.config.provider, env, services)
    except ConfigError as exc:
        raise CairnError(f"{trusted.where}: {exc.message}", exc.hint) from None


def judge_records(
    trusted: TrustedJudge,
    records: Sequence[CaseRecord],
    cases: Mapping[str, GoldenCase],
    *,
    env: Mapping[str, str],
    cache_dir: Path,
    warn: Callable[[str], None],
    draws: int = JUDGE_DRAWS,
) -> tuple[list[CaseRecord], str]:
    """Every answered record judged again by the trusted judge (the child's verdict and judge calls
    dropped); the judge's label for the run header. Answers are never asked again here. `draws`: judge
    draws per sample, majority wins (run/graded.py)."""
    services = ProviderServices.from_config(trusted.config, env=env, warn=warn)
    try:
        judge = _build(trusted, env, services)
        workers = 1 if trusted.deterministic else trusted.config.run.max_concurrency
        judged = judge_again(
            judge,
            records,
            cases,
            cache=ResultCache(cache_dir),
            clock=time.perf_counter,
            workers=workers,
            draws=draws,
        )
    finally:
        services.close()
    return judged, str(getattr(judge, "label", trusted.config.judge.name))
