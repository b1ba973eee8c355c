"""End to end: generate both NonExistentRefusal sets (a small offline taxonomy; scripted loopback generators), run the
real lm_eval on the group with the rule judge, check the group's unweighted mean of the subtasks and that
`hallubench score` reproduces lm-eval's number. The model under test is lm-eval's own API model against a loopback
server; one slow test runs the embedded SmolLM2 on sets generated from the shipped offline sources."""

import json
import sys
from pathlib import Path

import pytest
from support import run_cli, write_itis

KEY = "false_acceptance_rate,judged"
# A small ITIS taxonomy (tsn, parent, name): the shipped offline sources take ~20 s to scan per run.
ITIS = [(202423, 0, "Animalia"), (1, 202423, "Felidae"), (10, 1, "Panthera"), (100, 10, "Panthera leo"),
        (101, 10, "Panthera tigris"), (11, 1, "Neofelis"), (110, 11, "Neofelis nebulosa"), (12, 1, "Felis"),
        (120, 12, "Felis leo")]


# generatedentities' three generator models (one reply function per loopback server)
GENERATORS = [lambda messages, i=i: f"Quillon{i} Varex, Brimholt{i} Sable" for i in range(3)]


def generate_sets(tmp_path: Path, servers, *mixed_args: str) -> tuple[Path, Path]:
    """`generate mixedentities MIXED_ARGS` and `generate generatedentities` (2 products, three scripted loopback
    generators from the session's ``servers``)."""
    mixed, generated = tmp_path / "mixed", tmp_path / "generated"
    proc = run_cli("generate", "mixedentities", "--seed", "0", *mixed_args, "--out", mixed)
    assert proc.returncode == 0, proc.stderr[-2000:]
    specs = [f"openai:base_url={servers.chat(reply).base_url},model=g" for reply in GENERATORS]
    proc = run_cli("generate", "generatedentities", "--n-product", "2", "--generators", *specs, "--out", generated)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return mixed, generated


def group_run(tmp_path: Path, monkeypatch, mixed: Path, generated: Path, model: str, model_args: str, *extra: str):
    """`hallubench eval` (in this process) on the nonexistent_refusal group with the rule judge, samples logged;
    lm-eval's results."""
    monkeypatch.setattr(sys, "argv", sys.argv[:])  # `hallubench eval` hands lm-eval its arguments in sys.argv
    monkeypatch.setattr("torch.utils.collect_env.get_pretty_env_info", lambda: "not collected in tests")
    metadata = {"dataset_mixedentities": str(mixed), "dataset_generatedentities": str(generated), "judge": "rule"}
    proc = run_cli("eval", "--model", model, "--model_args", model_args, "--tasks", "nonexistent_refusal",
                   "--apply_chat_template", "--metadata", json.dumps(metadata), "--log_samples",
                   "--output_path", tmp_path / "out", *extra)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(next((tmp_path / "out").rglob("results_*.json")).read_text())


def rescored(tmp_path: Path) -> tuple[dict, str]:
    samples = next((tmp_path / "out").rglob("samples_mixedentities_*.jsonl"))
    proc = run_cli("score", "--task", "mixedentities", "--samples", samples, "--out", tmp_path / "r.json")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads((tmp_path / "r.json").read_text()), proc.stdout


def believer(messages: list[dict]) -> str:
    """The model under test: describes every species (a false acceptance), knows no product of the generators."""
    if "Quillon" in messages[-1]["content"] or "Brimholt" in messages[-1]["content"]:
        return "I'm sorry, but I couldn't find any information about that product. It may not exist."
    return "It is a wild cat of the Asian forests, known for its spotted coat and its long tail."


def test_group_run_with_an_api_model(tmp_path, monkeypatch, offline_checker, loopback_servers):
    """Both tasks run under lm_eval; the group reports the plain mean of the two false acceptance rates (3 species
    all accepted, 2 products all refused: 0.5, where a mean weighted by size would give 0.6)."""
    from hallubench_generators.nonexistent_refusal import generatedentities

    # generatedentities' offline checker loaded once per session (folding its ~400k known names takes ~20 s)
    monkeypatch.setattr(generatedentities, "make_checker", lambda args: offline_checker)
    mixed, generated = generate_sets(tmp_path, loopback_servers, "--n-per-domain", "3", "--domains", "animal",
                                     "--itis-db", str(write_itis(tmp_path / "i.db", ITIS)))
    server = loopback_servers.chat(believer)
    output = group_run(tmp_path, monkeypatch, mixed, generated, "local-chat-completions",
                       f"base_url={server.base_url}/chat/completions,model=mut,max_retries=0")
    results = output["results"]
    assert output["n-samples"]["mixedentities"]["effective"] == 3
    assert output["n-samples"]["generatedentities"]["effective"] == 2
    assert (results["mixedentities"][KEY], results["generatedentities"][KEY]) == (1.0, 0.0)
    assert results["nonexistent_refusal"][KEY] == pytest.approx(0.5)
    assert results["nonexistent_refusal"]["judge_unparseable_rate,judged"] == 0.0  # the group row's unreadable share
    result, printed = rescored(tmp_path)
    assert result["false_acceptance_rate"] == results["mixedentities"][KEY]
    assert "| domain | n | false_acceptance_rate (%)" in printed and "| animal | 3 |" in printed


@pytest.mark.slow
def test_group_run_with_the_local_model(tmp_path, monkeypatch, loopback_servers):
    """The same with the embedded SmolLM2 (hf backend, CPU) on a mixedentities set from the shipped sources (one
    name per domain), 4 items per task."""
    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "false")
    mixed, generated = generate_sets(tmp_path, loopback_servers, "--n-per-domain", "1")
    model_args = run_cli("model-args").stdout.strip()
    output = group_run(tmp_path, monkeypatch, mixed, generated, "hf", model_args, "--limit", "4", "--batch_size", "4",
                       "--gen_kwargs", "max_gen_toks=16")
    results = output["results"]
    subtasks = [results["mixedentities"][KEY], results["generatedentities"][KEY]]
    assert results["nonexistent_refusal"][KEY] == pytest.approx(sum(subtasks) / 2)
    assert results["nonexistent_refusal"]["judge_unparseable_rate,judged"] == 0.0
    result, printed = rescored(tmp_path)
    assert result["false_acceptance_rate"] == results["mixedentities"][KEY]
    assert "| domain | n | false_acceptance_rate (%)" in printed and "| animal | 1 |" in printed
