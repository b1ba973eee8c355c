"""HaluEval through the real lm_eval CLI on the embedded SmolLM2 model (CPU, slow): the
halueval_qa and halueval_general tasks load the shared official-format files and report every metric."""

import json
import os
import subprocess
import sys

import pytest
from conftest import SHARED_DATA

from hallubench.backends.hf_local import embedded_model_args
from lm_eval_tasks import TASKS_DIR

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (SHARED_DATA / "halueval").is_dir(), reason="../shared/data/halueval is not present"),
]


def test_lm_eval_runs_halueval_on_the_local_model(tmp_path):
    """4 items per task through lm_eval: exit 0, and the results carry accuracy, both per-class accuracies and invalid_rate."""
    model_args = ",".join(f"{k}={v}" for k, v in embedded_model_args().items())
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    proc = subprocess.run(
        [sys.executable, "-m", "lm_eval", "--model", "hf", "--model_args", model_args, "--tasks", "halueval_qa,halueval_general",
         "--limit", "4", "--gen_kwargs", "max_gen_toks=8", "--apply_chat_template", "--include_path", str(TASKS_DIR),
         "--metadata", json.dumps({"halueval_data": str(SHARED_DATA / "halueval")}), "--output_path", str(tmp_path)],
        capture_output=True, text=True, env=env, timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads(next(tmp_path.rglob("results_*.json")).read_text())["results"]
    qa = results["halueval_qa"]
    for metric in ("accuracy", "accuracy_hallucinated", "accuracy_correct", "invalid_rate"):
        assert 0.0 <= qa[f"{metric},none"] <= 1.0
    assert 0.0 <= results["halueval_general"]["accuracy,none"] <= 1.0
