# The Cairn GitHub Action: a thin image around the package, built by scripts/build-image and published by
# the release workflow; action.yml runs it by reference.
# No USER (docker actions must run as root: docs "Dockerfile support for GitHub Actions"), no WORKDIR
# (the runner mounts the checkout and sets the working directory itself).
FROM python:3.11-slim

# git: the fallback for reading the base commit's baseline when the API cannot answer.
RUN apt-get update \
    && apt-get install -y --no-install-recommends git=1:2.39.* \
    && rm -rf /var/lib/apt/lists/*

# The evaluation runs the pull request's code (a python: target) as this unprivileged user, never as
# root: another uid cannot read the action's /proc/*/environ (the token, ACTIONS_RUNTIME_TOKEN) nor write
# the runner's file commands. Not uid 1001, which is the runner's own user on GitHub-hosted runners.
RUN useradd --system --uid 10001 --user-group --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin cairn-eval

# The package lives in /opt/cairn, away from the mounted workspace, installed non-editable.
# cairn.toml, its calibration and the example workflows go into the wheel (pyproject.toml's force-include):
# the embedded default is that experiment, calibrated, and `cairn init` writes those workflows.
COPY pyproject.toml README.md cairn.toml cairn.calibration.json /opt/cairn/src/
COPY golden /opt/cairn/src/golden
COPY examples/workflows /opt/cairn/src/examples/workflows
COPY cairn_action /opt/cairn/src/cairn_action
# Optional extras, comma-separated (`documents`: HTML, PDF, reStructuredText; `dense`: dense and hybrid
# retrieval). The release builds the published image with scripts/build-image, which sets this; so does
# scripts/docker-smoke, so the smoke test runs the image the release publishes.
ARG EXTRAS=""
RUN pip install --no-cache-dir "/opt/cairn/src${EXTRAS:+[$EXTRAS]}" \
    && rm -rf /opt/cairn/src

# The container's working directory is the pull request's checkout. `python -m` would put it first on
# sys.path, so a pull request adding its own cairn_action/ or sitecustomize.py could replace the gate:
# -I (isolated: -P -E -s) and PYTHONSAFEPATH keep the workspace off the import path.
ENV PYTHONSAFEPATH=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
ENTRYPOINT ["python", "-I", "-m", "cairn_action", "action"]
