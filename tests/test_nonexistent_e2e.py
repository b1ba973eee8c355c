"""End to end on the embedded local model: generate both NonExistentRefusal sets (offline sources;
scripted loopback generators), run the real lm_eval CLI on the group with the rule judge, check the
group's unweighted mean of the subtasks and that `hallubench score` reproduces lm-eval's number."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from loopback import LoopbackChatServer

from hallubench.cli import main

pytestmark = pytest.mark.slow
BIN = Path(sys.executable).parent


def run(cmd: list[str]) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)


def test_group_run_with_the_local_model(tmp_path):
    """Both tasks run under lm_eval; the group reports the plain mean of the two false acceptance rates."""
    hb = [str(BIN / "hallubench")]
    mixed, generated = tmp_path / "mixed", tmp_path / "generated"
    proc = run([*hb, "generate", "mixedentities", "--n-per-domain", "1", "--seed", "0", "--out", str(mixed)])
    assert proc.returncode == 0, proc.stderr[-2000:]
    servers = [LoopbackChatServer(lambda m, i=i: f"Quillon{i} Varex, Brimholt{i} Sable") for i in range(3)]
    for s in servers:
        s.__enter__()
    try:
        specs = [f"openai:base_url={s.base_url},model=g" for s in servers]
        assert (
            main(["generate", "generatedentities", "--n-product", "2", "--generators", *specs, "--out", str(generated)])
            == 0
        )
    finally:
        for s in servers:
            s.__exit__(None, None, None)

    model_args = run([*hb, "model-args"]).stdout.strip()
    tasks_path = run([*hb, "tasks-path"]).stdout.strip()
    metadata = {"dataset_mixedentities": str(mixed), "dataset_generatedentities": str(generated), "judge": "rule"}
    proc = run(
        [
            str(BIN / "lm_eval"),
            "--model",
            "hf",
            "--model_args",
            model_args,
            "--tasks",
            "nonexistent_refusal",
            "--limit",
            "4",
            "--batch_size",
            "4",
            "--gen_kwargs",
            "max_gen_toks=16",
            "--apply_chat_template",
            "--include_path",
            tasks_path,
            "--metadata",
            json.dumps(metadata),
            "--log_samples",
            "--output_path",
            str(tmp_path / "out"),
        ]
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads(next((tmp_path / "out").rglob("results_*.json")).read_text())["results"]
    key = "false_acceptance_rate,judged"
    subtasks = [results["mixedentities"][key], results["generatedentities"][key]]
    assert results["nonexistent_refusal"][key] == pytest.approx(sum(subtasks) / 2)
    assert results["nonexistent_refusal"]["judge_unparseable_rate,judged"] == 0.0  # the group row's unreadable share

    samples = next((tmp_path / "out").rglob("samples_mixedentities_*.jsonl"))
    proc = run([*hb, "score", "--task", "mixedentities", "--samples", str(samples), "--out", str(tmp_path / "r.json")])
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads((tmp_path / "r.json").read_text())["false_acceptance_rate"] == results["mixedentities"][key]
    assert "| domain | n | false_acceptance_rate (%)" in proc.stdout and "| animal | 1 |" in proc.stdout
