"""HaluEval end to end. lm_eval runs the `halueval` group (qa, dialogue, summarization, general) on official-format
files given with the one data key `dataset`: lm-eval's API model on a loopback server (small files), and (slow) the
embedded SmolLM2 through the plain lm_eval CLI on the complete official files. Slow too: SmolLM2 writes a
summarization set from news documents (--source-columns) that lm_eval scores (the generator on a scripted loopback
model: tests/test_halueval_generator.py)."""

import json
import sys
from pathlib import Path

import datasets
import pytest
from conftest import SHARED_DATA
from support import run_cli, write_jsonl

TASKS = ("halueval_qa", "halueval_dialogue", "halueval_summarization", "halueval_general")
VECTARA = SHARED_DATA / "vectara_leaderboard" / "source_documents.jsonl"


@pytest.fixture
def in_process(monkeypatch):
    """lm-eval's CLI (or `hallubench eval`) in this process: sys.argv, which it parses, restored afterwards; lm-eval's
    environment report (torch's collect_env: a second or more of subprocesses per run) skipped."""
    monkeypatch.setattr(sys, "argv", sys.argv[:])
    monkeypatch.setattr("torch.utils.collect_env.get_pretty_env_info", lambda: "not collected in tests")


def results_of(output: Path) -> dict:
    return json.loads(next(output.rglob("results_*.json")).read_text())


def check_group(output: dict) -> None:
    """Every task reports the official and lenient accuracy and invalid_rate, and the set's fingerprint; the group
    row is the size-weighted mean of the tasks' accuracies (as `_halueval.yaml` declares)."""
    results = output["results"]
    for task in TASKS:
        for metric in ("accuracy", "accuracy_lenient", "invalid_rate"):
            assert 0.0 <= results[task][f"{metric},judged"] <= 1.0
        assert output["configs"][task]["metadata"]["hallubench_dataset"]["fingerprint"].startswith("sha256:")
    sizes = {task: output["n-samples"][task]["effective"] for task in TASKS}
    weighted = sum(results[task]["accuracy,judged"] * sizes[task] for task in TASKS) / sum(sizes.values())
    assert results["halueval"]["accuracy,judged"] == pytest.approx(weighted)


def official_files(folder: Path) -> Path:
    """Small files in the official format (JSON lines), named as the complete release names them."""
    folder.mkdir()
    write_jsonl(folder / "qa_data.json", [
        {"knowledge": f"Town {i} lies on river {i}.", "question": f"Which river flows through town {i}?",
         "right_answer": f"River {i}", "hallucinated_answer": f"The Nile, since {1900 + i}"} for i in range(3)])
    write_jsonl(folder / "dialogue_data.json", [
        {"knowledge": f"Film {i} stars Ann Lee.", "dialogue_history": f"[Human]: Who is in film {i}? ",
         "right_response": "Ann Lee stars in it.", "hallucinated_response": "Tom Hanks, in his first role."}
        for i in range(2)])
    write_jsonl(folder / "summarization_data.json", [
        {"document": f"The council of town {i} voted to build a bridge; work starts in May.",
         "right_summary": f"Town {i} will build a bridge from May.",
         "hallucinated_summary": f"Town {i} cancelled its bridge."} for i in range(2)])
    write_jsonl(folder / "general_data.json", [
        {"ID": str(i), "user_query": f"Name prime number {i}.", "chatgpt_response": f"{[2, 3, 5, 7][i]} or so.",
         "hallucination": "yes" if i == 3 else "no"} for i in range(4)])
    return folder


def always_yes(messages: list[dict]) -> str:
    return "Yes"


def test_hallubench_eval_runs_the_halueval_group_with_an_api_model(tmp_path, in_process, loopback_servers):
    """A model that answers "Yes" (hallucinated) to every item: exit 0, each task's accuracy is the share of items
    labelled Yes, no reply is invalid, and the group row is the size-weighted mean."""
    server = loopback_servers.chat(always_yes)
    proc = run_cli("eval", "--model", "local-chat-completions", "--model_args",
                   f"base_url={server.base_url}/chat/completions,model=mut,max_retries=0", "--tasks", "halueval",
                   "--apply_chat_template", "--log_samples", "--output_path", tmp_path / "out",
                   "--metadata", json.dumps({"dataset": str(official_files(tmp_path / "official"))}))
    assert proc.returncode == 0, proc.stderr[-3000:]
    output = results_of(tmp_path / "out")
    check_group(output)
    for task in TASKS:
        [samples] = (tmp_path / "out").rglob(f"samples_{task}_*.jsonl")
        labels = [json.loads(line)["doc"]["label"] for line in samples.read_text().splitlines()]
        assert output["results"][task]["accuracy,judged"] == pytest.approx(labels.count("Yes") / len(labels)), task
        assert output["results"][task]["invalid_rate,judged"] == 0.0
    assert output["n-samples"]["halueval_general"]["effective"] == 4


def lm_eval_cli(output: Path, tasks: str, metadata: dict) -> dict:
    """The plain lm_eval CLI (in this process; lm-eval's whole task index plus --include_path) on SmolLM2: greedy, 8
    new tokens, 4 items per task; the results file's content."""
    from lm_eval.__main__ import cli_evaluate

    from hallubench.core.backends.hf_local import embedded_model_args
    from hallubench_tasks import TASKS_DIR

    model_args = ",".join(f"{k}={v}" for k, v in embedded_model_args().items())
    sys.argv = ["lm_eval", "--model", "hf", "--model_args", model_args, "--tasks", tasks, "--limit", "4",
                "--gen_kwargs", "max_gen_toks=8", "--apply_chat_template", "--include_path", str(TASKS_DIR),
                "--metadata", json.dumps(metadata), "--output_path", str(output)]
    cli_evaluate()
    return results_of(output)


@pytest.mark.slow
@pytest.mark.skipif(not (SHARED_DATA / "halueval_full").is_dir(), reason="../shared/data/halueval_full is not present")
def test_lm_eval_runs_the_halueval_group_on_the_complete_official_data(tmp_path, in_process, monkeypatch):
    """The whole `halueval` group on the complete official files given with the one data key `dataset`, SmolLM2,
    4 items per task: every task reports the official and lenient accuracy, per-class accuracies and invalid_rate, the
    group its mean; the results name the test set's fingerprint."""
    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "false")
    check_group(lm_eval_cli(tmp_path, "halueval", {"dataset": str(SHARED_DATA / "halueval_full")}))


@pytest.mark.slow
@pytest.mark.skipif(not VECTARA.is_file(), reason="../shared/data/vectara_leaderboard is not present")
def test_summarization_set_from_news_documents_runs_in_lm_eval(tmp_path, in_process, monkeypatch):
    """SmolLM2 (generator and filter judge, 32 new tokens per candidate) writes a 2-record summarization set from
    vectara news documents mapped with --source-columns (the 4 shortest of 400+ characters, to bound CPU time);
    lm_eval's halueval_summarization then scores it with SmolLM2: 4 items, with accuracy and invalid_rate."""
    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "false")
    documents = [json.loads(line) for line in VECTARA.read_text(encoding="utf-8").splitlines()]
    documents = sorted((d for d in documents if len(d["source"]) >= 400), key=lambda d: len(d["source"]))[:4]
    news = write_jsonl(tmp_path / "news.jsonl", documents)
    out = tmp_path / "set"
    proc = run_cli("generate", "halueval", "--task", "summarization", "--source", news, "--source-columns",
                   "right_summary=deepseek_r1_summary,document=source", "--generator", "smollm2", "--n", "2",
                   "--seed", "0", "--max-tokens", "32", "--out", out, "--cache", tmp_path / "calls.sqlite")
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = datasets.load_from_disk(str(out))["test"]
    assert rows.num_rows == 2
    for row in rows:
        original = documents[row["source_index"]]
        assert row["document"] == original["source"] and row["right_summary"] == original["deepseek_r1_summary"]
    results = lm_eval_cli(tmp_path / "eval", "halueval_summarization", {"dataset_halueval_summarization": str(out)})
    assert results["n-samples"]["halueval_summarization"]["effective"] == 2  # one drawn answer per record
    for metric in ("accuracy", "invalid_rate"):
        assert 0.0 <= results["results"]["halueval_summarization"][f"{metric},judged"] <= 1.0
