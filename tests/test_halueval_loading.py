"""HaluEval data loading: the official-format files in ../shared/data/halueval through the
custom_dataset hook and through lm-eval's own task loading (validates every task YAML)."""

import json
from collections import Counter

import pytest
from conftest import SHARED_DATA

from hallubench.errors import HallubenchError
from lm_eval_tasks.halueval.loading import load, official_file

HALUEVAL = SHARED_DATA / "halueval"
pytestmark = pytest.mark.skipif(not HALUEVAL.is_dir(), reason="../shared/data/halueval is not present")


def test_qa_file_gives_balanced_pairs():
    """1,000 official QA records -> 2,000 items, half gold Yes, in right/hallucinated pairs."""
    items = load("qa", halueval_data=str(HALUEVAL))["test"]
    assert len(items) == 2000
    assert Counter(items["label"]) == {"Yes": 1000, "No": 1000}
    first = json.loads(HALUEVAL.joinpath("qa_data_first1000.json").open().readline())
    assert items[0]["candidate"] == first["right_answer"] and items[1]["candidate"] == first["hallucinated_answer"]


def test_general_keeps_the_human_label_distribution():
    """general: one item per annotated response; 815 of 4,507 are labelled hallucinated."""
    items = load("general", "cot", halueval_data=str(HALUEVAL))["test"]
    assert Counter(items["label"]) == {"Yes": 815, "No": 3692}


def test_local_path_resolution_and_errors(tmp_path):
    """A file path is used as is; a folder must hold exactly one <task>_data*.json; a missing path, a record
    without the task's columns or a file that is not JSON is a one-line error."""
    assert official_file("qa", str(HALUEVAL / "qa_data_first1000.json")).endswith("qa_data_first1000.json")
    with pytest.raises(HallubenchError, match="dialogue_data"):
        load("dialogue", halueval_data=str(HALUEVAL))
    with pytest.raises(HallubenchError, match="no such file or folder"):
        load("qa", halueval_data=str(tmp_path / "nowhere"))
    bad = tmp_path / "qa_data.json"
    bad.write_text('{"question": "q"}\n')
    with pytest.raises(HallubenchError, match="lacks"):
        load("qa", halueval_data=str(tmp_path))
    bad.write_text("question,answer\n")
    with pytest.raises(HallubenchError, match="neither JSON lines nor a JSON array"):
        load("qa", halueval_data=str(tmp_path))


def test_download_failure_is_a_clear_error(monkeypatch):
    """Without a local path the official GitHub file is fetched; a failed download is a one-line error with a hint."""
    def offline(url):
        assert url == "https://raw.githubusercontent.com/RUCAIBox/HaluEval/main/data/summarization_data.json"
        raise ConnectionError("offline")

    monkeypatch.setattr("lm_eval_tasks.halueval.loading.cached_path", offline)
    with pytest.raises(HallubenchError, match="halueval_data"):
        official_file("summarization", None)


def test_lm_eval_finds_and_loads_every_task():
    """All 13 task YAMLs and the group parse in lm-eval 0.4.13 and build docs from the shared QA file."""
    from lm_eval.tasks import TaskManager

    from lm_eval_tasks import TASKS_DIR

    manager = TaskManager(include_path=[str(TASKS_DIR)], metadata={"halueval_data": str(HALUEVAL)})
    names = {n for n in manager.all_tasks if n.startswith("halueval")}
    expected = {"halueval", "halueval_variants", "halueval_general", "halueval_general_cot"} | {
        f"halueval_{t}{v}" for t in ("qa", "dialogue") for v in ("", "_knowledge", "_cot", "_contrast")
    } | {f"halueval_summarization{v}" for v in ("", "_cot", "_contrast")}
    assert names == expected
    task = manager.load(["halueval_qa_knowledge"])["tasks"]["halueval_qa_knowledge"]
    doc = next(iter(task.test_docs()))
    assert task.doc_to_target(doc) == "No" and "#Knowledge#" in task.doc_to_text(doc)
