"""HaluEval on the embedded SmolLM2 model (CPU, slow): the real lm_eval CLI runs halueval_qa and
halueval_general on the shared official-format files, and the generator runs with SmolLM2: a
summarization set from news documents (--source-columns) that lm_eval scores, and a QA set from
the official file that halueval_qa loads."""

import json
import os
import subprocess
import sys
from pathlib import Path

import datasets
import pytest
from conftest import SHARED_DATA

from hallubench.backends.hf_local import embedded_model_args
from hallubench_tasks import TASKS_DIR
from hallubench_tasks.dataset_loading import load

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
        [
            sys.executable,
            "-m",
            "lm_eval",
            "--model",
            "hf",
            "--model_args",
            model_args,
            "--tasks",
            tasks,
            "--limit",
            "4",
            "--gen_kwargs",
            "max_gen_toks=8",
            "--apply_chat_template",
            "--include_path",
            str(TASKS_DIR),
            "--metadata",
            json.dumps(metadata),
            "--output_path",
            str(output),
        ],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(next(output.rglob("results_*.json")).read_text())


@pytest.mark.skipif(not (SHARED_DATA / "halueval_full").is_dir(), reason="../shared/data/halueval_full is not present")
def test_lm_eval_runs_the_halueval_group_on_the_complete_official_data(tmp_path):
    """The whole `halueval` group (qa, dialogue, summarization, general) on the complete official files given with
    the one data key `dataset`, 4 items per task: exit 0, every task reports the official and lenient accuracy,
    per-class accuracies and invalid_rate, the group its mean; the results name the test set's fingerprint."""
    output = _lm_eval(tmp_path, "halueval", {"dataset": str(SHARED_DATA / "halueval_full")})
    results = output["results"]
    for task in ("halueval_qa", "halueval_dialogue", "halueval_summarization", "halueval_general"):
        for metric in ("accuracy", "accuracy_lenient", "invalid_rate"):
            assert 0.0 <= results[task][f"{metric},judged"] <= 1.0
        assert output["configs"][task]["metadata"]["hallubench_dataset"]["fingerprint"].startswith("sha256:")
    assert 0.0 <= results["halueval"]["accuracy,judged"] <= 1.0


def _generate(task: str, out: Path, *source: str) -> datasets.Dataset:
    """`hallubench generate halueval` with SmolLM2 as generator and filter judge: 2 records, 32 new tokens per
    candidate."""
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "hallubench.cli",
            "generate",
            "halueval",
            "--task",
            task,
            "--source",
            *source,
            "--generator",
            "smollm2",
            "--n",
            "2",
            "--seed",
            "0",
            "--max-tokens",
            "32",
            "--out",
            str(out),
            "--cache",
            str(out.parent / "calls.sqlite"),
        ],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return datasets.load_from_disk(str(out))["test"]


@pytest.mark.skipif(not VECTARA.is_file(), reason="../shared/data/vectara_leaderboard is not present")
def test_summarization_set_from_news_documents_runs_in_lm_eval(tmp_path):
    """SmolLM2 writes a 2-record summarization set from vectara news documents mapped with --source-columns (the 4
    shortest of 400+ characters, to bound CPU time); lm_eval's halueval_summarization then scores it with SmolLM2:
    4 items, with accuracy and invalid_rate."""
    documents = [json.loads(line) for line in VECTARA.read_text(encoding="utf-8").splitlines()]
    documents = sorted((d for d in documents if len(d["source"]) >= 400), key=lambda d: len(d["source"]))[:4]
    news = tmp_path / "news.jsonl"
    news.write_text("".join(json.dumps(d) + "\n" for d in documents), encoding="utf-8")
    rows = _generate(
        "summarization",
        tmp_path / "set",
        str(news),
        "--source-columns",
        "right_summary=deepseek_r1_summary,document=source",
    )
    assert rows.num_rows == 2
    for row in rows:
        original = documents[row["source_index"]]
        assert row["document"] == original["source"] and row["right_summary"] == original["deepseek_r1_summary"]
    results = _lm_eval(
        tmp_path / "eval", "halueval_summarization", {"dataset_halueval_summarization": str(tmp_path / "set")}
    )
    assert results["n-samples"]["halueval_summarization"]["effective"] == 2  # one drawn answer per record
    for metric in ("accuracy", "invalid_rate"):
        assert 0.0 <= results["results"]["halueval_summarization"][f"{metric},judged"] <= 1.0


def test_qa_set_generated_by_the_local_model_is_a_task_dataset(tmp_path):
    """SmolLM2 writes a 2-record QA set from the official QA file (right answers kept, hallucinated ones new);
    the halueval_qa loader reads it through dataset_halueval_qa (4 judged items when both answers are judged)."""
    source = SHARED_DATA / "halueval" / "qa_data_first1000.json"
    official = source.read_text(encoding="utf-8").splitlines()
    rows = _generate("qa", tmp_path / "set", str(source))
    assert rows.num_rows == 2 and all(row["hallucinated_answer"] for row in rows)
    assert all(row["right_answer"] == json.loads(official[row["source_index"]])["right_answer"] for row in rows)
    items = load("halueval_qa", halueval_task="qa", halueval_pairing="both", dataset_halueval_qa=str(tmp_path / "set"))[
        "test"
    ]
    assert items["label"] == ["No", "Yes"] * 2
