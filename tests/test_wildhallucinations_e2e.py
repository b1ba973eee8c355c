"""WildHallucinations end to end: `hallubench score` on an lm-eval samples file (table, breakdowns, plot), and real
lm_eval runs of the greedy task with the rule judges: lm-eval's API model on a loopback server, and (slow) the embedded
local model."""

import json
import sys
from pathlib import Path

import datasets
import pytest
from support import run_cli

from hallu_metrics.benchmarks.wildhallucinations import BENCHMARK, QUESTION
from hallubench.cli import main
from hallubench.core.backends.hf_local import embedded_model_args

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


def lm_eval_run(tmp_path, monkeypatch, model: str, model_args: str, *extra: str) -> tuple[dict, Path]:
    """`hallubench eval` (in this process) of the greedy task on the two entities with the rule judges: the task's
    results row and the samples file."""
    monkeypatch.setattr(sys, "argv", sys.argv[:])  # `hallubench eval` hands lm-eval its arguments in sys.argv
    monkeypatch.setattr("torch.utils.collect_env.get_pretty_env_info", lambda: "not collected in tests")
    folder = tmp_path / "set"
    datasets.DatasetDict({"train": datasets.Dataset.from_list(entity_rows(), features=BENCHMARK.columns)}
                         ).save_to_disk(str(folder))
    proc = run_cli("eval", "--model", model, "--model_args", model_args, "--tasks", "wildhallucinations_greedy",
                   "--apply_chat_template", "--log_samples", "--output_path", tmp_path / "out",
                   "--metadata", json.dumps({"dataset": str(folder), "judge": "rule"}), *extra)
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads(next((tmp_path / "out").rglob("results_*.json")).read_text())["results"]
    samples = next((tmp_path / "out").rglob("samples_wildhallucinations_greedy_*.jsonl"))
    first = json.loads(samples.read_text().splitlines()[0])
    assert QUESTION.format(entity="Lake Baikal") in json.dumps(first["arguments"])
    return results["wildhallucinations_greedy"], samples


def assert_score_reproduces(tmp_path, row: dict, samples: Path) -> None:
    assert main(["score", "--task", "wildhallucinations_greedy", "--samples", str(samples), "--judge", "rule",
                 "--out", str(tmp_path / "r.json")]) == 0
    rescored = json.loads((tmp_path / "r.json").read_text())
    for metric in ("wildfactscore_strict", "response_rate", "facts_per_response", "judge_unparseable_rate"):
        assert rescored[metric] == pytest.approx(row[f"{metric},judged"]), metric


def answer_as_in_the_score_test(messages: list[dict]) -> str:
    """The model under test: the responses of test_score_on_a_samples_file, by entity."""
    answers = {"Lake Baikal": "Lake Baikal is a rift lake in Siberia, and it is the deepest lake in the world.",
               "Refinitiv Eikon": "I'm sorry, but I couldn't find any information about Refinitiv Eikon."}
    return next(text for entity, text in answers.items() if entity in messages[-1]["content"])


def test_lm_eval_run_with_an_api_model(tmp_path, monkeypatch, loopback_servers):
    """The greedy task under the real lm_eval (its local-chat-completions model on a loopback server) with the rule
    judges and BM25 retrieval: the numbers the replies imply, and `hallubench score` reproduces them."""
    monkeypatch.setenv("HALLUBENCH_RETRIEVAL", "bm25")
    server = loopback_servers.chat(answer_as_in_the_score_test)
    row, samples = lm_eval_run(tmp_path, monkeypatch, "local-chat-completions",
                               f"base_url={server.base_url}/chat/completions,model=mut,max_retries=0")
    assert row["response_rate,judged"] == 0.5 and row["facts_per_response,judged"] == 2.0
    assert row["wildfactscore_strict,judged"] == 0.5 and row["judge_unparseable_rate,judged"] == 0.0
    assert_score_reproduces(tmp_path, row, samples)


@pytest.mark.slow
def test_lm_eval_run_with_the_local_model(tmp_path, monkeypatch):
    """The greedy task with the embedded SmolLM2 (hf backend, CPU, 48 new tokens) and the rule judges (default
    embedding retrieval); `hallubench score` reproduces lm-eval's numbers."""
    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "false")
    model_args = ",".join(f"{k}={v}" for k, v in embedded_model_args().items())
    row, samples = lm_eval_run(tmp_path, monkeypatch, "hf", model_args, "--limit", "2", "--batch_size", "2",
                               "--gen_kwargs", "max_gen_toks=48")
    assert 0.0 <= row["wildfactscore_strict,judged"] <= 1.0 and row["judge_unparseable_rate,judged"] == 0.0
    assert_score_reproduces(tmp_path, row, samples)
