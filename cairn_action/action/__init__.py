"""The GitHub Action, the application: `entry` (what the container runs), the runtime every mode is handed,
one module per mode (`pr`, `refresh` for the baseline, `comment` for the fork stage, `artifact_run` for
`mode: gate`, `release`, `attack`) and what they share (verdict, override, exam files, handoff, control,
trust, judging). `child/` runs the evaluation in a sandboxed child process. GitHub itself is reached only
through the adapter in `gh/`.
"""
