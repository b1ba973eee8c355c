"""The card of a generated set states the fingerprint that results record for it (issue 33, item 15): lm-eval's task
metadata (``hallubench_dataset.fingerprint``) and ``hallubench score``'s result JSON (``dataset.fingerprint``) give
exactly the card's, in its text and in its YAML front matter, for a task that reads the rows as they are
(PreciseWikiQA) and for one that reshapes them into docs (LongWiki adds K), whose card also states the rows'."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from huggingface_hub.repocard import metadata_load
from support import load_task, run_cli, write_jsonl

from hallubench.core.provenance import dataset_fingerprint


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("kb")
    proc = run_cli("knowledge", "build", "--source", "wiki-offline", "--out", folder)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return folder


def generated(task: str, out: Path, *extra: str | Path) -> Path:
    proc = run_cli("generate", task, "--source", "wiki-offline", "--question-writer", "offline", "--n", "2",
                   "--out", out, "--cache", out.parent / "calls.sqlite", *extra)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return out


def recorded(task: str, dataset: Path, tmp_path: Path, *options: str | Path) -> tuple[str, str]:
    """(lm-eval's, score's) fingerprint of the set: the task built on it, and score on a samples log of its docs."""
    metadata = {"dataset": str(dataset), "judge": "rule"}
    metadata.update({key.removeprefix("--"): str(value) for key, value in zip(options[::2], options[1::2])})
    built = load_task(task, metadata)
    samples = write_jsonl(tmp_path / f"samples_{task}.jsonl", [
        {"doc_id": i, "doc": doc, "resps": [["I do not know."]]} for i, doc in enumerate(built.dataset["test"])])
    out = tmp_path / "result.json"
    proc = run_cli("score", "--task", task, "--samples", samples, "--judge", "rule", "--out", out, *options)
    assert proc.returncode == 0, proc.stderr[-2000:]
    scored = json.loads(out.read_text(encoding="utf-8"))["dataset"]["fingerprint"]
    return built.config.metadata["hallubench_dataset"]["fingerprint"], scored


def card_states(dataset: Path, task: str, fingerprint: str) -> None:
    card = (dataset / "README.md").read_text(encoding="utf-8")
    assert f"| {task} | `{fingerprint}` |" in card.split("## Fingerprint", 1)[1]
    assert metadata_load(dataset / "README.md")["hallubench"]["results_fingerprint"] == {task: fingerprint}


def test_a_plain_task_records_the_rows_fingerprint_the_card_states(tmp_path):
    dataset = generated("precisewikiqa", tmp_path / "set")
    lm_eval, scored = recorded("precisewikiqa", dataset, tmp_path)
    assert lm_eval == scored
    card_states(dataset, "precisewikiqa", lm_eval)
    assert metadata_load(dataset / "README.md")["hallubench"]["rows_fingerprint"] == lm_eval


def test_a_reshaping_task_records_its_docs_fingerprint_the_card_states_beside_the_rows(tmp_path, store):
    import datasets

    dataset = generated("longwiki", tmp_path / "set", "--knowledge", store)
    lm_eval, scored = recorded("longwiki", dataset, tmp_path, "--knowledge", store)
    assert lm_eval == scored
    card_states(dataset, "longwiki", lm_eval)
    rows = dataset_fingerprint(datasets.load_from_disk(str(dataset))["test"])
    assert rows != lm_eval and f"`{rows}`" in (dataset / "README.md").read_text(encoding="utf-8")
    assert metadata_load(dataset / "README.md")["hallubench"]["rows_fingerprint"] == rows


SCALAR_ROWS = [{"id": f"q{i}", "n": i - 1200, "share": i / 7, "flag": i % 3 == 0, "note": None if i % 5 else "x"}
               for i in range(2500)]  # three of dataset_fingerprint's batches


@pytest.mark.parametrize("rows", [
    SCALAR_ROWS,
    [{"id": "a", "n": 1}, {"id": "b", "n": 2.5}],  # int and float: Arrow makes 1 a float
    [{"id": "a", "info": [{"url": "u", "status_code": 200}]}, {"id": "b", "info": []}],  # nested
    [{"id": "a", "n": 2**63}],  # beyond int64: Arrow refuses
    [{"id": "a", "n": 1}, {"id": "b", "n": "1"}],  # int and str: Arrow refuses
])
def test_score_fingerprints_docs_as_the_dataset_of_those_rows_would(rows):
    """``hallubench score`` records the set's fingerprint without building a Dataset where the round trip through
    Arrow cannot change a value; it must equal what ``dataset_fingerprint`` gives the Dataset of the same rows (or
    None where Arrow refuses them)."""
    import datasets

    from hallubench.core.provenance import records_fingerprint
    from hallubench.reporting.scoring import docs_fingerprint

    try:
        expected = dataset_fingerprint(datasets.Dataset.from_list(rows))
    except (ValueError, TypeError, OverflowError):
        expected = None
    assert docs_fingerprint(rows) == expected
    assert records_fingerprint(rows) in (expected, None)
    assert (records_fingerprint(rows) is not None) == (rows is SCALAR_ROWS)
