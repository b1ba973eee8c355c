"""HaluEval on the embedded SmolLM2 model (CPU, slow): the real lm_eval CLI runs halueval_qa and
halueval_general on the shared official-format files, and sets that SmolLM2 itself generated
(summarization from news documents through --source-columns, QA from the official file) load into
halueval_summarization and halueval_qa."""

import json
import os
import subprocess
import sys
from pathlib import Path

import datasets
import pytest
from conftest import SHARED_DATA

from hallubench.backends.hf_local import embedded_model_args
from lm_eval_tasks import TASKS_DIR

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (SHARED_DATA / "halueval").is_dir(), reason="../shared/data/halueval is not present"),
]
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
VECTARA = SHARED_DATA / "vectara_leaderboard" / "source_documents.jsonl"


def _lm_eval(output: Path, tasks: str, metadata: dict) -> dict:
    """lm_eval on SmolLM2 (greedy, 8 new tokens, 4 items per task); the results file's content."""
    model_args = ",".join(f"{k}={v}" for k, v in embedded_model_args().items())
    proc = subprocess.run(
        [sys.executable, "-m", "lm_eval", "--model", "hf", "--model_args", model_args, "--tasks", tasks,
         "--limit", "4", "--gen_kwargs", "max_gen_toks=8", "--apply_chat_template", "--include_path", str(TASKS_DIR),
         "--metadata", json.dumps(metadata), "--output_path", str(output)],
        capture_output=True, text=True, env=ENV, timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(next(output.rglob("results_*.json")).read_text())


def test_lm_eval_runs_halueval_on_the_local_model(tmp_path):
    """4 items per task through lm_eval: exit 0, and the results carry accuracy, both per-class accuracies and invalid_rate."""
    results = _lm_eval(tmp_path, "halueval_qa,halueval_general", {"halueval_data": str(SHARED_DATA / "halueval")})["results"]
    qa = results["halueval_qa"]
    for metric in ("accuracy", "accuracy_hallucinated", "accuracy_correct", "invalid_rate"):
        assert 0.0 <= qa[f"{metric},none"] <= 1.0
    assert 0.0 <= results["halueval_general"]["accuracy,none"] <= 1.0


@pytest.mark.skipif(not VECTARA.is_file(), reason="../shared/data/vectara_leaderboard is not present")
def test_sets_generated_by_the_local_model_run_in_lm_eval(tmp_path):
    """`hallubench generate halueval --generator smollm2` writes 2 summarization records from vectara news documents
    (mapped with --source-columns; the 4 shortest with 400+ characters, to bound CPU time) and 2 QA records from the
    official QA file; lm_eval then scores both sets with SmolLM2: 4 items per task, with accuracy and invalid_rate."""
    documents = [json.loads(line) for line in VECTARA.read_text(encoding="utf-8").splitlines()]
    documents = sorted((d for d in documents if len(d["source"]) >= 400), key=lambda d: len(d["source"]))[:4]
    news = tmp_path / "news.jsonl"
    news.write_text("".join(json.dumps(d) + "\n" for d in documents), encoding="utf-8")
    sources = {
        "summarization": [str(news), "--source-columns", "right_summary=deepseek_r1_summary,document=source"],
        "qa": [str(SHARED_DATA / "halueval" / "qa_data_first1000.json")],
    }
    for task, source in sources.items():
        proc = subprocess.run(
            [sys.executable, "-m", "hallubench.cli", "generate", "halueval", "--task", task, "--source", *source,
             "--generator", "smollm2", "--n", "2", "--seed", "0", "--max-tokens", "32", "--out", str(tmp_path / task),
             "--cache", str(tmp_path / "calls.sqlite")],
            capture_output=True, text=True, env=ENV, timeout=900,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert datasets.load_from_disk(str(tmp_path / task))["test"].num_rows == 2
    summaries = datasets.load_from_disk(str(tmp_path / "summarization"))["test"]
    assert set(summaries["right_summary"]) <= {d["deepseek_r1_summary"] for d in documents}
    results = _lm_eval(tmp_path / "eval", "halueval_summarization,halueval_qa",
                       {f"dataset_halueval_{task}": str(tmp_path / task) for task in sources})
    for task in sources:
        assert results["n-samples"][f"halueval_{task}"]["effective"] == 4
        for metric in ("accuracy", "invalid_rate"):
            assert 0.0 <= results["results"][f"halueval_{task}"][f"{metric},none"] <= 1.0
