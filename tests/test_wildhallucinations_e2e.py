"""WildHallucinations end to end: `hallubench score` on an lm-eval samples file (table, breakdowns, plot), and
(slow) a real lm_eval run of the greedy task with the embedded local model and the rule judges."""

import json
import os
import subprocess
import sys
from pathlib import Path

import datasets
import pytest

from hallu_metrics.wildhallucinations import BENCHMARK, QUESTION
from hallubench.backends.hf_local import embedded_model_args
from hallubench.cli import main
from hallubench_tasks import TASKS_DIR

BIN = Path(sys.executable).parent
ENTITIES = [
    ("Lake Baikal", "geographic", 40.0, "https://en.wikipedia.org/wiki/Lake_Baikal",
     "Lake Baikal is a rift lake in Siberia, Russia. It is the deepest lake in the world, with a maximum depth of "
     "1,642 metres, and it holds about 23 percent of the fresh surface water of the world."),
    ("Refinitiv Eikon", "finance-related", 2500.0, "https://eikon.example/about",
     "Refinitiv Eikon is a set of software products for financial professionals. It provides market data, news "
     "and analytics, and it was sold by Thomson Reuters."),
]


def entity_rows():
    return [{"entity": e, "category": c, "perplexity": p, "info": [{"status_code": 200, "text": t, "url": u}]}
            for e, c, p, u, t in ENTITIES]


def test_score_on_a_samples_file(tmp_path, monkeypatch, capsys):
    """Judging lm-eval samples gives the metrics, outcome counts and the domain / wiki / rarity breakdowns, a
    printed table and a plot."""
    monkeypatch.setenv("HALLUBENCH_RETRIEVAL", "bm25")
    responses = ["Lake Baikal is a rift lake in Siberia, and it is the deepest lake in the world.",
                 "I'm sorry, but I couldn't find any information about Refinitiv Eikon."]
    samples = tmp_path / "samples_wildhallucinations_greedy.jsonl"
    samples.write_text("".join(
        json.dumps({"doc_id": i, "doc": doc, "arguments": [[QUESTION.format(entity=doc["entity"])]],
                    "resps": [[response]], "filtered_resps": [response]}) + "\n"
        for i, (doc, response) in enumerate(zip(entity_rows(), responses))
    ))
    out, plot = tmp_path / "r.json", tmp_path / "r.png"
    assert main(["score", "--task", "wildhallucinations_greedy", "--samples", str(samples), "--judge", "rule",
                 "--out", str(out), "--plot", str(plot)]) == 0
    result = json.loads(out.read_text())
    assert result["counts"]["abstained"] == 1 and result["response_rate"] == 0.5
    assert result["facts_per_response"] == 2.0 and result["wildfactscore"] == 1.0
    assert result["wildfactscore_strict"] == 0.5
    assert {row["value"] for row in result["breakdowns"]["wiki"]} == {"wiki", "non-wiki"}
    assert [row["value"] for row in result["breakdowns"]["rarity"]] == ["1", "3"]
    assert {row["value"] for row in result["breakdowns"]["category"]} == {"geographic", "finance-related"}
    assert "finance-related" in capsys.readouterr().out and plot.stat().st_size > 10_000


@pytest.mark.slow
def test_lm_eval_run_with_the_local_model(tmp_path):
    """The greedy task runs under the real lm_eval CLI on two entities with the embedded SmolLM2 and the rule
    judges (default embedding retrieval); `hallubench score` reproduces lm-eval's numbers."""
    folder = tmp_path / "set"
    datasets.DatasetDict({"train": datasets.Dataset.from_list(entity_rows(), features=BENCHMARK.columns)}
                         ).save_to_disk(str(folder))
    # One torch thread: on a shared 2-core machine, thread oversubscription slows generation tenfold.
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
           "OMP_NUM_THREADS": "1"}
    model_args = ",".join(f"{k}={v}" for k, v in embedded_model_args().items())
    proc = subprocess.run(
        [str(BIN / "lm_eval"), "--model", "hf", "--model_args", model_args, "--tasks", "wildhallucinations_greedy",
         "--limit", "2", "--batch_size", "2", "--gen_kwargs", "max_gen_toks=48", "--apply_chat_template",
         "--include_path", str(TASKS_DIR), "--log_samples", "--output_path", str(tmp_path / "out"),
         "--metadata", json.dumps({"dataset": str(folder), "judge": "rule"})],
        capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads(next((tmp_path / "out").rglob("results_*.json")).read_text())["results"]
    row = results["wildhallucinations_greedy"]
    assert 0.0 <= row["wildfactscore_strict,judged"] <= 1.0 and row["judge_unparseable_rate,judged"] == 0.0
    samples = next((tmp_path / "out").rglob("samples_wildhallucinations_greedy_*.jsonl"))
    first = json.loads(samples.read_text().splitlines()[0])
    assert QUESTION.format(entity="Lake Baikal") in json.dumps(first["arguments"])
    assert main(["score", "--task", "wildhallucinations_greedy", "--samples", str(samples), "--judge", "rule",
                 "--out", str(tmp_path / "r.json")]) == 0
    rescored = json.loads((tmp_path / "r.json").read_text())
    for metric in ("wildfactscore_strict", "response_rate", "facts_per_response", "judge_unparseable_rate"):
        assert rescored[metric] == pytest.approx(row[f"{metric},judged"]), metric
