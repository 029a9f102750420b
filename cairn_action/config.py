"""The experiment configuration: a TOML file with a name, validated by pydantic.

Several configs can live side by side (`cairn.toml`, `configs/*.toml`); the leaderboard ranks them by
name. `config_hash` identifies what was measured: it leaves out paths and run mechanics (cache folder,
concurrency), so two machines with different checkouts agree on it.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal, get_args
from urllib.parse import urlsplit, urlunsplit

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from cairn_action.errors import CairnError, ConfigError
from cairn_action.files import LIMIT_CONFIG, exists, is_file, not_found, read_text

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
    """Fail when correctness drops with a one-sided exact McNemar p-value below this."""
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
    baseline_samples: int = Field(default=3, ge=1, le=50)
    """A plain `cairn eval` (the baseline the default branch commits) asks every case this many times: a
    case right (or wrong) by luck in one baseline sample would otherwise be blamed on (or credited to)
    every pull request. Paid once per merge on the default branch, not per pull request."""
    critical_max_p: float = Field(default=0.1, gt=0.0, lt=1.0)
    """A critical case is lost only when a one-sided Fisher exact test of its samples (baseline right /
    wrong against candidate right / wrong) gives p at most this (metrics in README, "The gate")."""


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


class LoadedConfig(BaseModel):
    """A config with where it came from; paths in it resolve against `base_dir`."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    config: Config
    source: Path | None
    """The TOML file, or None for the embedded default."""
    base_dir: Path
    embedded: bool = False
    shipped_calibration: Path | None = None
    """The embedded default's committed calibration, read when the folder has no calibration of its own."""
    overridden: frozenset[str] = frozenset()
    """The path keys (`corpus.path`, `golden.path`) that --corpus / --golden replaced."""

    def resolve(self, path: str) -> Path:
        p = Path(path)
        return p if p.is_absolute() else self.base_dir / p

    def with_overrides(
        self, *, corpus: Path | None = None, golden: Path | None = None, cwd: Path | None = None
    ) -> LoadedConfig:
        """This config with `--corpus` / `--golden` applied; they are relative to `cwd`, not the file.

        Paths are not part of `config_hash`, so the experiment keeps its identity.
        """
        cwd = (cwd or Path.cwd()).resolve()
        update: dict[str, BaseModel] = {}
        overridden = set(self.overridden)
        if corpus is not None:
            update["corpus"] = self.config.corpus.model_copy(update={"path": str(cwd / corpus)})
            overridden.add("corpus.path")
        if golden is not None:
            update["golden"] = self.config.golden.model_copy(update={"path": str(cwd / golden)})
            overridden.add("golden.path")
        return self.model_copy(
            update={"config": self.config.model_copy(update=update), "overridden": frozenset(overridden)}
        )

    def check_path(self, key: Literal["corpus.path", "golden.path"]) -> None:
        """Exit 2 at this config's `file:line` of `key` when the path it names is not there: a typo in the
        config, or the default path when the key is absent (an empty config), is the config's to name.
        A path from --corpus / --golden, the embedded default's, or one that exists but cannot be read (a
        loop, a permission) is left to its loader, which names that path."""
        path = self.corpus_dir if key == "corpus.path" else self.golden_path
        if self.source is None or key in self.overridden:
            return
        try:
            path.lstat()
            return
        except (FileNotFoundError, NotADirectoryError):
            pass
        except (OSError, ValueError):
            return
        what = "corpus folder" if key == "corpus.path" else "golden set"
        section, name = key.split(".")
        given = getattr(getattr(self.config, section), name)
        where = self.where((section, name))
        default = " (the default: not set in the file)" if where == str(self.source) else ""
        raise ConfigError(
            f"{where}: {key} = {given!r}{default}: {what} not found ({path})",
            f"set {key} in {self.source.name} (relative to its folder), or pass --{section}",
        )

    @property
    def corpus_dir(self) -> Path:
        return self.resolve(self.config.corpus.path)

    @property
    def golden_path(self) -> Path:
        return self.resolve(self.config.golden.path)

    @property
    def cache_dir(self) -> Path:
        return self.resolve(self.config.run.cache_dir)

    def where(self, loc: tuple[str, ...]) -> str:
        """`file:line` of the key at `loc` in the config file (its table's line when the key is absent),
        `file` when neither is found, and `the default config` for the embedded one."""
        if self.source is None:
            return "the default config"
        try:
            text = read_text(self.source, what="config", limit=LIMIT_CONFIG)
        except CairnError:
            return str(self.source)
        line = _line_of(text, loc)
        return f"{self.source}" if line is None else f"{self.source}:{line}"

    def located(self, exc: CairnError) -> CairnError:
        """`exc` with the config file and line in front when its message starts with a key of this config
        (`target: ...`, `provider.api_key_env ...`) and does not name the file yet."""
        match = re.match(r"^([a-z_]+(?:\.[a-z_]+)*)[: ]", exc.message)
        if match is None or (self.source is not None and exc.message.startswith(str(self.source))):
            return exc
        loc = tuple(match.group(1).split("."))
        if loc[0] not in Config.model_fields:
            return exc
        return type(exc)(f"{self.where(loc)}: {exc.message}", exc.hint, exit_code=exc.exit_code)

    @property
    def calibration_path(self) -> Path:
        """The calibration `cairn eval` applies: the config's own, else (embedded default) the shipped one."""
        own = self.calibration_out_path
        if self.shipped_calibration is not None and not self.config.calibration.path and not own.is_file():
            return self.shipped_calibration
        return own

    @property
    def calibration_out_path(self) -> Path:
        """Where `cairn calibrate` writes: beside the config (never over the shipped file)."""
        if self.config.calibration.path:
            return self.resolve(self.config.calibration.path)
        stem = self.source.stem if self.source else self.config.name
        return self.base_dir / f"{stem}.calibration.json"


# Fields that say where things are or how to reach and pace the provider, not what is measured: two
# machines (a laptop with another key variable, CI with a lower rate limit) must agree on the hash.
_UNHASHED: dict[str, Any] = {
    "description": True,
    "target_version_url": True,  # what it reports is in target_hash, the system's identity
    "corpus": {"path"},
    "golden": {"path"},
    "run": True,
    "retrieval": {"model_path"},
    "calibration": {"path"},
    "provider": {"api_key_env", "timeout_s", "max_retries", "requests_per_minute"},
    "judge": {"api_key_env", "min_kappa"},
    # How much evidence the gate asks for, not what is measured.
    "gate": {"confirm_samples", "baseline_samples", "critical_max_p", "allow_self_override"},
    # The attack policy does not change what `cairn eval` measures (the attack report records its own).
    "attack": True,
}


_RETRIEVAL_DEFAULTS = {
    key: RetrievalConfig.model_fields[key].default for key in ("rrf_k", "candidates", "rewrite", "rerank")
}
_DENSE_ONLY = ("fusion", "bm25_weight", "sentence_weight")


def prune_retrieval_defaults(data: dict[str, Any]) -> None:
    """Drop the retrieval keys added after hashes were pinned while they hold their defaults, so configs
    written before them keep their `config_hash` (and calibrations their system hash)."""
    retrieval = data.get("retrieval", {})
    for key, default in _RETRIEVAL_DEFAULTS.items():
        if key in retrieval and retrieval[key] == default:
            del retrieval[key]
    # How dense scores are made and fused counts for dense and hybrid at every value: pruned at its
    # default, a default that moved (fusion was rrf, sentences were not embedded) would hash two
    # experiments alike. BM25 reads none of it.
    if retrieval.get("mode", "bm25") == "bm25":
        for key in _DENSE_ONLY:
            retrieval.pop(key, None)


def config_hash(config: Config, embedding_model: str | None = None) -> str:
    """16 hex digits identifying the experiment; paths and run mechanics excluded.

    `embedding_model` (`<id> sha256:<file hash>`, dense and hybrid runs) counts too: the same config with
    another model file measures something else."""
    data = config.model_dump(mode="json", exclude=_UNHASHED)
    prune_retrieval_defaults(data)
    if embedding_model is not None:
        data["retrieval"]["embedding_model"] = embedding_model
    # Keys added after the default hash was pinned count only once set, so existing configs keep theirs.
    for key in ("provider", "base_url"):
        if data["judge"][key] is None:
            del data["judge"][key]
    if not data["prices"]:
        del data["prices"]
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def _public(value: object) -> object:
    """A URL without its user, password, query or fragment (a token may hide there); anything else as is."""
    if isinstance(value, str) and re.match(r"(?i)https?://", value):
        parts = urlsplit(value)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
        return urlunsplit((parts.scheme, host + port, parts.path, "", ""))
    return value


def _flatten(data: dict[str, Any], prefix: str = "") -> dict[str, object]:
    flat: dict[str, object] = {}
    for key, value in data.items():
        if isinstance(value, dict):  # an empty table (no prices, no floors) adds no key
            flat.update(_flatten(value, f"{prefix}{key}."))
        else:
            public = [_public(v) for v in value] if isinstance(value, list) else _public(value)
            flat[f"{prefix}{key}"] = public
    return flat


def experiment_settings(config: Config, embedding_model: str | None = None) -> dict[str, object]:
    """What `config_hash` identifies, as dotted keys (`chunking.size`: 800), with URLs stripped of
    credentials and queries: a report records it, so a comparison can say which settings changed."""
    data = config.model_dump(mode="json", exclude=_UNHASHED)
    if embedding_model is not None:
        data["retrieval"]["embedding_model"] = embedding_model
    return dict(sorted(_flatten(data).items()))


_TABLE_HEADER = re.compile(r"^\[\s*([^\[\]]+?)\s*\]")
_KEY_LINE = re.compile(r"^([A-Za-z0-9_.\"' -]+?)\s*=")


def _dotted(text: str) -> tuple[str, ...]:
    return tuple(part.strip().strip("\"'") for part in text.split("."))


def _line_of(text: str, loc: tuple[str, ...]) -> int | None:
    """Best-effort line of the key at `loc` in a TOML text (tables and dotted keys; not inline tables).

    A key that is absent (a missing field) falls back to the line of the longest part of `loc` that is
    there: `prices."m".output` missing points at `[prices."m"]`.
    """
    best: tuple[int, int] | None = None  # (matched parts, line)
    table: tuple[str, ...] = ()
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        header = _TABLE_HEADER.match(line)
        if header:
            table = _dotted(header.group(1))
            found = table
        else:
            key = _KEY_LINE.match(line)
            if not key:
                continue
            found = table + _dotted(key.group(1))
        if found[: len(loc)] == loc:
            return number
        shared = 0
        while shared < min(len(found), len(loc)) and found[shared] == loc[shared]:
            shared += 1
        if shared == len(found) and shared and (best is None or shared > best[0]):
            best = (shared, number)
    return None if best is None else best[1]


def _known_keys(loc: tuple[str, ...]) -> list[str]:
    """The keys allowed beside the last part of `loc`, for a did-you-mean hint."""
    model: type[BaseModel] = Config
    for part in loc[:-1]:
        field = model.model_fields.get(part)
        annotation = field.annotation if field is not None else None
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return []
        model = annotation
    return list(model.model_fields)


def _problems(text: str, exc: ValidationError) -> tuple[list[tuple[int | None, str]], list[str]]:
    problems: list[tuple[int | None, str]] = []
    suggestions: list[str] = []
    for err in exc.errors():
        loc = tuple(str(p) for p in err["loc"])
        where = ".".join(loc) or "(top level)"
        line = _line_of(text, loc) if loc else None
        if err["type"] == "extra_forbidden":
            problems.append((line, f"unknown key '{where}'"))
            close = difflib.get_close_matches(loc[-1], _known_keys(loc), n=1)
            if close:
                suggestions.append(f"did you mean '{'.'.join((*loc[:-1], close[0]))}' for '{where}'?")
        else:
            problems.append((line, f"'{where}': {err['msg'].removeprefix('Value error, ')}"))
    return problems, suggestions


def parse_config(data: dict, source: Path, text: str = "") -> Config:
    """Validate parsed TOML; `text` (the file's content) lets a message point at the offending line."""
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        problems, suggestions = _problems(text, exc)
        lines = [f"{source}{'' if line is None else f':{line}'}: {what}" for line, what in problems]
        message = lines[0] if len(lines) == 1 else "\n".join([f"{len(lines)} problems in {source}:", *lines])
        hint = "; ".join(
            [*suggestions, "see the README's configuration section for the keys each section takes"]
        )
        raise ConfigError(message, hint) from None


def load_config(path: Path | None, *, cwd: Path | None = None) -> LoadedConfig:
    """Load `path`, or `cairn.toml` in `cwd` if present, or the embedded default.

    An explicit path that does not exist is an error; a missing default file means the embedded
    default (the seed-7 sample corpus and the shipped golden set).
    """
    cwd = cwd or Path.cwd()
    if path is None:
        candidate = cwd / DEFAULT_CONFIG_FILE
        if not is_file(candidate):
            return embedded_default(cwd)
        path = candidate
    if not exists(path):
        raise ConfigError(
            f"{path}: config file {not_found(path)}", "pass --config FILE, or omit it for the default"
        )
    try:
        text = read_text(path, what="config", limit=LIMIT_CONFIG, bom=False)
    except CairnError as exc:
        raise ConfigError(exc.message, exc.hint or "pass --config FILE: a readable TOML file") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        at = re.search(r"\(at line (\d+), column \d+\)$", str(exc)) or re.search(
            r"\(at end of document\)$", str(exc)
        )
        # A file cut short ends inside a value or a table header: its last line is where to look.
        line = (at.group(1) if at.groups() else str(max(1, len(text.splitlines())))) if at else None
        where = f"{path}:{line}" if line else str(path)
        reason = str(exc)[: at.start()].rstrip() if at else str(exc)
        raise ConfigError(f"{where}: invalid TOML: {reason}", "check the file's syntax") from None
    config = parse_config(data, path, text)
    return LoadedConfig(config=config, source=path, base_dir=path.parent.resolve())


def embedded_golden_path() -> Path:
    """The shipped golden set: inside the installed wheel, or at the repository root in a checkout.

    When neither exists the checkout location is returned and loading it reports the missing file;
    not raising here keeps `--golden` usable without a `cairn.toml` in such an installation.
    """
    package = Path(__file__).resolve().parent
    candidates = (package / "_embedded_golden", package.parent / "golden")
    for candidate in candidates:
        if (candidate / "golden.jsonl").is_file():
            return candidate / "golden.jsonl"
    return candidates[-1] / "golden.jsonl"


def is_shipped_golden(path: Path) -> bool:
    """Whether `path` is the shipped golden set, the one labelled against the sample corpus: the embedded
    file itself, or a copy of it (a checkout's golden/ seen from a non-editable installation)."""
    shipped = embedded_golden_path()
    if path.resolve() == shipped.resolve():
        return True
    try:
        return path.is_file() and shipped.is_file() and path.read_bytes() == shipped.read_bytes()
    except OSError:
        return False


def _shipped_file(name: str) -> Path | None:
    """`cairn.toml` or its calibration as shipped: inside the installed wheel, or at the checkout's root."""
    package = Path(__file__).resolve().parent
    for candidate in (package / "_embedded_default" / name, package.parent / name):
        if candidate.is_file():
            return candidate
    return None


def embedded_default(cwd: Path) -> LoadedConfig:
    """The config named `default` when there is no cairn.toml: the shipped cairn.toml's experiment and its
    committed calibration, over the seed-7 sample corpus in `cwd`/data/sample and the shipped golden set.

    One experiment wherever it runs: the wheel carries cairn.toml and cairn.calibration.json (see
    pyproject.toml), so a report made in an empty folder, in `cairn demo` and in this repository agree.
    """
    shipped = _shipped_file(DEFAULT_CONFIG_FILE)
    if shipped is None:  # an installation without the shipped files: the built-in defaults
        config = Config(name=DEFAULT_CONFIG_NAME)
    else:
        text = shipped.read_text(encoding="utf-8")
        config = parse_config(tomllib.loads(text), shipped, text)
    config = config.model_copy(
        update={
            "corpus": config.corpus.model_copy(update={"path": SAMPLE_CORPUS_DIR}),
            "golden": config.golden.model_copy(update={"path": str(embedded_golden_path())}),
        }
    )
    return LoadedConfig(
        config=config,
        source=None,
        base_dir=cwd.resolve(),
        embedded=True,
        shipped_calibration=_shipped_file(f"{Path(DEFAULT_CONFIG_FILE).stem}.calibration.json"),
    )
