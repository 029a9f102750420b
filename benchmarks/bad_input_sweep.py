"""Bad input sweep: does every refusal name its file (and its line where there is one), with no traceback?

Generates malformed inputs from valid ones (a config, a golden set, a baseline report, a run artifact, an
annotator's labels for `golden agree`, a CSV for `golden import`, and command lines) and runs the real CLI
(in this process, `tests/unit/bad_input_kit.cli`) on each. Mutations:

- content: truncated at a random byte, a byte replaced by one that is not UTF-8, a NUL, a UTF-16 file, a
  UTF-8 BOM, an empty file, a 2 MB line, a value of the wrong type (each key of the config, each field of
  a JSONL line, random fields of the JSON report), a required field removed;
- the file itself: unreadable (mode 000, read as `nobody` when this runs as root), a folder in its
  place, a dangling symlink, a symlink loop, a parent that is a file;
- command lines: unknown flags, values of the wrong type, paths that do not exist.

For each input it counts the exit codes, the tracebacks (or an exit 70, Cairn's "internal error"), and
among the exit-2 messages those that do not name the file, and, for a content mutation of a file read
line by line (TOML, JSONL, CSV, and JSON syntax), those that do not name the line (`file:N`).

    .venv/bin/python benchmarks/bad_input_sweep.py [--seed 1] [--per-kind 12] [--show 3]

Exit 0 when every refusal names its file and line and nothing crashed, else 1. Not a test: it prints.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import stat
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
for extra in ("tests", "tests/unit", "tests/fakes"):
    sys.path.insert(0, str(REPO / extra))

from bad_input_kit import Ran, Workspace, as_unprivileged, cli  # noqa: E402

CONFIG_BODY = """\
description = "the sweep's config"

[chunking]
size = 800
overlap = 160

[retrieval]
mode = "bm25"
top_k = 5
depth = 10

[calibration]
alpha = 0.2
delta = 0.1
seed = 0
fraction = 0.4

[run]
max_concurrency = 1  # one order of records, so a seed is one set of inputs
"""
UNSEARCHABLE = "its folder not searchable"
WHOLE_FILE = ("no rows to import", "(the default: not set in the file)")
"""Refusals about the file as a whole, with no line to name."""
WRONG_VALUES = ('"text"', "7", "-1", "0", "1e999", "nan", "true", "[1, 2]", "{ a = 1 }", '""', "2026-01-01")
WRONG_JSON: list[Any] = ["text", 7, -1, 1e308, True, None, [1, 2], {"a": 1}, "", 2**70]


@dataclass
class Input:
    """One malformed input: which file it breaks, how, and the command that reads it."""

    kind: str
    """config, golden, report, artifact, labels, csv, argv"""
    mutation: str
    file: Path | None
    argv: list[str]
    line_expected: bool
    unprivileged: bool = False


@dataclass
class Outcome:
    item: Input
    ran: Ran

    @property
    def crashed(self) -> bool:
        return self.ran.code in (-1, 70) or "Traceback" in self.ran.err

    @property
    def message(self) -> str:
        """The refusal: the `error:` line and the lines under it up to the hint (`N problems in FILE:` then
        one `FILE:LINE: ...` each), or the `errors (N):` list `golden check` prints, else the last line."""
        for text, start in ((self.ran.err, "error: "), (self.ran.out, "errors (")):
            lines = text.splitlines()
            at = next((i for i, line in enumerate(lines) if line.startswith(start)), None)
            if at is not None:
                block = [lines[at]]
                for line in lines[at + 1 :]:
                    if line.startswith(("hint:", "next:", "failed:")) or not line.strip():
                        break
                    block.append(line.strip())
                return " | ".join(block)
        return (self.ran.err.strip().splitlines() or [""])[-1]

    @property
    def names_file(self) -> bool:
        file = self.item.file
        if file is None:
            return True
        if self.item.mutation == UNSEARCHABLE:  # the first file the command reads in that folder
            return f"{file.parent}/" in self.message
        return any(str(n) in self.message for n in (file, file.name))

    @property
    def names_line(self) -> bool:
        """`file:N` in the message, or a refusal about the whole file (nothing to import, a key not set)."""
        file = self.item.file
        if file is None or any(w in self.message for w in WHOLE_FILE):
            return True
        return re.search(re.escape(file.name) + r":\d+", self.message) is not None


# Content mutations --------------------------------------------------------------------------------------


def _at(rng: random.Random, data: bytes) -> int:
    return rng.randrange(1, max(2, len(data)))


def byte_mutations(data: bytes, rng: random.Random, n: int) -> Iterator[tuple[str, bytes]]:
    """Mutations of any text file, as (name, bytes)."""
    for _ in range(n):
        yield "truncated", data[: _at(rng, data)]
    for bad in (b"\xff", b"\xe9", b"\xc3"):
        for _ in range(max(1, n // 3)):
            i = _at(rng, data)
            yield f"not utf-8 {bad!r}", data[:i] + bad + data[i + 1 :]
    for _ in range(max(1, n // 3)):
        i = _at(rng, data)
        yield "a NUL", data[:i] + b"\0" + data[i:]
    yield "utf-16", data.decode("utf-8").encode("utf-16")
    yield "utf-8 BOM", b"\xef\xbb\xbf" + data
    yield "empty", b""
    yield "only whitespace", b"  \n\n\t\n"
    yield "a 2 MB line", data + b"\n" + b"x" * 2_000_000 + b"\n"


def toml_mutations(text: str, rng: random.Random) -> Iterator[tuple[str, bytes]]:
    """Each `key = value` line with a value of every wrong type; a table declared twice; a key twice."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        match = re.match(r"^(\w+) = ", line)
        if not match:
            continue
        for value in rng.sample(WRONG_VALUES, 4):
            edited = [*lines[:i], f"{match.group(1)} = {value}", *lines[i + 1 :]]
            yield f"{match.group(1)} = {value}", ("\n".join(edited) + "\n").encode()
    yield "a table twice", (text + "\n[retrieval]\ntop_k = 3\n").encode()
    yield "unknown key", (text + "\n[retrieval.extra]\nx = 1\n").encode()
    yield "a key twice", text.replace("top_k = 5", "top_k = 5\ntop_k = 6").encode()


def jsonl_mutations(text: str, rng: random.Random, n: int) -> Iterator[tuple[str, bytes]]:
    """A line's field of the wrong type or missing, a line that is not an object, a line cut short."""
    lines = text.splitlines()
    for _ in range(n):
        i = rng.randrange(len(lines))
        row = json.loads(lines[i])
        if not isinstance(row, dict) or not row:
            continue
        key = rng.choice(sorted(row))
        value = rng.choice(WRONG_JSON)
        yield f"line {i + 1}: {key} = {value!r}"[:60], _joined(lines, i, json.dumps({**row, key: value}))
        rest = {k: v for k, v in row.items() if k != key}
        yield f"line {i + 1}: no {key}", _joined(lines, i, json.dumps(rest))
    i = rng.randrange(len(lines))
    yield f"line {i + 1}: an array", _joined(lines, i, "[1, 2]")
    yield f"line {i + 1}: cut short", _joined(lines, i, lines[i][: len(lines[i]) // 2])
    yield f"line {i + 1}: NaN", _joined(lines, i, lines[i].replace(":", ': NaN, "x":', 1))


def _joined(lines: list[str], i: int, replacement: str) -> bytes:
    return ("\n".join([*lines[:i], replacement, *lines[i + 1 :]]) + "\n").encode()


def json_mutations(data: dict[str, Any], rng: random.Random, n: int) -> Iterator[tuple[str, bytes]]:
    """A random leaf (or object) of the report replaced by a value of another type, or removed."""
    paths = list(_paths(data))
    for _ in range(n):
        path = rng.choice(paths)
        value = rng.choice(WRONG_JSON)
        yield f"{'.'.join(map(str, path))} = {value!r}"[:60], _dumped(_set(data, path, value))
        yield f"no {'.'.join(map(str, path))}"[:60], _dumped(_set(data, path, _REMOVE))


_REMOVE = object()


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if prefix:
        yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value[:3]):
            yield from _paths(item, (*prefix, index))


def _set(data: Any, path: tuple[Any, ...], value: Any) -> Any:
    copy = json.loads(json.dumps(data))
    node = copy
    for key in path[:-1]:
        node = node[key]
    if value is _REMOVE:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return copy


def _dumped(data: Any) -> bytes:
    return json.dumps(data, indent=2).encode()


# File mutations -----------------------------------------------------------------------------------------


def _unreadable(path: Path) -> None:
    path.chmod(0)


def _folder(path: Path) -> None:
    path.unlink()
    path.mkdir()


def _dangling(path: Path) -> None:
    path.unlink()
    path.symlink_to(path.with_name("nowhere"))


def _loop(path: Path) -> None:
    path.unlink()
    path.symlink_to(path.name)


def _unsearchable(path: Path) -> None:
    path.parent.chmod(stat.S_IRUSR | stat.S_IWUSR | stat.S_IRGRP | stat.S_IROTH)


FILE_MUTATIONS: list[tuple[str, Callable[[Path], None], bool]] = [
    ("unreadable (mode 000)", _unreadable, True),
    ("a folder in its place", _folder, False),
    ("a dangling symlink", _dangling, False),
    ("a symlink loop", _loop, False),
    (UNSEARCHABLE, _unsearchable, True),
]
"""(name, apply to the file, read as nobody): the file replaced by something that cannot be read as one."""


# The sweep ----------------------------------------------------------------------------------------------


class Sweep:
    def __init__(self, root: Path, rng: random.Random, per_kind: int) -> None:
        self.root = root
        self.rng = rng
        self.per_kind = per_kind
        self.count = 0
        self.template = root / "template"
        ws = Workspace(self.template)
        ws.write_config(CONFIG_BODY, name="tiny")
        artifact = self.template / "run.jsonl"
        ran = cli(ws.eval_args("--run-only", "--artifact", str(artifact)), ws.root)
        assert ran.code == 0, ran.err
        shutil.copy(ws.golden, self.template / "labels.jsonl")
        rows = [json.loads(line) for line in ws.golden.read_text(encoding="utf-8").splitlines()]
        (self.template / "values.csv").write_text(
            "question,answer,doc,quote\n"
            + "".join(f'"{r["question"]}","x","returns.md","x"\n' for r in rows[:4] if "question" in r),
            encoding="utf-8",
        )

    def fresh(self) -> Path:
        """A copy of the template, readable by `nobody` (the permission mutations read as nobody)."""
        self.count += 1
        folder = self.root / f"in-{self.count}"
        shutil.copytree(self.template, folder, symlinks=True)
        for path in [folder, *folder.rglob("*")]:
            if not path.is_symlink():
                path.chmod(0o777 if path.is_dir() else 0o666)
        return folder

    def commands(self, folder: Path) -> dict[str, tuple[Path, list[str]]]:
        """Per kind: the file it breaks and the command that reads it."""
        config = folder / "cairn.toml"
        eval_args = ["eval", "--config", str(config), "--no-progress", "--split", "all", "--run-only"]
        return {
            "config": (config, ["golden", "check", "--config", str(config)]),
            "config (eval)": (config, [*eval_args, "--artifact", str(folder / "out.jsonl")]),
            "golden": (folder / "golden" / "golden.jsonl", ["golden", "check", "--config", str(config)]),
            "report": (
                folder / "baseline.json",
                ["gate", str(folder / "baseline.json"), str(folder / "candidate.json")],
            ),
            "artifact": (
                folder / "run.jsonl",
                [
                    "score",
                    "--config",
                    str(config),
                    "--split",
                    "all",
                    "--reports",
                    str(folder / "r"),
                    str(folder / "run.jsonl"),
                ],
            ),
            "labels": (
                folder / "labels.jsonl",
                ["golden", "agree", str(folder / "golden"), str(folder / "labels.jsonl")],
            ),
            "csv": (
                folder / "values.csv",
                [
                    "golden",
                    "import",
                    "--format",
                    "values",
                    "--out",
                    str(folder / "new.jsonl"),
                    "--config",
                    str(config),
                    str(folder / "values.csv"),
                ],
            ),
        }

    def inputs(self) -> Iterator[tuple[Input, Callable[[Path], None]]]:
        """Every input, with what to do to a fresh copy to make it."""
        n = self.per_kind
        names = list(self.commands(self.template))
        for kind in names:
            path, _ = self.commands(self.template)[kind]
            data = path.read_bytes()
            text = data.decode("utf-8")
            content: list[tuple[str, bytes, bool]] = [
                (m, b, True) for m, b in byte_mutations(data, self.rng, n)
            ]
            if kind.startswith("config"):
                content += [(m, b, True) for m, b in toml_mutations(text, self.rng)]
            elif kind in ("golden", "artifact", "labels"):
                content += [(m, b, True) for m, b in jsonl_mutations(text, self.rng, n)]
            elif kind == "report":
                content += [(m, b, False) for m, b in json_mutations(json.loads(text), self.rng, n)]
            for mutation, new, line in content:
                rel = path.relative_to(self.template)
                # A whole-file change (empty, another encoding) has no line to name.
                # A whole-file change (empty, another encoding) has no line to name; nor has a config
                # refused for its size (a 2 MB line in a JSONL file is that line's problem).
                whole = ("empty", "only whitespace", "utf-16", "utf-8 BOM")
                line = line and mutation not in whole and (mutation, kind[:6]) != ("a 2 MB line", "config")
                yield (
                    Input(kind, mutation, rel, [], line),
                    lambda folder, rel=rel, new=new: (folder / rel).write_bytes(new),
                )
            for mutation, apply, nobody in FILE_MUTATIONS:
                rel = path.relative_to(self.template)
                yield (
                    Input(kind, mutation, rel, [], False, unprivileged=nobody),
                    lambda folder, rel=rel, apply=apply: apply(folder / rel),
                )

    def run(self) -> list[Outcome]:
        outcomes = []
        for item, make in self.inputs():
            folder = self.fresh()
            make(folder)
            file, argv = self.commands(folder)[item.kind]
            item.file, item.argv = file, argv
            outcomes.append(Outcome(item, _run(argv, self.root, unprivileged=item.unprivileged)))
        for argv, flag in self.argv_inputs():
            folder = self.fresh()
            argv = [a.replace("{ws}", str(folder)) for a in argv]
            flag = flag.replace("{ws}", str(folder))
            item = Input("argv", " ".join(argv[:4])[:60], None, argv, False)
            ran = _run(argv, self.root, unprivileged=False)
            outcomes.append(Outcome(item, ran))
            if ran.code == 2 and flag and flag not in ran.err:
                ran.err += f"\n(sweep: the message does not name {flag})"
        return outcomes

    def argv_inputs(self) -> Iterator[tuple[list[str], str]]:
        config = "{ws}/cairn.toml"
        yield ["eval", "--bogus"], "--bogus"
        yield ["eval", "--config", "{ws}/missing.toml"], "missing.toml"
        yield ["eval", "--config", config, "--split", "most"], "--split"
        yield ["eval", "--config", config, "--shard", "x/y"], "--shard"
        yield ["eval", "--config", config, "--shard", "3/2"], "--shard"
        yield ["eval", "--config", config, "--corpus", "{ws}/nowhere"], "nowhere"
        yield ["eval", "--config", config, "--golden", "{ws}/nowhere.jsonl"], "nowhere.jsonl"
        yield ["eval", "--config", "{ws}"], "{ws}"
        yield ["gate", "{ws}/baseline.json"], "candidate"
        yield ["gate", "{ws}/baseline.json", "{ws}/nothing.json"], "nothing.json"
        yield ["score", "--config", config, "{ws}/none.jsonl"], "none.jsonl"
        yield ["golden", "quote", "--config", config], ""
        yield ["bench", "--reports", "{ws}/nowhere"], "nowhere"
        yield ["view", "{ws}/nothing.json"], "nothing.json"
        yield ["show", "{ws}/nothing.json"], "nothing.json"
        yield ["corpus", "generate", "--seed", "x"], "--seed"
        yield ["calibrate", "--config", "{ws}/cairn.toml\0"], ""
        yield ["golden", "agree", "{ws}/golden", "{ws}/nowhere.jsonl"], "nowhere.jsonl"


def _run(argv: list[str], cwd: Path, *, unprivileged: bool) -> Ran:
    if unprivileged and os.geteuid() == 0:
        code, out, err = as_unprivileged(lambda: _plain(cli(argv, cwd)))
        return Ran(code=code, out=out, err=err)
    return cli(argv, cwd)


def _plain(ran: Ran) -> list[Any]:
    return [ran.code, ran.out, ran.err]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--per-kind", type=int, default=12, help="random mutations of each sort per file")
    parser.add_argument("--show", type=int, default=3, help="examples of each problem to print")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="cairn-sweep-"))
    root.chmod(0o755)
    try:
        outcomes = Sweep(root, random.Random(args.seed), args.per_kind).run()
    finally:
        for path in [root, *root.rglob("*")]:
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o755)
        shutil.rmtree(root, ignore_errors=True)
    return report(outcomes, args.show)


def report(outcomes: list[Outcome], show: int) -> int:
    codes: Counter[int] = Counter(o.ran.code for o in outcomes)
    refused = [o for o in outcomes if o.ran.code == 2]
    problems: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        if o.crashed:
            problems["traceback or exit 70"].append(o)
        if o.ran.code == 2 and not o.names_file:
            problems["exit 2, file not named"].append(o)
        if o.ran.code == 2 and o.item.line_expected and o.names_file and not o.names_line:
            problems["exit 2, line not named"].append(o)
        if o.item.kind == "argv" and "(sweep: the message does not name" in o.ran.err:
            problems["exit 2, argument not named"].append(o)
    print(f"inputs: {len(outcomes)}")
    print("exit codes: " + ", ".join(f"{c}: {n}" for c, n in sorted(codes.items())))
    print(f"exit 2: {len(refused)}, of which line-located: {sum(o.item.line_expected for o in refused)}")
    accepted = Counter(f"{o.item.kind}: {o.item.mutation}" for o in outcomes if o.ran.code in (0, 1))
    print(f"accepted (exit 0 or 1), by input: {dict(sorted(accepted.items())) if show else len(accepted)}")
    by_kind = Counter(o.item.kind for o in outcomes)
    print("inputs by kind: " + ", ".join(f"{k} {n}" for k, n in sorted(by_kind.items())))
    for name in (
        "traceback or exit 70",
        "exit 2, file not named",
        "exit 2, line not named",
        "exit 2, argument not named",
    ):
        found = problems.get(name, [])
        print(f"{name}: {len(found)}")
        for o in found[:show] if show else []:
            print(f"  [{o.item.kind}: {o.item.mutation}] exit {o.ran.code}: {o.message[:200]}")
    return 1 if any(problems.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
