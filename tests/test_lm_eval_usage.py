"""lm-eval used as its users use it, without a model: --num_fewshot refused, --predict_only judges nothing,
the request cache keyed by the test set, judge specs cut by lm-eval's comma splitting caught at task load,
an unreachable judge caught before generation, and responses saved when judging raises after generation."""

import json

import pytest
from support import load_task, save_set

from hallu_metrics.benchmarks.precisewikiqa import BENCHMARK as PRECISEWIKIQA
from hallubench.core.errors import HallubenchError
from hallubench_tasks import judged_task
from hallubench_tasks.judged_task import JudgeFilter


def tiny_set(path, answer="Paris"):
    rows = [{"id": f"x{i}", "question": f"Q{i}?", "answer": answer, "title": "T", "reference": "r", "difficulty": i}
            for i in range(3)]
    return str(save_set(path, rows))


def test_num_fewshot_above_zero_is_refused(tmp_path):
    task = load_task("precisewikiqa", {"dataset": tiny_set(tmp_path / "d"), "judge": "rule"})
    with pytest.raises(HallubenchError, match="--num_fewshot 5 refused: hallubench tasks are zero-shot"):
        task.set_config(key="num_fewshot", value=5)
    task.set_config(key="num_fewshot", value=0)  # zero shots are what the task does anyway


def test_predict_only_builds_and_calls_no_judge(tmp_path):
    """With a judge that could only fail (nothing listens), --predict_only's bypass leaves every record unjudged
    at once, saying how to judge it later."""
    dead = "openai:base_url=http://127.0.0.1:9/v1,model=j,max_retries=0"
    task = load_task("precisewikiqa", {"dataset": tiny_set(tmp_path / "d"), "judge": dead, "judge_probe_timeout": 0})
    task.override_metric("bypass")
    [ensemble] = task._filters
    records = [json.loads(r) for r in ensemble.filters[-1]().apply(["Paris.", "Lyon."], [{}, {}])]
    assert [r["outcome"] for r in records] == ["unjudged", "unjudged"]
    assert "--predict_only" in records[0]["unjudged_reason"] and "hallubench score" in records[0]["unjudged_reason"]
    assert task.config.metadata["hallubench_judging"].startswith("skipped (--predict_only)")


def test_request_cache_key_differs_per_test_set(tmp_path, monkeypatch):
    """lm-eval keys --cache_requests by task name and shots; the key also carries the set's fingerprint here."""
    from lm_eval.api.task import ConfigurableTask

    seen = []
    monkeypatch.setattr(ConfigurableTask, "build_all_requests", lambda self, **kw: seen.append(kw["tokenizer_name"]))
    for name, answer in (("a", "Paris"), ("b", "Rome")):
        task = load_task("precisewikiqa", {"dataset": tiny_set(tmp_path / name, answer), "judge": "rule"})
        task.build_all_requests(tokenizer_name="tok", cache_requests=True)
    assert seen[0] != seen[1] and all(key.startswith("tok-hallubench_set") for key in seen)


@pytest.mark.parametrize("metadata, message", [
    ({"judge": "openai:base_url=http://127.0.0.1:9/v1", "model": "m"}, "lm-eval splits `--metadata k=v,k=v`"),
    ({"judge": "openai:base_url=http://127.0.0.1:9/v1,model=m,concurency=4"}, "unknown keys"),
    ({"judge": "rules"}, "unknown kind 'rules'"),
])
def test_bad_judge_specs_fail_at_task_load(tmp_path, metadata, message):
    with pytest.raises(HallubenchError, match=message):
        load_task("precisewikiqa", {"dataset": tiny_set(tmp_path / "d"), **metadata})


def test_unreachable_judge_is_caught_before_generation(tmp_path):
    judge = "openai:base_url=http://127.0.0.1:9/v1,model=j"
    task = load_task("precisewikiqa", {"dataset": tiny_set(tmp_path / "d"), "judge": judge, "judge_probe_timeout": 2})
    with pytest.raises(HallubenchError, match="unreachable.*judge_probe_timeout=0"):
        task.build_all_requests(tokenizer_name="")


def test_judging_that_raises_keeps_the_responses_for_score(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HALLUBENCH_CACHE", str(tmp_path / "cache" / "calls.sqlite"))

    def broken(*args, **kwargs):
        raise RuntimeError("judge chain broke")

    monkeypatch.setattr(judged_task, "judge_responses", broken)
    docs = [{"id": "x0", "question": "Capital of France?", "answer": "Paris"}]
    records = [json.loads(r) for r in JudgeFilter(PRECISEWIKIQA, {"judge": "rule"}, "precisewikiqa").apply(["Paris."],
                                                                                                             docs)]
    assert records[0]["outcome"] == "unjudged" and "judge chain broke" in records[0]["unjudged_reason"]
    [saved] = (tmp_path / "cache" / "unjudged").glob("samples_precisewikiqa_*.jsonl")
    line = json.loads(saved.read_text().splitlines()[0])
    assert line["doc"] == docs[0] and line["resps"] == [["Paris."]]
    assert str(saved) in capsys.readouterr().err


@pytest.mark.parametrize("args, message", [
    (["--model", "hf", "--metadata", '{"dataset": "SET", "judge": "rules"}'], "unknown kind 'rules'"),
    (["--model", "local-chat-completions", "--metadata", '{"dataset": "SET"}'], "add --apply_chat_template"),
    (["--model", "hf", "--num_fewshot", "3", "--metadata", '{"dataset": "SET"}'], "--num_fewshot 3 refused"),
    (["--model", "hf", "--metadata", '{"dataset": "sets/pwqa-2026-1"}'], "a local path, not a Hub id"),
])
def test_hallubench_eval_first_hour_mistakes_end_in_one_line_before_any_model(tmp_path, monkeypatch, capsys, args,
                                                                               message):
    from hallubench.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "sets").mkdir()
    dataset = tiny_set(tmp_path / "d")
    argv = ["eval", "--tasks", "precisewikiqa", *(a.replace("SET", dataset) for a in args)]
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_every_metric_of_every_task_gets_a_stderr_from_lm_eval():
    """lm-eval prints N/A for aggregations it does not know; hallubench's conditional mean is taught to it."""
    import lm_eval.evaluator_utils as evaluator_utils
    from lm_eval.api.registry import get_aggregation

    from hallu_metrics.registry import TASKS
    from hallu_metrics.stats import describe, mean_of_counted

    missing = []
    for task, benchmark in TASKS.items():
        for entry in benchmark.lm_eval_metric_list():
            aggregation = entry["aggregation"]
            function = get_aggregation(aggregation) if isinstance(aggregation, str) else aggregation
            if evaluator_utils.stderr_for_metric(metric=function, bootstrap_iters=100000) is None:
                missing.append(f"{task}:{entry['metric']}")
    assert not missing
    values = [1.0, None, 0.0, 1.0, float("nan"), 1.0]
    stderr_fn = evaluator_utils.stderr_for_metric(metric=mean_of_counted, bootstrap_iters=100000)
    assert stderr_fn(values) == describe(values)[1]
    assert stderr_fn([1.0, None]) == "N/A"


def test_direction_arrows_only_where_a_better_direction_is_meant():
    """lm-eval's table draws ↑/↓ from each metric's higher_is_better: descriptive numbers (fact counts, summary
    length, the rubric's mean score) get none; rates that should go down get ↓."""
    from lm_eval.utils import make_table

    from hallu_metrics.registry import TASKS

    directions = {(task, e["metric"]): e["higher_is_better"] for task, b in TASKS.items()
                  for e in b.lm_eval_metric_list()}
    descriptive = {"facts_per_response", "facts_per_response_reference", "average_summary_length", "score"}
    assert {metric for (_, metric), direction in directions.items() if direction is None} == descriptive
    assert directions[("faithfulness_rubric", "residual")] is False and directions[("longwiki", "precision")] is True
    results = {"results": {"wildhallucinations": {"facts_per_response,judged": 12.5, "wildfactscore,judged": 0.8}},
               "versions": {"wildhallucinations": 2.0}, "n-shot": {"wildhallucinations": 0},
               "higher_is_better": {"wildhallucinations": {m: directions[("wildhallucinations", m)]
                                                           for m in ("facts_per_response", "wildfactscore")}}}
    rows = {line.split("|")[5].strip(): line.split("|")[6].strip() for line in make_table(results).splitlines()[2:]}
    assert rows == {"facts_per_response": "", "wildfactscore": "↑"}


def test_the_runs_settings_are_resolved_once_and_recorded_in_results_and_samples(tmp_path, monkeypatch):
    """Every setting of the run (defaults included) lands in the results metadata and in each judged record, so
    that `hallubench score` re-scores with them."""
    monkeypatch.setenv("HALLUBENCH_JUDGE", "rule")
    task = load_task("precisewikiqa", {"dataset": tiny_set(tmp_path / "d")})
    recorded = task.config.metadata["hallubench_settings"]
    assert recorded["judge"] == "rule" and recorded["dataset"] == str(tmp_path / "d")
    [ensemble] = task._filters
    [record] = [json.loads(r) for r in ensemble.filters[1]().apply(["Paris."], [next(iter(task.test_docs()))])]
    assert record["settings"] == recorded
