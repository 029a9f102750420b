"""A run of the embedded default whose answerer is slow and logs each call: the kill test's victim.

Usage: python killable_run.py WORKDIR ARTIFACT CACHE_DIR CALLS_LOG DELAY_S
Run as a real subprocess by test_eval_run.py, which SIGKILLs it part-way.
"""

from __future__ import annotations

import io
import os
import sys
import time
from pathlib import Path

from cairn_action.commands.compose import run_evaluation
from cairn_action.config import load_config
from cairn_action.providers.base import AnswerRequest, AnswerResult
from cairn_action.providers.stub import StubAnswerer
from cairn_action.run.evaluation import RunOptions
from cairn_action.run.progress import NoProgress


class SlowLoggingAnswerer:
    """The stub, `delay` seconds slower, appending each finished call's case id to a log (fsynced)."""

    def __init__(self, log_path: Path, delay: float) -> None:
        self.inner = StubAnswerer()
        self.deterministic = True  # the stub, slowed down: resumed by the stub itself
        self.name = self.inner.name
        self.model = self.inner.model
        self.log_path = log_path
        self.delay = delay

    def request_key(self, request: AnswerRequest) -> str:
        return self.inner.request_key(request)

    def answer(self, request: AnswerRequest) -> AnswerResult:
        time.sleep(self.delay)
        result = self.inner.answer(request)
        with self.log_path.open("a", encoding="utf-8") as log:
            log.write(request.case_id + "\n")
            log.flush()
            os.fsync(log.fileno())
        return result


def main(argv: list[str]) -> int:
    workdir, artifact, cache, calls_log, delay = argv
    loaded = load_config(None, cwd=Path(workdir))
    run = loaded.config.run.model_copy(update={"cache_dir": cache})
    loaded = loaded.model_copy(update={"config": loaded.config.model_copy(update={"run": run})})
    run_evaluation(
        loaded,
        RunOptions(artifact=Path(artifact)),
        cwd=Path(workdir),
        log=io.StringIO(),
        progress=NoProgress(),
        answerer=SlowLoggingAnswerer(Path(calls_log), float(delay)),
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
