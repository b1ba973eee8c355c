"""Outputs are owned per kind (issue 33, item 4): a knowledge store hallubench built is not a score or plan output,
an output inside a store folder the run reads is refused even with --overwrite, and two score runs writing one --out
at once cannot both say "written" (the second is refused while the first holds the output)."""

import hashlib
import json
from pathlib import Path

import pytest
from support import run_cli, write_jsonl

from hallubench.core.outputs import exclusive_output

PAGES = [{"title": "Paris", "text": "Paris is the capital of France. It lies on the Seine."},
         {"title": "Lyon", "text": "Lyon is a city in France."}]
ROWS = [{"id": f"q{i}", "question": f"What is item {i}?", "answer": "Paris", "title": "France", "reference": "r",
         "difficulty": i} for i in range(3)]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def store(tmp_path) -> Path:
    """A knowledge store built the way users build one (`hallubench knowledge build`)."""
    built = run_cli("knowledge", "build", "--source", write_jsonl(tmp_path / "pages.jsonl", PAGES),
                    "--out", tmp_path / "kb")
    assert built.returncode == 0, built.stderr
    return tmp_path / "kb" / "knowledge.db"


@pytest.fixture
def samples(tmp_path) -> Path:
    return write_jsonl(tmp_path / "samples.jsonl",
                       [{"doc_id": i, "doc": row, "resps": [["Paris."]]} for i, row in enumerate(ROWS)])


def score(samples: Path, out: Path, *extra: str):
    return run_cli("score", "--task", "precisewikiqa", "--judge", "rule", "--samples", samples, "--out", out, *extra)


def test_score_out_naming_a_store_is_refused_and_the_store_kept(store, samples):
    before = digest(store)
    run = score(samples, store)
    assert run.returncode == 2 and "was not written by hallubench score" in run.stderr
    assert digest(store) == before


@pytest.mark.parametrize("flag", [(), ("--overwrite",)])
def test_output_inside_the_store_the_run_reads_is_refused_even_with_overwrite(store, tmp_path, flag):
    samples = write_jsonl(tmp_path / "lw.jsonl", [{"doc_id": 0, "doc": {"prompt": "Tell me about Paris.",
                                                                         "title": "Paris"}, "resps": [["Paris."]]}])
    before = digest(store)
    run = run_cli("score", "--task", "longwiki", "--judge", "rule", "--knowledge", store.parent, "--samples", samples,
                  "--out", store, *flag)
    assert run.returncode == 2 and "is also an input of this run" in run.stderr
    assert digest(store) == before


def test_plan_out_naming_a_store_is_refused(store, samples):
    before = digest(store)
    run = run_cli("plan", "--task", "precisewikiqa", "--samples", samples, "--out", store)
    assert run.returncode == 2 and "was not written by hallubench plan" in run.stderr
    assert digest(store) == before


def test_a_second_run_on_the_same_out_is_refused_while_the_first_writes(samples, tmp_path):
    out = tmp_path / "result.json"
    with exclusive_output(out, "--out"):  # the first run, still judging
        second = score(samples, out)
        assert second.returncode == 2 and "is being written by another hallubench run" in second.stderr
        assert not out.exists()
    first = score(samples, out)  # once the first is done, the output is free again and no lock file is left
    assert first.returncode == 0, first.stderr
    assert json.loads(out.read_text())["written_by"] == "hallubench score"
    assert [p.name for p in tmp_path.glob(".result.json.lock")] == []
