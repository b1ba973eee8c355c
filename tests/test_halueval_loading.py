"""HaluEval data loading through the one task loader: official-format files (a folder or a file, under
`dataset` or the older `halueval_data` key), the paper's seeded one-answer draw, the paired variant,
and lm-eval's own task loading (validates every task YAML)."""

import json
from collections import Counter

import pytest
from conftest import SHARED_DATA

from hallubench.core.errors import HallubenchError
from hallubench.core.official_files.halueval import official_file
from hallubench_tasks.dataset_loading import load

HALUEVAL = SHARED_DATA / "halueval"
FULL = SHARED_DATA / "halueval_full"
pytestmark = pytest.mark.skipif(not HALUEVAL.is_dir(), reason="../shared/data/halueval is not present")


def docs(task, variant="standard", **options):
    return load(f"halueval_{task}", halueval_task=task, halueval_variant=variant, **options)["test"]


def test_paper_protocol_draws_one_answer_per_record_under_a_seed():
    """1,000 official QA records -> 1,000 items (one drawn answer each, about half gold Yes); the draw is the
    same for the same seed and differs for another seed."""
    items = docs("qa", halueval_data=str(HALUEVAL))
    assert len(items) == 1000 and 430 < Counter(items["label"])["Yes"] < 570
    assert docs("qa", dataset=str(HALUEVAL / "qa_data_first1000.json"))["label"] == items["label"]
    assert docs("qa", dataset=str(HALUEVAL), halueval_seed=1)["label"] != items["label"]


def test_paired_variant_judges_both_answers():
    """halueval_pairing=both: 2,000 items in right/hallucinated pairs, half gold Yes."""
    items = docs("qa", halueval_data=str(HALUEVAL), halueval_pairing="both")
    assert len(items) == 2000 and Counter(items["label"]) == {"Yes": 1000, "No": 1000}
    first = json.loads(HALUEVAL.joinpath("qa_data_first1000.json").open().readline())
    assert items[0]["candidate"] == first["right_answer"] and items[1]["candidate"] == first["hallucinated_answer"]


def test_general_keeps_the_human_label_distribution():
    """general: one item per annotated response; 815 of 4,507 are labelled hallucinated."""
    assert Counter(docs("general", "cot", dataset=str(HALUEVAL))["label"]) == {"Yes": 815, "No": 3692}


@pytest.mark.skipif(not FULL.is_dir(), reason="../shared/data/halueval_full is not present")
def test_complete_official_files_under_the_dataset_key():
    """The complete files: 10,000 items for each pair task from one folder given as `dataset`, or one file."""
    for task in ("qa", "dialogue", "summarization"):
        assert len(docs(task, dataset=str(FULL))) == 10000
    assert len(docs("dialogue", dataset=str(FULL / "dialogue_data.json"))) == 10000


def test_local_path_resolution_and_errors(tmp_path):
    """A file path is used as is; a folder must hold exactly one <task>_data*.json; a missing path, a record
    without the task's columns or a file that is not JSON is a one-line error."""
    assert official_file("qa", str(HALUEVAL / "qa_data_first1000.json")).endswith("qa_data_first1000.json")
    with pytest.raises(HallubenchError, match="dialogue_data"):
        docs("dialogue", halueval_data=str(HALUEVAL))
    with pytest.raises(HallubenchError, match="neither a folder, a file nor a hub id"):
        docs("qa", dataset=str(tmp_path / "nowhere"))
    bad = tmp_path / "qa_data.json"
    bad.write_text('{"question": "q"}\n')
    with pytest.raises(HallubenchError, match="lacks"):
        docs("qa", dataset=str(tmp_path))
    bad.write_text("question,answer\n")
    with pytest.raises(HallubenchError, match=r"qa_data.json:1: not a JSON object \(Expecting value\)"):
        docs("qa", dataset=str(tmp_path))


def test_download_failure_is_a_clear_error(monkeypatch):
    """Without a local path the official GitHub file is fetched; a failed download is a one-line error with a hint."""
    def offline(url):
        assert url == "https://raw.githubusercontent.com/RUCAIBox/HaluEval/main/data/summarization_data.json"
        raise ConnectionError("offline")

    monkeypatch.setattr("datasets.utils.file_utils.cached_path", offline)  # imported where the download starts
    with pytest.raises(HallubenchError, match="dataset=PATH"):
        official_file("summarization", None)


def test_lm_eval_finds_and_loads_every_task():
    """All task YAMLs and the group parse in lm-eval 0.4.13 and build docs from the shared QA file."""
    from support import task_manager

    manager = task_manager({"halueval_data": str(HALUEVAL)})
    names = {n for n in manager.all_tasks if n.startswith("halueval")}
    expected = {"halueval", "halueval_variants", "halueval_general", "halueval_general_cot"} | {
        f"halueval_{t}{v}" for t in ("qa", "dialogue") for v in ("", "_knowledge", "_cot", "_contrast", "_paired")
    } | {f"halueval_summarization{v}" for v in ("", "_cot", "_contrast", "_paired")}
    assert names == expected
    task = manager.load(["halueval_qa_knowledge"])["tasks"]["halueval_qa_knowledge"]
    doc = next(iter(task.test_docs()))
    assert task.doc_to_target(doc) == doc["label"] and "#Knowledge#" in task.doc_to_text(doc)
