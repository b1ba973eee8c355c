"""The faithfulness tasks in lm-eval and `hallubench score`: YAMLs load with the rubric prompt in the docs,
samples and test sets score through the CLI, and real lm_eval runs with lm-eval's API model on a loopback server and
(slow) SmolLM2 as the rubric scorer."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from support import run_cli, task_manager, write_jsonl

from hallu_metrics.judges.prompts import block_texts
from hallubench.cli import main
from hallubench.core.backends.hf_local import embedded_model_args

TASKS = ("faithfulness_rubric", "faithfulness_rubric_so", "faithfulness_hhem", "faithfulness_baseline")
ROWS = [
    {"id": "0-gold_full", "reference": "The museum opened in 1901. It holds 300 paintings.",
     "hypothesis": "The museum opened in 1901.", "type": "gold_full", "hallucinated_share": 0.0,
     "expected_score": 5.0, "progression_kind": "none"},
    {"id": "0-intrinsic-s0", "reference": "The museum opened in 1901. It holds 300 paintings.",
     "hypothesis": "The museum opened in 1911.", "type": "intrinsic", "hallucinated_share": 1.0,
     "expected_score": 1.0, "progression_kind": "none"},
    {"id": "1-gold_full", "reference": "Rain fell on Paris all week, closing two parks.",
     "hypothesis": "Rain closed two parks in Paris.", "type": "gold_full", "hallucinated_share": 0.0,
     "expected_score": 5.0, "progression_kind": "none"},
    {"id": "1-extrinsic-s0", "reference": "Rain fell on Paris all week, closing two parks.",
     "hypothesis": "Rain closed two parks in Paris; the Seine is 777 km long.", "type": "extrinsic",
     "hallucinated_share": 1.0, "expected_score": 1.0, "progression_kind": "none"},
]


@pytest.fixture()
def dataset(tmp_path) -> Path:
    return write_jsonl(tmp_path / "pairs.jsonl", ROWS)


def test_yamls_load_with_the_rubric_prompt_and_budgets(dataset, tmp_path):
    """TaskManager builds the four tasks; rubric docs carry the reasoning or score-only prompt (a custom rubric
    given with --metadata rubric=PATH replaces the default), greedy with 256 / 16 new tokens."""
    rubric = tmp_path / "rubric.md"
    rubric.write_text("CUSTOM RUBRIC: grade listings.", encoding="utf-8")
    manager = task_manager({"dataset": str(dataset), "rubric": str(rubric)})
    tasks = manager.load(list(TASKS))["tasks"]
    reasoning, score_only = tasks["faithfulness_rubric"], tasks["faithfulness_rubric_so"]
    doc = reasoning.dataset["test"][0]
    assert doc["prompt"].startswith("CUSTOM RUBRIC") and '"reasoning"' in doc["prompt"]
    assert block_texts(reasoning.doc_to_text(doc), "summary")[0].startswith("The museum opened in 1901.")
    assert '"reasoning"' not in score_only.dataset["test"][0]["prompt"]
    assert reasoning.config.generation_kwargs["max_gen_toks"] == 256
    assert score_only.config.generation_kwargs["max_gen_toks"] == 16
    assert reasoning.config.generation_kwargs["do_sample"] is False
    assert [m["metric"] for m in tasks["faithfulness_hhem"].config.metric_list] == [
        "residual", "score", "judge_unparseable_rate"]


def test_score_rubric_samples_file(tmp_path):
    """`hallubench score` reads saved rubric replies: residual per type, unparseable counted."""
    samples = tmp_path / "samples.jsonl"
    replies = ['{"reasoning": "ok", "score": 5}', '{"reasoning": "year differs", "score": 2}', "no score",
               '{"score": 4}']
    lines = [json.dumps({"doc": {**row, "prompt": "p"}, "resps": [[reply]]}) for row, reply in zip(ROWS, replies)]
    samples.write_text("\n".join(lines) + "\n")
    out = tmp_path / "result.json"
    assert main(["score", "--task", "faithfulness_rubric", "--samples", str(samples), "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["residual"] == pytest.approx((0 + 1 + 3) / 3) and result["judge_unparseable_rate"] == 0.25
    assert {row["value"]: row["residual"] for row in result["breakdowns"]["type"]} == pytest.approx(
        {"extrinsic": 3.0, "gold_full": 0.0, "intrinsic": 1.0})


def test_score_baseline_on_a_dataset_without_samples(dataset, tmp_path):
    """`hallubench score --task faithfulness_baseline --dataset` scores every pair with the rule judge's baseline
    (empty responses); the result says it came from the dataset; the rule judge is refused for HHEM."""
    out = tmp_path / "baseline.json"
    assert main(["score", "--task", "faithfulness_baseline", "--dataset", str(dataset), "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["counted"]["score"] == 4 and 1.0 <= result["score"] <= 5.0
    assert result["samples"].endswith("(dataset, empty responses)")
    assert main(["score", "--task", "faithfulness_hhem", "--dataset", str(dataset), "--judge", "rule", "--out",
                 str(tmp_path / "hhem.json")]) == 2


@pytest.fixture
def hallubench_eval(monkeypatch):
    """`hallubench eval` (in this process) of faithfulness_rubric on the 4 pairs with samples logged: lm-eval's metrics
    and the parsed records. sys.argv (which it hands to lm-eval) is restored afterwards; lm-eval's environment report
    (torch's collect_env: a second or more of subprocesses) is skipped."""
    monkeypatch.setattr(sys, "argv", sys.argv[:])
    monkeypatch.setattr("torch.utils.collect_env.get_pretty_env_info", lambda: "not collected in tests")

    def run(dataset: Path, out: Path, model: str, model_args: str, *extra: str) -> tuple[dict, list[dict]]:
        proc = run_cli("eval", "--model", model, "--model_args", model_args, "--tasks", "faithfulness_rubric",
                       "--apply_chat_template", "--metadata", json.dumps({"dataset": str(dataset)}),
                       "--output_path", out, "--log_samples", *extra)
        assert proc.returncode == 0, proc.stderr[-3000:]
        metrics = json.loads(next(out.rglob("results_*.json")).read_text())["results"]["faithfulness_rubric"]
        samples = [json.loads(line) for line in next(out.rglob("samples_*.jsonl")).open()]
        assert len(samples) == 4
        return metrics, [json.loads(s["filtered_resps"][0]) for s in samples]

    return run


def scorer(messages):
    """The rubric scorer: 5 for every summary but the wrong year, where it gives no score."""
    return "I cannot grade this." if "1911" in messages[-1]["content"] else '{"reasoning": "faithful", "score": 5}'


def test_lm_eval_runs_the_rubric_task_with_an_api_model(dataset, tmp_path, hallubench_eval, loopback_servers):
    """lm-eval's local-chat-completions model on a loopback server as the rubric scorer (``scorer``). Residual
    |5 - expected| over the 3 scored pairs: (0 + 0 + 4) / 3; one unparseable reply in 4."""
    server = loopback_servers.chat(scorer)
    metrics, records = hallubench_eval(dataset, tmp_path / "out", "local-chat-completions",
                                       f"base_url={server.base_url}/chat/completions,model=mut,max_retries=0")
    assert metrics["residual,judged"] == pytest.approx(4 / 3) and metrics["score,judged"] == 5.0
    assert metrics["judge_unparseable_rate,judged"] == 0.25
    assert sorted(r["outcome"] for r in records) == ["scored", "scored", "scored", "unparseable"]


@pytest.mark.slow
def test_lm_eval_runs_the_rubric_task_with_smollm2(dataset, tmp_path, hallubench_eval, monkeypatch):
    """The embedded SmolLM2 (hf backend, CPU, 16 new tokens) as the rubric scorer on the 4 pairs: exit 0, the
    residual, score and judge_unparseable_rate metrics are reported and the samples log holds the parsed records."""
    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "false")
    model_args = ",".join(f"{k}={v}" for k, v in embedded_model_args().items())
    metrics, records = hallubench_eval(dataset, tmp_path / "out", "hf", model_args, "--gen_kwargs", "max_gen_toks=16")
    assert 0.0 <= metrics["judge_unparseable_rate,judged"] <= 1.0
    assert all(r["outcome"] in ("scored", "unparseable") for r in records)
