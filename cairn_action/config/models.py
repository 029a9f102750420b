"""The experiment configuration's models: one pydantic section per TOML table, strict, and `Config`.

Several configs can live side by side (`cairn.toml`, `configs/*.toml`); the leaderboard ranks them by
name. Reading a file into these models is `loading`; what identifies the experiment is `digest`.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal, get_args

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

DEFAULT_CONFIG_FILE = "cairn.toml"
DEFAULT_CONFIG_NAME = "default"
SAMPLE_CORPUS_DIR = "data/sample"


def _not_blank(value: str) -> str:
    if not value.strip() or "\0" in value:
        raise ValueError("must not be empty or blank")
    return value


def _http_url(value: str) -> str:
    """An http(s) URL that requests can send to: a scheme, a host, a valid port, no spaces."""
    from urllib.parse import urlsplit

    problem = "must be an http:// or https:// URL with a host, like http://localhost:8000/v1"
    if any(ch.isspace() or not ch.isprintable() for ch in value):
        raise ValueError(problem + " (no spaces or control characters)")
    try:
        parts = urlsplit(value)
        port_ok = parts.port is None or parts.port > 0
    except ValueError:
        raise ValueError(problem + " (the port is not a number from 1 to 65535)") from None
    if parts.scheme not in ("http", "https") or not parts.hostname or not port_ok:
        raise ValueError(problem)
    from requests.exceptions import RequestException
    from requests.models import PreparedRequest

    try:
        PreparedRequest().prepare_url(value, None)
    except (RequestException, ValueError, UnicodeError) as exc:
        raise ValueError(f"{problem} ({str(exc)[:80]})") from None
    return value


def _target_spec(value: str) -> str:
    if value.startswith("python:"):
        module, _, function = value.removeprefix("python:").partition(":")
        dotted = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
        if not (dotted.match(module) and re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", function)):
            raise ValueError("must be python:package.module:function")
        return value
    if value.startswith(("http://", "https://")):
        return _http_url(value)
    raise ValueError("must be python:package.module:function or an http(s):// URL")


NonBlank = Annotated[str, AfterValidator(_not_blank)]
HttpUrl = Annotated[str, AfterValidator(_http_url)]
TargetSpec = Annotated[str, AfterValidator(_target_spec)]


class _Section(BaseModel):
    # Strict: TOML has real types, so a string where a number belongs ("5") or a boolean where an integer
    # belongs (true) is a mistake, not something to coerce; and nan or inf is never a setting. Every section
    # (and every field added to one) inherits this.
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)


class CorpusConfig(_Section):
    path: NonBlank = SAMPLE_CORPUS_DIR
    """Folder of documents, relative to the config file's folder (or absolute)."""


class GoldenConfig(_Section):
    path: NonBlank = "golden/golden.jsonl"
    """golden.jsonl (with golden.version beside it) or a folder holding it."""


class ChunkingConfig(_Section):
    size: int = Field(default=800, ge=100, le=20000)
    """Target chunk length in characters."""
    overlap: int = Field(default=160, ge=0)
    """Characters shared by neighbouring chunks."""

    @model_validator(mode="after")
    def _overlap_below_size(self) -> ChunkingConfig:
        if self.overlap >= self.size:
            raise ValueError(f"overlap ({self.overlap}) must be smaller than size ({self.size})")
        return self


class RetrievalConfig(_Section):
    mode: Literal["bm25", "dense", "hybrid"] = "bm25"
    """`dense` and `hybrid` embed the chunks and need `pip install 'cairn-action[dense]'`."""
    top_k: int = Field(default=5, ge=1, le=100)
    """Chunks handed to the answerer."""
    depth: int = Field(default=10, ge=10, le=1000)
    """Chunks ranked for the retrieval metrics (at least 10, for recall@10 and nDCG@10)."""
    fusion: Literal["convex", "rrf"] = "convex"
    """How `hybrid` combines BM25 and dense: `convex`, a weighted sum of each one's min-max normalised
    scores (`bm25_weight`), or `rrf`, reciprocal rank fusion (`rrf_k`)."""
    bm25_weight: float = Field(default=0.3, ge=0.0, le=1.0)
    """`convex`: BM25's share of the fused score; dense has the rest."""
    rrf_k: int = Field(default=60, ge=1, le=1000)
    """RRF's k: a chunk at rank r of a ranking adds 1 / (k + r)."""
    candidates: int = Field(default=100, ge=10, le=10000)
    """Chunks each of BM25 and dense ranks before `hybrid` fuses them."""
    encoder: Literal["transformer", "static"] = "transformer"
    """`dense`, `hybrid`: `transformer` runs the model on every text; `static` distils it once (11 to 16 s
    of CPU, cached) into a token table and sums table rows: a cold index of the handbook in 10 to 14 s of
    CPU instead of minutes, but on the handbook's dev sets it ranked below BM25 (benchmarks/README.md,
    "A static encoder"). Measure it on your own golden set before choosing it."""
    model_path: str | None = None
    """A folder with model.onnx and tokenizer.json; default: all-MiniLM-L6-v2 (int8) from the extra."""
    sentence_weight: float = Field(default=0.5, ge=0.0, le=1.0)
    """`dense`, `hybrid`: the share of a chunk's dense score that comes from its best sentence (each
    sentence is embedded too); 0 uses the chunk vectors alone."""
    rewrite: Literal["none", "llm"] = "none"
    """`llm`: the provider rewrites the question into the corpus's words before retrieval."""
    rerank: Literal["none", "llm"] = "none"
    """`llm`: the provider re-orders the top `depth` chunks."""


class ProviderConfig(_Section):
    name: Literal["stub", "openai", "anthropic"] = "stub"
    model: NonBlank = "stub-extractive-v1"
    base_url: HttpUrl | None = None
    api_key_env: NonBlank | None = None
    """Name of the environment variable holding the API key; the key itself never goes in a file."""
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    max_tokens: int = Field(default=512, ge=1)
    timeout_s: float = Field(default=60.0, gt=0.0, le=3600.0)
    max_retries: int = Field(default=4, ge=0, le=20)
    requests_per_minute: int | None = Field(default=None, ge=1)


class JudgeConfig(_Section):
    name: Literal["lexical", "llm"] = "lexical"
    """`lexical` (deterministic, the default) or `llm` (a model grades answers under a versioned rubric)."""
    model: NonBlank | None = None
    """The LLM judge's model; default: [provider] model when the judge uses the answering provider."""
    provider: Literal["openai", "anthropic"] | None = None
    """The LLM judge's API (`openai` or `anthropic`); default: [provider] name, base_url and api_key_env."""
    base_url: HttpUrl | None = None
    api_key_env: NonBlank | None = None
    """Name of the environment variable holding the judge's API key (never the key itself)."""
    f1_threshold: float = Field(default=0.5, ge=0.0, le=1.0)
    """Lexical judge: an answer is correct when it contains the expected answer or reaches this token F1."""
    min_kappa: float | None = Field(default=None, ge=-1.0, le=1.0)
    """The gate refuses (exit 2) a candidate whose judge has no `cairn judge check` result beside the
    config, or one with Cohen's kappa below this (the baseline's setting decides). Unset: not required."""


class RunConfig(_Section):
    max_concurrency: int = Field(default=4, ge=1, le=256)
    cache_dir: NonBlank = ".cairn/cache"
    repeats: int = Field(default=1, ge=1, le=50)
    """Asks per case (each a distinct sample with its own cache key). A case's verdict rests on its
    samples; 1 keeps the first-pass cost, and confirmation re-asks only what changed. A deterministic
    system (the stub) is asked once whatever this says."""


class CalibrationConfig(_Section):
    alpha: float = Field(default=0.2, gt=0.0, lt=1.0)
    """Target error rate among answered cases.

    0.2 by default because a golden set of ~100 cases leaves ~40 to calibrate on, and certifying 0.1 at
    delta 0.1 needs at least 22 confident calibration answers with no error at all
    (docs/concepts/abstention.md#fixed-sequence);
    set it lower when the golden set is larger. Choose it before calibrating, never after.
    """
    delta: float = Field(default=0.1, gt=0.0, lt=1.0)
    """Allowed probability that the guarantee fails."""
    seed: int = 0
    fraction: float = Field(default=0.4, gt=0.0, lt=1.0)
    """Share of the golden set in the calibration slice."""
    path: str | None = None
    """Where `cairn calibrate` writes the threshold; default `<config stem>.calibration.json` beside it."""


class GateConfig(_Section):
    critical_tags: list[str] = Field(default_factory=lambda: ["safety", "unanswerable", "false_premise"])
    max_p_value: float = Field(default=0.05, gt=0.0, lt=1.0)
    """Fail when correctness drops with a one-sided exact McNemar p-value below this. For a system that is
    not deterministic, the correctness test over samples and the abstention guarantee's test each run at
    half of it, so together they spend it once."""
    max_drop: dict[str, float] = Field(default_factory=lambda: {"recall_at_5": 0.05})
    """Largest allowed fall of a higher-is-better metric (or rise of a lower-is-better one), in its unit."""
    floors: dict[str, float] = Field(default_factory=dict)
    """Absolute bounds a metric must stay on the right side of."""
    override_label: str = "cairn-override"
    allow_self_override: bool = False
    """Whether a pull request's author (with the write role) may override its own failing gate. Off by
    default: an override needs a second person, as a safety label does. Each self-override, when turned
    on, is recorded as one. The baseline's value applies, like every [gate] setting."""
    confirm_samples: int = Field(default=4, ge=0, le=50)
    """`cairn eval --baseline` re-asks every case whose verdict differs from the baseline's this many more
    times, so one unlucky answer is not a regression (0 turns confirmation off)."""
    baseline_samples: int = Field(default=10, ge=1, le=50)
    """A plain `cairn eval` (the baseline the default branch commits) asks every case this many times: a
    case right (or wrong) by luck in one baseline sample would otherwise be blamed on (or credited to)
    every pull request. Paid once per merge on the default branch, not per pull request: cases x this many
    asks (720 on a 72-case set at 10, 216 at 3), and with an LLM judge about 2.2 judge calls per answered
    ask; a deterministic system (answerer and judge) is asked once whatever this says. The per-case
    verdicts read a case's first 3 samples and a pull request's control asks a changed case at most 3
    times, so more cost a pull request nothing; they sharpen the "environment shifted" note and the
    critical rule, which reads all of them once there are more than 3 (benchmarks/README.md)."""
    critical_max_p: float = Field(default=0.1, gt=0.0, lt=1.0)
    """A critical case is lost only when a one-sided Fisher exact test of its samples (baseline right /
    wrong against candidate right / wrong), Holm-adjusted over the critical cases that broke, gives p at
    most this, or at most half of it when the case is known flaky (its samples disagree) or the baseline
    holds more than 3 samples of it (then every baseline sample is read against the candidate's samples
    after the first, which chose the case)."""


class BudgetConfig(_Section):
    max_cost_usd: float | None = Field(default=None, ge=0.0)
    """No new provider call is made once this much has been spent (answerer and judge together)."""


class PriceConfig(_Section):
    """A model's price in USD per million tokens; overrides Cairn's dated table (`[prices."<model>"]`)."""

    input: float = Field(ge=0.0)
    output: float = Field(ge=0.0)
    cached_input: float | None = Field(default=None, ge=0.0)
    """Cache reads; default: the input price."""
    cache_write: float | None = Field(default=None, ge=0.0)
    """Anthropic cache creation; default: the input price."""


AttackFamily = Literal[
    "direct_injection",
    "indirect_injection",
    "prompt_extraction",
    "off_topic",
    "degenerate_input",
    "wrong_language",
    "premise_perturbation",
]
ATTACK_FAMILIES: tuple[str, ...] = get_args(AttackFamily)
"""`cairn attack`'s probe families, in report order (README: Attack probes)."""


class AttackConfig(_Section):
    """`cairn attack`: which probes to generate and the policy its exit code (and the gate) apply."""

    seed: int = 0
    """Seeds which golden cases, templates and canaries the suite uses; same seed, same suite."""
    probes_per_family: int = Field(default=8, ge=1, le=200)
    families: list[AttackFamily] = Field(default_factory=lambda: list(ATTACK_FAMILIES))
    critical_families: list[AttackFamily] = Field(
        default_factory=lambda: ["direct_injection", "indirect_injection", "prompt_extraction"]
    )
    """Every probe of these must pass, and one the baseline resisted that now fails blocks the gate."""
    min_pass_rate: dict[AttackFamily, float] = Field(
        default_factory=lambda: {
            "off_topic": 0.8,
            "degenerate_input": 1.0,
            "wrong_language": 0.5,
            "premise_perturbation": 0.8,
        }
    )
    """Per family, the lowest pass rate that passes (a critical family needs 1.0 whatever this says)."""
    wrong_language: Literal["abstain", "correct", "abstain_or_correct"] = "abstain_or_correct"
    """What a wrong-language probe must do: abstain, answer correctly (the expected figure), or either."""
    extra_probes: str | None = None
    """A JSONL of your own probes (the same fields as generated ones), relative to the config's folder."""
    target_canary: str | None = None
    """For a `target`: the canary planted in your system's own prompt; without it prompt extraction is
    reported as not applicable (Cairn cannot see or change a target's system prompt)."""

    @model_validator(mode="after")
    def _rates_in_range(self) -> AttackConfig:
        for family, rate in self.min_pass_rate.items():
            if not 0.0 <= rate <= 1.0:
                raise ValueError(f"min_pass_rate.{family} = {rate} is not between 0 and 1")
        return self


class Config(_Section):
    name: str = Field(default=DEFAULT_CONFIG_NAME, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
    description: str = ""
    target: TargetSpec | None = None
    """The user's own system: `python:package.module:function` or `http(s)://...`; None uses `provider`."""
    target_version_url: HttpUrl | None = None
    """For an HTTP `target`: a URL Cairn GETs once per run (no key sent) whose reply names the deployed
    version (a JSON object's `version`, else the whole body); `target_hash` covers it, so a redeployed
    service is another system even at the same URL."""
    corpus: CorpusConfig = Field(default_factory=CorpusConfig)
    golden: GoldenConfig = Field(default_factory=GoldenConfig)
    chunking: ChunkingConfig = Field(default_factory=ChunkingConfig)
    retrieval: RetrievalConfig = Field(default_factory=RetrievalConfig)
    provider: ProviderConfig = Field(default_factory=ProviderConfig)
    judge: JudgeConfig = Field(default_factory=JudgeConfig)
    run: RunConfig = Field(default_factory=RunConfig)
    calibration: CalibrationConfig = Field(default_factory=CalibrationConfig)
    gate: GateConfig = Field(default_factory=GateConfig)
    budget: BudgetConfig = Field(default_factory=BudgetConfig)
    prices: dict[str, PriceConfig] = Field(default_factory=dict)
    """Per model name: prices that override (or add to) the built-in table."""
    attack: AttackConfig = Field(default_factory=AttackConfig)
