"""WildHallucinations as lm-eval tasks: YAML (the paper's question, sampling settings, greedy variant), the
test-set schema shared with the generator, and the loader accepting the Hub set's single ``train`` split."""

import datasets
import pytest
from support import task_manager
from support import wildhallucinations_rows as rows

from hallu_metrics.benchmarks.wildhallucinations import BENCHMARK, QUESTION
from hallubench.core.errors import HallubenchError
from hallubench_generators.wildhallucinations import FEATURES
from hallubench_tasks.dataset_loading import load


def test_columns_are_the_generators():
    """The benchmark's columns are the Hub schema exactly as the generator writes it (same feature types)."""
    for column, feature in BENCHMARK.columns.items():
        assert FEATURES[column] == feature, column


def test_yaml_question_generation_settings_and_greedy_variant(tiny_set):
    """The prompt is the paper's one-line question; sampling at temperature 1 with 512 new tokens, greedy variant
    deterministic with the same budget."""
    manager = task_manager({"dataset": str(tiny_set("wildhallucinations")), "judge": "rule"})
    tasks = manager.load(list(BENCHMARK.task_names))["tasks"]
    sampled, greedy = tasks["wildhallucinations"], tasks["wildhallucinations_greedy"]
    doc = list(sampled.test_docs())[1]
    assert sampled.doc_to_text(doc) == QUESTION.format(entity="Entity 1")
    assert sampled.doc_to_text(doc) == "In a paragraph, could you tell me what you know about Entity 1?"
    kwargs = sampled.config.generation_kwargs
    assert (kwargs["do_sample"], kwargs["temperature"], kwargs["max_gen_toks"]) == (True, 1.0, 512)
    kwargs = greedy.config.generation_kwargs
    assert (kwargs["do_sample"], kwargs["temperature"], kwargs["max_gen_toks"]) == (False, 0.0, 512)
    assert [m["metric"] for m in sampled.config.metric_list] == list(BENCHMARK.metric_names)


def test_loader_takes_the_only_split_whatever_its_name(tmp_path):
    """A saved set whose one split is ``train`` (as on the Hub) loads; several splits without ``test`` fail."""
    single = tmp_path / "train_only"
    datasets.DatasetDict({"train": datasets.Dataset.from_list(rows())}).save_to_disk(str(single))
    assert load("wildhallucinations", dataset=str(single))["test"]["entity"] == ["Entity 0", "Entity 1", "Entity 2"]
    several = tmp_path / "two"
    datasets.DatasetDict({"train": datasets.Dataset.from_list(rows()),
                          "validation": datasets.Dataset.from_list(rows(1))}).save_to_disk(str(several))
    with pytest.raises(HallubenchError, match="no 'test' split and several others"):
        load("wildhallucinations", dataset=str(several))
