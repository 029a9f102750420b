"""Reading a config: a TOML file (or the embedded default) into a `LoadedConfig`, with every problem
named at its `file:line`.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from cairn_action.config.models import (
    DEFAULT_CONFIG_FILE,
    DEFAULT_CONFIG_NAME,
    SAMPLE_CORPUS_DIR,
    Config,
)
from cairn_action.errors import CairnError, ConfigError
from cairn_action.files import LIMIT_CONFIG, LIMIT_GOLDEN, exists, is_file, not_found, read_bytes, read_text

_PACKAGE = Path(__file__).resolve().parents[1]
"""cairn_action/, where the wheel carries the shipped golden set and default config."""


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
    package = _PACKAGE
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
        return (
            path.is_file()
            and shipped.is_file()
            and read_bytes(path, what="a golden set", limit=LIMIT_GOLDEN)
            == read_bytes(shipped, what="the shipped golden set", limit=LIMIT_GOLDEN)
        )
    except (CairnError, OSError):
        return False


def _shipped_file(name: str) -> Path | None:
    """`cairn.toml` or its calibration as shipped: inside the installed wheel, or at the checkout's root."""
    package = _PACKAGE
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
        text = read_text(shipped, what="the shipped config", limit=LIMIT_CONFIG)
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
