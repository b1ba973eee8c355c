"""PreciseWikiQA metric definitions on hand-built judged samples, and the two-stage judging flow."""

import json
import math

from hallu_metrics import precisewikiqa as pw
from hallu_metrics.judges import RuleJudge, Verdict
from hallu_metrics.judges.rules import contains_abstention_phrase, matches_gold


def test_rates_follow_the_paper_definitions():
    outcomes = ["abstained", "correct", "correct", "hallucinated", "hallucinated", "hallucinated", "unjudged", "abstained"]
    r = pw.rates(outcomes)
    assert r["n"] == 8
    assert r["false_refusal_rate"] == 2 / 8
    assert r["hallucination_rate"] == 3 / 5  # among attempted and judged answers
    assert r["correct_rate"] == 2 / 8
    assert r["judge_unparseable_rate"] == 1 / 8


def test_all_refused_gives_null_hallucination_rate_not_zero():
    r = pw.rates(["abstained"] * 4)
    assert r["false_refusal_rate"] == 1.0
    assert r["hallucination_rate"] is None
    assert r["correct_rate"] == 0.0
    values = [pw.sample_metrics("abstained")["hallucination_rate"] for _ in range(4)]
    assert math.isnan(pw.ratio_of_counted(values))


def test_lm_eval_per_sample_values_aggregate_to_the_same_rates():
    outcomes = ["abstained", "correct", "hallucinated", "hallucinated", "unjudged"]
    per_sample = [pw.process_results({}, [json.dumps({"outcome": o})]) for o in outcomes]
    mean = lambda xs: sum(xs) / len(xs)  # noqa: E731  (lm-eval's `mean`)
    r = pw.rates(outcomes)
    assert mean([s["false_refusal_rate"] for s in per_sample]) == r["false_refusal_rate"]
    assert mean([s["correct_rate"] for s in per_sample]) == r["correct_rate"]
    assert mean([s["judge_unparseable_rate"] for s in per_sample]) == r["judge_unparseable_rate"]
    assert pw.ratio_of_counted([s["hallucination_rate"] for s in per_sample]) == r["hallucination_rate"]


def test_summary_breaks_down_by_bin_with_unbinned_last():
    summary = pw.summarize(["correct", "hallucinated", "abstained", "correct"], [1, 1, None, 0])
    assert list(summary["per_bin"]) == ["0", "1", "unbinned"]
    assert summary["per_bin"]["1"]["hallucination_rate"] == 0.5
    assert summary["per_bin"]["unbinned"]["hallucination_rate"] is None
    assert summary["stderr"]["false_refusal_rate"] > 0


class ScriptedJudge:
    """A judge double answering from a table, recording what it was asked."""

    spec = "scripted"

    def __init__(self, abstention, correctness):
        self.abstention, self.correctness, self.asked = abstention, correctness, []

    def run(self, check, items, desc=""):
        self.asked.append((check.name, [i["response"] for i in items]))
        table = self.abstention if check.name == "abstention" else self.correctness
        return [table[i["response"]] for i in items]

    def report(self):
        return {}


def test_correctness_is_judged_only_for_non_abstained_answers_and_unparseable_is_kept():
    ok = lambda label: Verdict(label, "ok", "raw")  # noqa: E731
    judge = ScriptedJudge(
        abstention={"a": ok(True), "b": ok(False), "c": ok(False), "d": Verdict(None, "unparseable", "??")},
        correctness={"b": ok("UNVERIFIABLE"), "c": Verdict(None, "unparseable", "hmm")},
    )
    docs = [{"question": "q", "answer": "x"}] * 4
    records = pw.judge_responses(["a", "b", "c", "d"], docs, judge)
    assert [r["outcome"] for r in records] == ["abstained", "hallucinated", "unjudged", "unjudged"]
    assert judge.asked[1] == ("correctness", ["b", "c"])
    assert records[2]["correctness"]["raw"] == "hmm"  # raw judge text reaches the samples log


def test_rule_judge_end_to_end():
    docs = [{"question": "Capital of France?", "answer": "Paris"}] * 3
    responses = ["I'm sorry, I don't know.", "It is Paris.", "It is Lyon."]
    records = pw.judge_responses(responses, docs, RuleJudge())
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
