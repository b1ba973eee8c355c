"""Small seams (issue 33, item 11): failure messages keep their numbers; bad values end in one line before any work
(an invalid Hub repo id, `plan --latency 1e308`, `generate --trials 1000000000`); `eval --trials` checks every trial's
set before the first run; `view` reads lm-eval samples lines holding raw U+2028 / U+0085."""

import json
import sys
from pathlib import Path

import pytest
from support import run_cli, save_set, write_jsonl

from hallubench.core.provenance import dataset_fingerprint
from hallubench.reporting.judge_failures import failure_causes

ROWS = [{"id": f"q{i}", "question": f"Which river flows through Lyon {i}?", "answer": "Rhone", "title": "Lyon",
         "reference": "Lyon lies on the Rhone.", "difficulty": i} for i in range(3)]


def test_failure_causes_keep_the_values_in_use():
    errors = ["ReadTimeout from http://j:1/v1/chat/completions: no complete reply within the 30 s deadline",
              "reply body over 4096 bytes from http://j:1/v1/chat/completions (raise max_reply_bytes= on the spec)"]
    specs = {"judge": "openai:base_url=http://j:1/v1,model=m,timeout=30,max_reply_bytes=4096"}
    assert failure_causes(errors, specs) == [
        "1 judge call to http://j:1/v1 failed: no complete reply within timeout=30 s: raise timeout= on the judge spec "
        "(for a slow server: concurrency=1,timeout=600)",
        "1 judge call to http://j:1/v1 failed: reply larger than max_reply_bytes=4096: raise max_reply_bytes= on the "
        "judge spec if such replies are expected",
    ]


def test_an_invalid_hub_repo_id_is_refused_before_the_set_is_generated(tmp_path, monkeypatch):
    from hallubench_generators import cli as generators_cli

    monkeypatch.setattr(generators_cli, "check_output_dir", lambda *a: pytest.fail("reached the generation"))
    run = run_cli("generate", "precisewikiqa", "--source", tmp_path / "pages.jsonl", "--n", "4",
                  "--out", tmp_path / "set", "--push-to-hub", "me/not a valid id!")
    assert run.returncode == 2 and "--push-to-hub 'me/not a valid id!': not a valid Hub repo id" in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("argv, message", [
    (["plan", "--task", "precisewikiqa", "--dataset", "SET", "--latency", "1e308"], "--latency 1e+308: expected"),
    (["plan", "--task", "precisewikiqa", "--dataset", "SET", "--latency", "nan"], "--latency nan: expected"),
    (["generate", "precisewikiqa", "--source", "x.jsonl", "--n", "4", "--out", "OUT", "--trials", "1000000000"],
     "--trials 1000000000: expected 1 to 1000"),
])
def test_huge_values_are_one_line_refusals(tmp_path, argv, message):
    dataset = save_set(tmp_path / "set", ROWS)
    run = run_cli(*[str(dataset) if a == "SET" else str(tmp_path / "out") if a == "OUT" else a for a in argv])
    assert run.returncode == 2 and message in run.stderr and "Traceback" not in run.stderr
    assert not (tmp_path / "out").exists()


def trials(parent: Path) -> Path:
    """Two trial sets and their manifest, as `generate --trials 2` leaves them."""
    sets = []
    for seed in (0, 1):
        folder = save_set(parent / f"trial-{seed}", [{**r, "id": f"{r['id']}-{seed}"} for r in ROWS])
        sets.append({"seed": seed, "folder": folder.name, "n": len(ROWS),
                     "fingerprint": dataset_fingerprint(__import__("datasets").load_from_disk(str(folder))["test"])})
    (parent / "trials.json").write_text(json.dumps({"written_by": "hallubench generate", "benchmark": "precisewikiqa",
                                                    "seeds": [0, 1], "sets": sets}))
    return parent


@pytest.mark.parametrize("damage, message", [
    (lambda parent: save_set(parent / "trial-1", ROWS[:2]), "trial 1's set"),
    (lambda parent: __import__("shutil").rmtree(parent / "trial-1"), "cannot be read"),
])
def test_eval_trials_checks_every_set_before_the_first_run(tmp_path, monkeypatch, damage, message):
    parent = trials(tmp_path / "sets")
    damage(parent)
    runs = []
    monkeypatch.setattr("hallubench.cli.eval.run_lm_eval", lambda args: runs.append(args) or 0)
    run = run_cli("eval", "--trials", parent, "--model", "dummy", "--tasks", "precisewikiqa",
                  "--output_path", tmp_path / "out")
    assert run.returncode == 2 and message in run.stderr and runs == []


def test_eval_trials_runs_each_trial_when_the_sets_are_intact(tmp_path, monkeypatch):
    parent = trials(tmp_path / "sets")
    runs = []
    monkeypatch.setattr("hallubench.cli.eval.run_lm_eval", lambda args: runs.append(args) or 0)
    assert run_cli("eval", "--trials", parent, "--model", "dummy", "--tasks", "precisewikiqa",
                   "--output_path", tmp_path / "out").returncode == 0
    assert len(runs) == 2


def test_view_reads_samples_lines_with_raw_line_separators(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "argv", sys.argv[:1])
    response = "The Rhone.\u2028It flows south.\u0085Next line.\u2029End."
    line = {"doc_id": 0, "doc": ROWS[0], "resps": [[response]], "filtered_resps": [json.dumps({
        "response": response, "outcome": "hallucinated"})], "filter": "judged"}
    samples = tmp_path / "run" / "samples_precisewikiqa_2026-11-27T10-00-00.jsonl"
    samples.parent.mkdir()
    samples.write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")  # as lm-eval writes it
    assert "\u2028" in samples.read_text(encoding="utf-8")
    run = run_cli("view", samples.parent, "--out", tmp_path / "view")
    assert run.returncode == 0, run.stderr
    assert "It flows south." in (tmp_path / "view" / "view.html").read_text(encoding="utf-8")


def test_a_labels_record_missing_a_field_is_named_by_its_line(tmp_path):
    labels = write_jsonl(tmp_path / "labels.jsonl", [{"question": "Q?", "response": "I don't know.", "label": True},
                                                     {"question": "Q?", "label": False}])
    run = run_cli("agreement", "--task", "precisewikiqa", "--check", "abstention", "--judge", "rule",
                  "--labels", labels)
    assert run.returncode == 2 and f"{labels}:2: the record lacks the field 'response'" in run.stderr
