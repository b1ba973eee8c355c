"""LongWiki in lm-eval: the YAML loads in the TaskManager with the paper's inference settings, the knowledge store
is checked at task load (before the model runs), K comes from dataset_kwargs / metadata; and (slow) one real
lm_eval run with the embedded SmolLM2 and the rule judges on a 2-prompt set, re-scored by `hallubench score`."""

import json
import os
import subprocess
import sys
from pathlib import Path

import datasets
import pytest
from support import task_manager

from hallu_metrics.longform.knowledge import write_store
from hallu_metrics.longwiki import with_k
from hallubench.backends.hf_local import embedded_model_args
from hallubench.cli import main
from hallubench.errors import HallubenchError
from hallubench_tasks import TASKS_DIR

BIN = Path(sys.executable).parent
ROWS = [{"id": f"lw-{i}", "prompt": f"Tell me about Sirius, question {i}.", "title": "Sirius", "reference": "r",
         "level": None} for i in range(2)]


@pytest.fixture
def test_set(tmp_path):
    features = datasets.Features({"id": datasets.Value("string"), "prompt": datasets.Value("string"),
                                  "title": datasets.Value("string"), "reference": datasets.Value("string"),
                                  "level": datasets.Value("int32")})
    path = tmp_path / "set"
    datasets.DatasetDict({"test": datasets.Dataset.from_list(ROWS, features=features)}).save_to_disk(str(path))
    return str(path)


@pytest.fixture
def store(tmp_path):
    return str(write_store(tmp_path / "kb", [("Sirius", "Sirius is the brightest star.")], progress=False).path)


def test_task_loads_with_the_paper_settings_and_k_from_metadata(test_set, store):
    """Prompt as the only user turn, greedy, 1024 new tokens; `longwiki_k` reaches the docs; `hallulens` holds it."""
    manager = task_manager({"dataset": test_set, "knowledge": store, "judge": "rule", "longwiki_k": 16})
    assert "longwiki" in manager.all_tasks
    task = manager.load(["longwiki"])["tasks"]["longwiki"]
    docs = list(task.test_docs())
    assert task.doc_to_text(docs[0]) == "Tell me about Sirius, question 0." and docs[0]["k"] == 16
    assert task.config.generation_kwargs["max_gen_toks"] == 1024 and task.config.generation_kwargs["do_sample"] is False
    assert task.config.metadata["knowledge"] == store  # the judging chain reads its settings from here


def test_missing_or_bad_knowledge_store_fails_at_task_load(test_set, tmp_path, monkeypatch):
    """No store, or a path that is not one: one clear error before any generation; `judge: none` needs none."""
    monkeypatch.delenv("HALLUBENCH_KNOWLEDGE", raising=False)
    rows = datasets.load_from_disk(test_set)["test"]
    with pytest.raises(HallubenchError, match="needs a knowledge store"):
        with_k(rows, {"task": "longwiki"})
    with pytest.raises(HallubenchError, match="not found"):
        with_k(rows, {"task": "longwiki", "knowledge": str(tmp_path / "nowhere")})
    assert with_k(rows, {"task": "longwiki", "judge": "none", "k": 64})["k"] == [64, 64]


@pytest.mark.slow
def test_lm_eval_run_with_the_local_model_and_rule_judges(tmp_path):
    """Offline set (Vital Articles, offline writer) -> lm_eval with SmolLM2 -> rule judges over a Vital Articles
    store; `hallubench score` on the samples log gives lm-eval's numbers."""
    kb, lw_set, out = tmp_path / "kb", tmp_path / "set", tmp_path / "out"
    assert main(["knowledge", "build", "--source", "wiki-offline", "--out", str(kb)]) == 0
    assert main(["generate", "longwiki", "--source", "wiki-offline", "--question-writer", "offline", "--n", "2",
                 "--knowledge", str(kb), "--out", str(lw_set)]) == 0
    model_args = ",".join(f"{k}={v}" for k, v in embedded_model_args().items())
    metadata = {"dataset": str(lw_set), "knowledge": str(kb), "judge": "rule"}
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    proc = subprocess.run(
        [str(BIN / "lm_eval"), "--model", "hf", "--model_args", model_args, "--tasks", "longwiki", "--batch_size", "2",
         "--gen_kwargs", "max_gen_toks=48", "--apply_chat_template", "--include_path", str(TASKS_DIR),
         "--metadata", json.dumps(metadata), "--log_samples", "--output_path", str(out)],
        capture_output=True, text=True, env=env, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads(next(out.rglob("results_*.json")).read_text())["results"]["longwiki"]
    assert {"false_refusal_rate,judged", "precision,judged", "f1_at_k,judged", "no_claim_rate,judged"} <= set(results)
    samples = next(out.rglob("samples_longwiki_*.jsonl"))
    records = [json.loads(json.loads(line)["filtered_resps"][0]) for line in samples.read_text().splitlines()]
    assert len(records) == 2 and {r["outcome"] for r in records} <= {"refused", "no_claims", "judged"}
    assert all(set(p) == {"title", "index"} for r in records for c in r["claims"] for p in c["passages"])
    assert main(["score", "--task", "longwiki", "--samples", str(samples), "--knowledge", str(kb), "--out",
                 str(tmp_path / "r.json")]) == 0
    rescored = json.loads((tmp_path / "r.json").read_text())
    assert rescored["false_refusal_rate"] == results["false_refusal_rate,judged"]
    if rescored["precision"] is not None:
        assert rescored["precision"] == pytest.approx(results["precision,judged"])
