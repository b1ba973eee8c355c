"""PreciseWikiQA metric definitions on hand-built judged samples, and the two-stage judging flow."""

import json
import math

from hallu_metrics.benchmarks import precisewikiqa as pw
from hallu_metrics.judges import JudgeSet, Verdict
from hallu_metrics.judges.rules import contains_abstention_phrase, matches_gold
from hallu_metrics.pipeline import judge_responses
from hallu_metrics.stats import mean_of_counted
from hallubench_tasks.judged_task import RecordMetrics


def summary(outcomes, difficulties=None):
    difficulties = difficulties or [None] * len(outcomes)
    return pw.BENCHMARK.summarize([{"outcome": o} for o in outcomes], [{"difficulty": d} for d in difficulties])


def test_rates_follow_the_paper_definitions():
    """FRR and correct rate over judged samples (readable verdicts), hallucination rate over attempted-and-judged
    answers, unjudged only in its own rate (over N)."""
    outcomes = [
        "abstained",
        "correct",
        "correct",
        "hallucinated",
        "hallucinated",
        "hallucinated",
        "unjudged",
        "abstained",
    ]
    r = summary(outcomes)
    assert r["n"] == 8
    assert r["false_refusal_rate"] == 2 / 7 and r["counted"]["false_refusal_rate"] == 7
    assert r["hallucination_rate"] == 3 / 5 and r["counted"]["hallucination_rate"] == 5
    assert r["correct_rate"] == 2 / 7 and r["counted"]["correct_rate"] == 7
    assert r["judge_unparseable_rate"] == 1 / 8 and r["counted"]["judge_unparseable_rate"] == 8
    assert r["counts"] == {"abstained": 2, "correct": 2, "hallucinated": 3, "unjudged": 1}


def test_all_refused_gives_null_hallucination_rate_not_zero():
    """Nothing attempted: the conditional rate is undefined (None / NaN), never 0."""
    r = summary(["abstained"] * 4)
    assert r["false_refusal_rate"] == 1.0 and r["hallucination_rate"] is None and r["correct_rate"] == 0.0
    values = [pw.sample_metrics({"outcome": "abstained"})["hallucination_rate"] for _ in range(4)]
    assert math.isnan(mean_of_counted(values))


def test_lm_eval_per_sample_values_aggregate_to_the_same_rates():
    """The lm-eval hook's per-sample values, aggregated as the task declares, equal `score`'s numbers."""
    outcomes = ["abstained", "correct", "hallucinated", "hallucinated", "unjudged"]
    hook = RecordMetrics(pw.BENCHMARK)
    per_sample = [hook({}, [json.dumps({"outcome": o})]) for o in outcomes]
    r = summary(outcomes)
    for entry in pw.BENCHMARK.lm_eval_metric_list():
        values = [s[entry["metric"]] for s in per_sample]
        aggregate = mean_of_counted if callable(entry["aggregation"]) else (lambda xs: sum(xs) / len(xs))
        assert aggregate(values) == r[entry["metric"]]


def test_summary_breaks_down_by_bin_with_stderr():
    """Rows per difficulty bin in numeric order, each with n and stderr; unbinned rows last."""
    r = summary(["correct", "hallucinated", "abstained", "correct"], [1, 1, None, 0])
    rows = r["breakdowns"]["difficulty"]
    assert [row["value"] for row in rows] == ["0", "1", "none"]
    assert rows[1]["hallucination_rate"] == 0.5 and rows[1]["stderr"]["hallucination_rate"] > 0
    assert rows[2]["hallucination_rate"] is None
    assert r["stderr"]["false_refusal_rate"] > 0
    assert "difficulty" not in summary(["correct"])["breakdowns"]  # an unbinned set has no bin rows


class ScriptedJudge:
    """A judge double answering from a table, recording what it was asked."""

    spec = "scripted"

    def __init__(self, abstention, correctness):
        self.abstention, self.correctness, self.asked = abstention, correctness, []

    async def ask(self, check, item):
        self.asked.append((check.name, item["response"]))
        return (self.abstention if check.name == "abstention" else self.correctness)[item["response"]]

    def report(self):
        return {}

    def close(self):
        pass


def judge_with(judge, responses, docs):
    judges = JudgeSet({"judge": "rule"})
    judges.use("rule", judge)
    return judge_responses(pw.BENCHMARK, responses, docs, judges)


def test_correctness_is_judged_only_for_non_abstained_answers_and_unparseable_is_kept():
    """Chain per item: abstention first, correctness only when not abstained; raw replies kept."""
    ok = lambda label: Verdict(label, "ok", "raw")
    judge = ScriptedJudge(
        abstention={"a": ok(True), "b": ok(False), "c": ok(False), "d": Verdict(None, "unparseable", "??")},
        correctness={"b": ok("UNVERIFIABLE"), "c": Verdict(None, "unparseable", "hmm")},
    )
    records = judge_with(judge, ["a", "b", "c", "d"], [{"question": "q", "answer": "x"}] * 4)
    assert [r["outcome"] for r in records] == ["abstained", "hallucinated", "unjudged", "unjudged"]
    assert sorted(r for c, r in judge.asked if c == "correctness") == ["b", "c"]
    assert records[2]["correctness"]["raw"] == "hmm"  # raw judge text reaches the samples log


def test_rule_judge_end_to_end():
    """The embedded rule judge runs the same chain."""
    docs = [{"question": "Capital of France?", "answer": "Paris"}] * 3
    responses = ["I'm sorry, I don't know.", "It is Paris.", "It is Lyon."]
    records = judge_responses(pw.BENCHMARK, responses, docs, JudgeSet({"judge": "rule"}))
    assert [r["outcome"] for r in records] == ["abstained", "correct", "hallucinated"]


def test_abstention_phrases_and_gold_matching():
    assert contains_abstention_phrase("I couldn\u2019t find any information on that village.")
    assert not contains_abstention_phrase("The village had 412 inhabitants.")
    assert matches_gold("The answer is the Red River.", "Red River")
    assert matches_gold("Marie Curie won it, in Paris", "Curie, Marie")
    assert not matches_gold("Paristown", "Paris")
    assert matches_gold("about 3.14159", "3.14")
    assert matches_gold("It had 1,200 staff", "1200")
    assert not matches_gold("It had 1,300 staff", "1200")
    assert matches_gold("Élysée Palace", "elysee palace")
