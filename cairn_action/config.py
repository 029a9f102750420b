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
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from cairn_action.errors import ConfigError

DEFAULT_CONFIG_FILE = "cairn.toml"
DEFAULT_CONFIG_NAME = "default"
SAMPLE_CORPUS_DIR = "data/sample"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CorpusConfig(_Section):
    path: str = SAMPLE_CORPUS_DIR
    """Folder of documents, relative to the config file's folder (or absolute)."""


class GoldenConfig(_Section):
    path: str = "golden/golden.jsonl"
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
    fusion: Literal["rrf"] = "rrf"
    """How `hybrid` combines BM25 and dense: reciprocal rank fusion."""
    rrf_k: int = Field(default=60, ge=1, le=1000)
    """RRF's k: a chunk at rank r of a ranking adds 1 / (k + r)."""
    candidates: int = Field(default=100, ge=10, le=10000)
    """Chunks each of BM25 and dense ranks before `hybrid` fuses them."""
    model_path: str | None = None
    """A folder with model.onnx and tokenizer.json; default: all-MiniLM-L6-v2 (int8) from the extra."""
    rewrite: Literal["none", "llm"] = "none"
    """`llm`: the provider rewrites the question into the corpus's words before retrieval."""
    rerank: Literal["none", "llm"] = "none"
    """`llm`: the provider re-orders the top `depth` chunks."""


class ProviderConfig(_Section):
    name: str = "stub"
    model: str = "stub-extractive-v1"
    base_url: str | None = None
    api_key_env: str | None = None
    """Name of the environment variable holding the API key; the key itself never goes in a file."""
    temperature: float = 0.0
    max_tokens: int = 512
    timeout_s: float = 60.0
    max_retries: int = Field(default=4, ge=0, le=20)
    requests_per_minute: int | None = Field(default=None, ge=1)


class JudgeConfig(_Section):
    name: str = "lexical"
    """`lexical` (deterministic, the default) or `llm` (a model grades answers under a versioned rubric)."""
    model: str | None = None
    """The LLM judge's model; default: [provider] model when the judge uses the answering provider."""
    provider: str | None = None
    """The LLM judge's API (`openai` or `anthropic`); default: [provider] name, base_url and api_key_env."""
    base_url: str | None = None
    api_key_env: str | None = None
    """Name of the environment variable holding the judge's API key (never the key itself)."""
    f1_threshold: float = Field(default=0.5, ge=0.0, le=1.0)
    """Lexical judge: an answer is correct when it contains the expected answer or reaches this token F1."""


class RunConfig(_Section):
    max_concurrency: int = Field(default=4, ge=1, le=256)
    cache_dir: str = ".cairn/cache"


class CalibrationConfig(_Section):
    alpha: float = Field(default=0.2, gt=0.0, lt=1.0)
    """Target error rate among answered cases.

    0.2 by default because a golden set of ~100 cases leaves ~40 to calibrate on, and certifying 0.1 at
    delta 0.1 needs at least 22 confident calibration answers with no error at all (metrics.md §3.5);
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


class Config(_Section):
    name: str = Field(default=DEFAULT_CONFIG_NAME, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
    description: str = ""
    target: str | None = None
    """The user's own system: `python:package.module:function` or `http(s)://...`; None uses `provider`."""
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


class LoadedConfig(BaseModel):
    """A config with where it came from; paths in it resolve against `base_dir`."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    config: Config
    source: Path | None
    """The TOML file, or None for the embedded default."""
    base_dir: Path
    embedded: bool = False

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
        if corpus is not None:
            update["corpus"] = self.config.corpus.model_copy(update={"path": str(cwd / corpus)})
        if golden is not None:
            update["golden"] = self.config.golden.model_copy(update={"path": str(cwd / golden)})
        return self.model_copy(update={"config": self.config.model_copy(update=update)})

    @property
    def corpus_dir(self) -> Path:
        return self.resolve(self.config.corpus.path)

    @property
    def golden_path(self) -> Path:
        return self.resolve(self.config.golden.path)

    @property
    def cache_dir(self) -> Path:
        return self.resolve(self.config.run.cache_dir)

    @property
    def calibration_path(self) -> Path:
        if self.config.calibration.path:
            return self.resolve(self.config.calibration.path)
        stem = self.source.stem if self.source else self.config.name
        return self.base_dir / f"{stem}.calibration.json"


# Fields that say where things are or how to reach and pace the provider, not what is measured: two
# machines (a laptop with another key variable, CI with a lower rate limit) must agree on the hash.
_UNHASHED: dict[str, Any] = {
    "description": True,
    "corpus": {"path"},
    "golden": {"path"},
    "run": True,
    "retrieval": {"model_path"},
    "calibration": {"path"},
    "provider": {"api_key_env", "timeout_s", "max_retries", "requests_per_minute"},
    "judge": {"api_key_env"},
}


_RETRIEVAL_DEFAULTS = {
    key: RetrievalConfig.model_fields[key].default
    for key in ("fusion", "rrf_k", "candidates", "rewrite", "rerank")
}


def prune_retrieval_defaults(data: dict[str, Any]) -> None:
    """Drop the retrieval keys added after hashes were pinned while they hold their defaults, so configs
    written before them keep their `config_hash` (and calibrations their system hash)."""
    retrieval = data.get("retrieval", {})
    for key, default in _RETRIEVAL_DEFAULTS.items():
        if key in retrieval and retrieval[key] == default:
            del retrieval[key]


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


_TABLE_HEADER = re.compile(r"^\[\s*([^\[\]]+?)\s*\]")
_KEY_LINE = re.compile(r"^([A-Za-z0-9_.\"' -]+?)\s*=")


def _dotted(text: str) -> tuple[str, ...]:
    return tuple(part.strip().strip("\"'") for part in text.split("."))


def _line_of(text: str, loc: tuple[str, ...]) -> int | None:
    """Best-effort line of the key at `loc` in a TOML text (tables and dotted keys; not inline tables)."""
    table: tuple[str, ...] = ()
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        header = _TABLE_HEADER.match(line)
        if header:
            table = _dotted(header.group(1))
            if table == loc:
                return number
            continue
        key = _KEY_LINE.match(line)
        if key and (table + _dotted(key.group(1)))[: len(loc)] == loc:
            return number
    return None


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
            problems.append((line, f"'{where}': {err['msg']}"))
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
        if not candidate.is_file():
            return embedded_default(cwd)
        path = candidate
    if not path.is_file():
        raise ConfigError(f"{path}: config file not found", "pass --config FILE, or omit it for the default")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not valid UTF-8 (byte {exc.start})", "save the file as UTF-8") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        at = re.search(r"\(at line (\d+), column \d+\)$", str(exc))
        where = f"{path}:{at.group(1)}" if at else str(path)
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


def embedded_default(cwd: Path) -> LoadedConfig:
    """The config named `default`: the seed-7 sample corpus in data/sample and the shipped golden set."""
    config = Config(
        name=DEFAULT_CONFIG_NAME,
        corpus=CorpusConfig(path=SAMPLE_CORPUS_DIR),
        golden=GoldenConfig(path=str(embedded_golden_path())),
    )
    return LoadedConfig(config=config, source=None, base_dir=cwd.resolve(), embedded=True)
