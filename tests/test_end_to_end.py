"""The whole flow: generate a set through the CLI (the offline question writer: SmolLM2's own questions almost never
pass the self-containment and answer checks, so an LLM-written set of even 2 questions can take many minutes; the LLM
writer is tested with a scripted loopback model in tests/test_precisewikiqa_generator.py), evaluate a model on it with
the real lm_eval through `hallubench eval`, then re-judge the samples with `hallubench score` (also on --predict_only
output) with another judge. The model under test is lm-eval's own API model (`local-chat-completions`) against a
loopback server with scripted answers; one slow test runs the embedded SmolLM2 (CPU) instead."""

import json
import sys

import datasets
import pytest
from support import run_cli


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("e2e")


# The answers of the model under test, by question: the gold answer to the generated set's first question, "I don't
# know" to the other (filled in by the `generated` fixture, which makes the questions).
REPLIES: dict[str, str] = {}


def model_under_test(messages: list[dict]) -> str:
    return REPLIES[messages[-1]["content"]]


@pytest.fixture(scope="module")
def generated(workdir):
    out = workdir / "set"
    proc = run_cli("generate", "precisewikiqa", "--source", "wiki-offline", "--question-writer", "offline", "--n", "2",
                   "--seed", "0", "--out", out, "--cache", workdir / "calls.sqlite")
    assert proc.returncode == 0, proc.stderr[-2000:]
    test = datasets.load_from_disk(str(out))["test"]
    REPLIES.update({test[0]["question"]: f"It is {test[0]['answer']}.", test[1]["question"]: "I don't know, sorry."})
    return out


@pytest.fixture
def hallubench_eval(monkeypatch):
    """`hallubench eval ARGS` in this process; sys.argv (which it hands to lm-eval) is restored afterwards, and
    lm-eval's environment report (torch's collect_env: a second or more of subprocesses per run) is skipped."""
    monkeypatch.setattr(sys, "argv", sys.argv[:])
    monkeypatch.setattr("torch.utils.collect_env.get_pretty_env_info", lambda: "not collected in tests")

    def run(dataset, output, model, model_args, *extra):
        proc = run_cli("eval", "--model", model, "--model_args", model_args, "--tasks", "precisewikiqa",
                       "--metadata", json.dumps({"dataset": str(dataset), "judge": "rule"}), "--apply_chat_template",
                       "--output_path", output, *extra)
        assert proc.returncode == 0, proc.stderr[-3000:]
        return proc

    return run


def test_generated_through_the_cli(generated):
    """The CLI writes a 2-question set whose card says it is the offline stand-in and how to regenerate it."""
    test = datasets.load_from_disk(str(generated))["test"]
    assert len(test) == 2 and all(q.strip().endswith("?") for q in test["question"])
    card = (generated / "README.md").read_text()
    assert "offline" in card and "## Reproducibility" in card


def never_abstaining_judge(messages):
    """An LLM judge that never sees an abstention and grades every answer CORRECT."""
    text = messages[-1]["content"]
    return '{"is_abstaining": false}' if "Judgement:" in text else '```json\n{"verdict": "CORRECT"}\n```'


def test_lm_eval_run_then_rescore(workdir, generated, hallubench_eval, loopback_servers):
    server = loopback_servers.chat(model_under_test)
    proc = hallubench_eval(generated, workdir / "out", "local-chat-completions",
                           f"base_url={server.base_url}/chat/completions,model=mut,max_retries=0", "--log_samples")
    assert "false_refusal_rate" in proc.stdout and "hallucination_rate" in proc.stdout
    samples = next((workdir / "out").rglob("samples_precisewikiqa_*.jsonl"))
    lines = [json.loads(line) for line in samples.read_text().splitlines()]
    records = {line["doc"]["question"]: json.loads(line["filtered_resps"][0]) for line in lines}
    test = datasets.load_from_disk(str(generated))["test"]
    assert [records[q]["outcome"] for q in test["question"]] == ["correct", "abstained"]
    assert all(r["abstention"]["status"] == "ok" for r in records.values())
    results = json.loads(next((workdir / "out").rglob("results_*.json")).read_text())["results"]["precisewikiqa"]
    assert results["false_refusal_rate,judged"] == 0.5 and results["correct_rate,judged"] == 0.5

    # Re-judging with the same (rule) judge reproduces lm-eval's numbers.
    proc = run_cli("score", "--task", "precisewikiqa", "--samples", samples, "--judge", "rule",
                   "--out", workdir / "r.json", "--plot", workdir / "bins.png")
    assert proc.returncode == 0, proc.stderr
    rescored = json.loads((workdir / "r.json").read_text())
    assert rescored["false_refusal_rate"] == results["false_refusal_rate,judged"]
    assert rescored["correct_rate"] == results["correct_rate,judged"]
    assert "| **all** |" in proc.stdout and (workdir / "bins.png").stat().st_size > 0

    # Another judge (loopback LLM judge: never abstaining, always CORRECT) changes the verdicts.
    spec = f"openai:base_url={loopback_servers.chat(never_abstaining_judge).base_url},model=judge"
    proc = run_cli("score", "--task", "precisewikiqa", "--samples", samples, "--judge", spec,
                   "--out", workdir / "j.json")
    assert proc.returncode == 0, proc.stderr
    judged = json.loads((workdir / "j.json").read_text())
    assert judged["correct_rate"] == 1.0 and judged["hallucination_rate"] == 0.0 and judged["n"] == 2
    assert judged["judges"] == {"judge": spec} and judged["judge_calls"][spec]["calls"] == 4


def test_score_works_on_predict_only_output_and_rejects_other_tasks(workdir, generated, hallubench_eval,
                                                                   loopback_servers):
    server = loopback_servers.chat(model_under_test)
    hallubench_eval(generated, workdir / "pred", "local-chat-completions",
                    f"base_url={server.base_url}/chat/completions,model=mut,max_retries=0", "--predict_only",
                    "--limit", "1")
    samples = next((workdir / "pred").rglob("samples_precisewikiqa_*.jsonl"))
    assert json.loads(json.loads(samples.read_text())["filtered_resps"][0])["outcome"] == "unjudged"
    proc = run_cli("score", "--task", "precisewikiqa", "--samples", samples, "--out", workdir / "p.json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads((workdir / "p.json").read_text())["n"] == 1

    other = workdir / "samples_other.jsonl"
    other.write_text(json.dumps({"doc": {"query": "x"}, "resps": [["y"]]}) + "\n")
    proc = run_cli("score", "--task", "precisewikiqa", "--samples", other, "--out", workdir / "x.json")
    assert proc.returncode == 2 and "is not a precisewikiqa samples file" in proc.stderr
    assert not (workdir / "x.json").exists()


@pytest.mark.slow
def test_lm_eval_run_with_the_local_model_then_rescore(workdir, generated, hallubench_eval, monkeypatch):
    """The same run with the embedded SmolLM2 (hf backend, CPU, 24 new tokens): the records are judged and the rule
    judge's re-scoring reproduces lm-eval's numbers."""
    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "false")
    model_args = run_cli("model-args").stdout.strip()
    proc = hallubench_eval(generated, workdir / "local", "hf", model_args, "--batch_size", "4",
                           "--gen_kwargs", "max_gen_toks=24", "--log_samples")
    assert "false_refusal_rate" in proc.stdout and "hallucination_rate" in proc.stdout
    samples = next((workdir / "local").rglob("samples_precisewikiqa_*.jsonl"))
    record = json.loads(json.loads(samples.read_text().splitlines()[0])["filtered_resps"][0])
    assert record["outcome"] in ("abstained", "correct", "hallucinated") and record["abstention"]["status"] == "ok"
    results = json.loads(next((workdir / "local").rglob("results_*.json")).read_text())["results"]["precisewikiqa"]
    proc = run_cli("score", "--task", "precisewikiqa", "--samples", samples, "--judge", "rule",
                   "--out", workdir / "local.json")
    assert proc.returncode == 0, proc.stderr
    rescored = json.loads((workdir / "local.json").read_text())
    assert rescored["false_refusal_rate"] == results["false_refusal_rate,judged"]
    assert rescored["correct_rate"] == results["correct_rate,judged"]
