"""LongWiki in lm-eval: the YAML loads in the TaskManager with the paper's inference settings, the knowledge store
is checked at task load (before the model runs), K comes from dataset_kwargs / metadata; and real lm_eval runs with
the rule judges on a 2-prompt set, re-scored by `hallubench score`: lm-eval's API model on a loopback server, and
(slow) the embedded SmolLM2 on an offline set."""

import json
import sys
from pathlib import Path

import datasets
import pytest
from support import run_cli, task_manager

from hallu_metrics.benchmarks.longwiki import with_k
from hallu_metrics.longform.knowledge import write_store
from hallubench.cli import main
from hallubench.core.backends.hf_local import embedded_model_args
from hallubench.core.errors import HallubenchError

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


@pytest.fixture
def hallubench_eval(monkeypatch):
    """`hallubench eval ARGS` in this process, on longwiki with its samples logged: lm-eval's results row and the
    judged records. sys.argv (which it hands to lm-eval) is restored afterwards; lm-eval's environment report (torch's
    collect_env: a second or more of subprocesses) is skipped."""
    monkeypatch.setattr(sys, "argv", sys.argv[:])
    monkeypatch.setattr("torch.utils.collect_env.get_pretty_env_info", lambda: "not collected in tests")

    def run(out: Path, metadata: dict, model: str, model_args: str, *extra: str) -> tuple[dict, Path, list[dict]]:
        proc = run_cli("eval", "--model", model, "--model_args", model_args, "--tasks", "longwiki",
                       "--apply_chat_template", "--metadata", json.dumps(metadata), "--log_samples",
                       "--output_path", out, *extra)
        assert proc.returncode == 0, proc.stderr[-3000:]
        results = json.loads(next(out.rglob("results_*.json")).read_text())["results"]["longwiki"]
        assert {"false_refusal_rate,judged", "precision,judged", "f1_at_k,judged", "no_claim_rate,judged"} <= set(
            results)
        samples = next(out.rglob("samples_longwiki_*.jsonl"))
        records = [json.loads(json.loads(line)["filtered_resps"][0]) for line in samples.read_text().splitlines()]
        assert all(set(p) == {"title", "index"} for r in records for c in r["claims"] for p in c["passages"])
        return results, samples, records

    return run


def assert_score_reproduces(tmp_path: Path, results: dict, samples: Path, knowledge: str) -> None:
    assert main(["score", "--task", "longwiki", "--samples", str(samples), "--knowledge", knowledge, "--out",
                 str(tmp_path / "r.json")]) == 0
    rescored = json.loads((tmp_path / "r.json").read_text())
    assert rescored["false_refusal_rate"] == results["false_refusal_rate,judged"]
    if rescored["precision"] is not None:
        assert rescored["precision"] == pytest.approx(results["precision,judged"])


def two_claims_then_a_refusal(messages: list[dict]) -> str:
    """The model under test: two sentences about Sirius (the store supports one) to the first prompt, a refusal to
    the second."""
    if "question 1" in messages[-1]["content"]:
        return "I'm sorry, but I don't have any information about that."
    return "Sirius is the brightest star. Sirius is a small red planet made of ice."


def test_lm_eval_run_with_an_api_model_and_rule_judges(test_set, store, tmp_path, hallubench_eval, loopback_servers):
    """lm_eval's local-chat-completions model on a loopback server (``two_claims_then_a_refusal``); the rule judges
    judge claims against the store (BM25 retrieval: loading the embedder takes ~20 s), and `hallubench score` on the
    samples log gives lm-eval's numbers."""
    server = loopback_servers.chat(two_claims_then_a_refusal)
    results, samples, records = hallubench_eval(
        tmp_path / "out", {"dataset": test_set, "knowledge": store, "judge": "rule", "retrieval": "bm25"},
        "local-chat-completions", f"base_url={server.base_url}/chat/completions,model=mut,max_retries=0")
    assert [r["outcome"] for r in records] == ["judged", "refused"]
    assert results["false_refusal_rate,judged"] == 0.5 and 0.0 < results["precision,judged"] < 1.0
    assert_score_reproduces(tmp_path, results, samples, store)


@pytest.mark.slow
def test_lm_eval_run_with_the_local_model_and_rule_judges(tmp_path, hallubench_eval, monkeypatch):
    """Offline set (Vital Articles, offline writer) -> lm_eval with SmolLM2 -> rule judges over a Vital Articles
    store; `hallubench score` on the samples log gives lm-eval's numbers."""
    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "false")
    kb, lw_set = tmp_path / "kb", tmp_path / "set"
    assert main(["knowledge", "build", "--source", "wiki-offline", "--out", str(kb)]) == 0
    assert main(["generate", "longwiki", "--source", "wiki-offline", "--question-writer", "offline", "--n", "2",
                 "--knowledge", str(kb), "--out", str(lw_set)]) == 0
    model_args = ",".join(f"{k}={v}" for k, v in embedded_model_args().items())
    results, samples, records = hallubench_eval(
        tmp_path / "out", {"dataset": str(lw_set), "knowledge": str(kb), "judge": "rule"}, "hf", model_args,
        "--batch_size", "2", "--gen_kwargs", "max_gen_toks=48")
    assert len(records) == 2 and {r["outcome"] for r in records} <= {"refused", "no_claims", "judged"}
    assert_score_reproduces(tmp_path, results, samples, str(kb))
