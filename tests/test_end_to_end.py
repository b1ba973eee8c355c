"""The whole flow on the embedded local model (SmolLM2-135M-Instruct, CPU): generate a set through the CLI
(the offline question writer: SmolLM2's own questions almost never pass the self-containment and answer checks,
so an LLM-written set of even 2 questions can take many minutes; the LLM writer is tested with a scripted
loopback model in tests/test_precisewikiqa_generator.py), evaluate SmolLM2 on it with the real lm_eval CLI
through `hallubench eval`, then re-judge the samples with `hallubench score` (also on --predict_only output)
with another judge."""

import json
import os
import subprocess
import sys

import datasets
import pytest
from loopback import LoopbackChatServer

pytestmark = pytest.mark.slow
HB = [sys.executable, "-m", "hallubench.cli"]


def run(args, **kw):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    return subprocess.run([*HB, *args], capture_output=True, text=True, env=env, timeout=900, **kw)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("e2e")


@pytest.fixture(scope="module")
def generated(workdir):
    out = workdir / "set"
    proc = run(
        [
            "generate",
            "precisewikiqa",
            "--source",
            "wiki-offline",
            "--question-writer",
            "offline",
            "--n",
            "2",
            "--seed",
            "0",
            "--out",
            str(out),
            "--cache",
            str(workdir / "calls.sqlite"),
        ]
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return out


def lm_eval(workdir, dataset, output, *extra):
    model_args = run(["model-args"]).stdout.strip()
    proc = run(
        [
            "eval",
            "--model",
            "hf",
            "--model_args",
            model_args,
            "--batch_size",
            "4",
            "--tasks",
            "precisewikiqa",
            "--metadata",
            json.dumps({"dataset": str(dataset), "judge": "rule"}),
            "--apply_chat_template",
            "--gen_kwargs",
            "max_gen_toks=24",
            "--output_path",
            str(output),
            *extra,
        ]
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def test_generated_through_the_cli(generated):
    """The CLI writes a 2-question set whose card says it is the offline stand-in and how to regenerate it."""
    test = datasets.load_from_disk(str(generated))["test"]
    assert len(test) == 2 and all(q.strip().endswith("?") for q in test["question"])
    card = (generated / "README.md").read_text()
    assert "offline" in card and "## Reproducibility" in card


def test_lm_eval_run_then_rescore(workdir, generated):
    proc = lm_eval(workdir, generated, workdir / "out", "--log_samples")
    assert "false_refusal_rate" in proc.stdout and "hallucination_rate" in proc.stdout
    samples = next((workdir / "out").rglob("samples_precisewikiqa_*.jsonl"))
    lines = [json.loads(line) for line in samples.read_text().splitlines()]
    record = json.loads(lines[0]["filtered_resps"][0])
    assert record["outcome"] in ("abstained", "correct", "hallucinated") and record["abstention"]["status"] == "ok"
    results = json.loads(next((workdir / "out").rglob("results_*.json")).read_text())["results"]["precisewikiqa"]

    # Re-judging with the same (rule) judge reproduces lm-eval's numbers.
    proc = run(
        [
            "score",
            "--task",
            "precisewikiqa",
            "--samples",
            str(samples),
            "--judge",
            "rule",
            "--out",
            str(workdir / "r.json"),
            "--plot",
            str(workdir / "bins.png"),
        ]
    )
    assert proc.returncode == 0, proc.stderr
    rescored = json.loads((workdir / "r.json").read_text())
    assert rescored["false_refusal_rate"] == results["false_refusal_rate,judged"]
    assert rescored["correct_rate"] == results["correct_rate,judged"]
    assert "| **all** |" in proc.stdout and (workdir / "bins.png").stat().st_size > 0

    # Another judge (loopback LLM judge: never abstaining, always CORRECT) changes the verdicts.
    def judge(messages):
        text = messages[-1]["content"]
        return '{"is_abstaining": false}' if "Judgement:" in text else '```json\n{"verdict": "CORRECT"}\n```'

    with LoopbackChatServer(judge) as server:
        spec = f"openai:base_url={server.base_url},model=judge"
        proc = run(
            [
                "score",
                "--task",
                "precisewikiqa",
                "--samples",
                str(samples),
                "--judge",
                spec,
                "--out",
                str(workdir / "j.json"),
            ]
        )
    assert proc.returncode == 0, proc.stderr
    judged = json.loads((workdir / "j.json").read_text())
    assert judged["correct_rate"] == 1.0 and judged["hallucination_rate"] == 0.0 and judged["n"] == 2
    assert judged["judges"] == {"judge": spec} and judged["judge_calls"][spec]["calls"] == 4


def test_score_works_on_predict_only_output_and_rejects_other_tasks(workdir, generated):
    lm_eval(workdir, generated, workdir / "pred", "--predict_only", "--limit", "1")
    samples = next((workdir / "pred").rglob("samples_precisewikiqa_*.jsonl"))
    proc = run(["score", "--task", "precisewikiqa", "--samples", str(samples), "--out", str(workdir / "p.json")])
    assert proc.returncode == 0, proc.stderr
    assert json.loads((workdir / "p.json").read_text())["n"] == 1

    other = workdir / "samples_other.jsonl"
    other.write_text(json.dumps({"doc": {"query": "x"}, "resps": [["y"]]}) + "\n")
    proc = run(["score", "--task", "precisewikiqa", "--samples", str(other), "--out", str(workdir / "x.json")])
    assert proc.returncode == 2 and "is not a precisewikiqa samples file" in proc.stderr
    assert not (workdir / "x.json").exists()
