"""The path most users take with vLLM: lm-eval's own API model (`local-chat-completions`) against an
OpenAI-compatible server (here a loopback server with scripted replies, acting as the model under test and as
the LLM judge, which answers in markdown around its JSON as chat models do), through `hallubench eval` with
`--log_samples`, then `hallubench score` on the samples it wrote: both give the numbers the replies imply, and so
does the Inspect task on the same replies."""

import json
import sys

import datasets
from loopback import rough_usage
from support import precisewikiqa_chat, run_cli
from test_inspect_tasks import inspect_metrics, mock_model, run_inspect

from hallu_metrics.benchmarks.precisewikiqa import BENCHMARK
from hallubench.inspect_tasks.tasks import TASK_FUNCTIONS

ANSWERS = {"What is the capital of France?": ("Paris", "Paris."),
           "Who wrote Hamlet?": ("William Shakespeare", "Christopher Marlowe wrote it."),
           "What is the chemical symbol of gold?": ("Au", "I don't know, sorry.")}

reply = precisewikiqa_chat(ANSWERS)


def test_local_chat_completions_then_score_agree(tmp_path, monkeypatch, loopback_servers):
    monkeypatch.chdir(tmp_path)  # relative output paths, as a user types them
    monkeypatch.setattr(sys, "argv", sys.argv[:])  # `hallubench eval` hands lm-eval its arguments in sys.argv
    monkeypatch.setattr("torch.utils.collect_env.get_pretty_env_info", lambda: "not collected in tests")
    rows = [{"id": f"q{i}", "question": q, "answer": gold, "title": "T", "difficulty": i, "reference": "r"}
            for i, (q, (gold, _)) in enumerate(ANSWERS.items())]
    datasets.DatasetDict({"test": datasets.Dataset.from_list(rows, features=BENCHMARK.columns)}).save_to_disk(
        str(tmp_path / "set"))
    server = loopback_servers.chat(reply)
    judge = f"openai:base_url={server.base_url},model=judge,max_retries=0"
    proc = run_cli("eval", "--model", "local-chat-completions", "--model_args",
                   f"base_url={server.base_url}/chat/completions,model=mut,num_concurrent=2,max_retries=1",
                   "--tasks", "precisewikiqa", "--apply_chat_template", "--log_samples", "--output_path", "out",
                   "--metadata", json.dumps({"dataset": str(tmp_path / "set"), "judge": judge}))
    assert proc.returncode == 0, proc.stderr[-3000:]
    [samples] = (tmp_path / "out").rglob("samples_precisewikiqa_*.jsonl")
    [results] = (tmp_path / "out").rglob("results_*.json")
    proc = run_cli("score", "--task", "precisewikiqa", "--samples", samples, "--judge", judge, "--out", "r.json")
    assert proc.returncode == 0, proc.stderr[-3000:]
    lm_eval = json.loads(results.read_text())["results"]["precisewikiqa"]
    scored = json.loads((tmp_path / "r.json").read_text())
    expected = {"false_refusal_rate": 1 / 3, "correct_rate": 1 / 3, "hallucination_rate": 1 / 2,
                "judge_unparseable_rate": 0.0}
    for metric, value in expected.items():
        assert abs(lm_eval[f"{metric},judged"] - value) < 1e-9, metric
        assert abs(scored[metric] - value) < 1e-9, metric
        # every headline metric, conditional ones included, has lm-eval's stderr equal to score's
        assert abs(lm_eval[f"{metric}_stderr,judged"] - scored["stderr"][metric]) < 1e-9, metric
    assert abs(lm_eval["hallucination_rate_stderr,judged"] - 0.5) < 1e-9  # 2 attempted answers, one wrong
    # lm-eval's results carry the judging's accounting: the judge's calls and the tokens the server reported
    account = json.loads(results.read_text())["configs"]["precisewikiqa"]["metadata"]["hallubench_accounting"]
    judged = [(r["messages"], reply(r["messages"])) for r in server.requests if r.get("model") == "judge"]
    assert account["total"]["calls"] == account["total"]["new"] == len(judged) == 5  # 3 abstention + 2 graded
    assert account["total"]["prompt_tokens"] == sum(rough_usage(m, text)[0] for m, text in judged)
    assert account["total"]["completion_tokens"] == sum(rough_usage(m, text)[1] for m, text in judged)
    assert account["roles"]["judge"]["cost_usd"] is None  # no price in an lm-eval run: `hallubench score --price`
    # the same replies through the Inspect task (issue 36): lm-eval's numbers and stderr
    values = inspect_metrics(run_inspect(
        TASK_FUNCTIONS["precisewikiqa"](dataset=str(tmp_path / "set"), judge=judge),
        mock_model(lambda prompt: reply([{"role": "user", "content": prompt}])), tmp_path))
    for metric in expected:
        assert abs(values[metric] - lm_eval[f"{metric},judged"]) < 1e-9, metric
        assert abs(values[f"{metric}_stderr"] - lm_eval[f"{metric}_stderr,judged"]) < 1e-9, metric
